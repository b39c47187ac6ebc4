package servertest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// keepGoing reports every failing step of a transcript rather than the
// first, for writing one: go test -run X ./pkg -args -transcripts.keepgoing
var keepGoing = flag.Bool("transcripts.keepgoing", false, "report every failing step of a transcript, not only the first")

// replay is one transcript being replayed.
type replay struct {
	t        *testing.T
	tr       *Transcript
	ws       *Workspace
	c        *Client
	opts     Transcripts
	inFlight map[string]inFlight // by label; "" is the request awaiting the next <-
	awaited  map[string]bool     // methods some <~ step waits for
	asked    map[string]bool     // methods some <= step waits for
	replies  int                 // replies to the last raw frame not yet matched
}

type inFlight struct {
	method string
	reply  <-chan *Message
}

func (r Transcripts) run(t *testing.T, tr *Transcript) error {
	ws, err := tr.setUp(t)
	if err != nil {
		return err
	}
	srv := r.NewServer(t, ws)
	c, _ := Pipe(t, srv, r.Framing)
	if r.StepTimeout == 0 {
		r.StepTimeout = 60 * time.Second
	}
	p := &replay{t: t, tr: tr, ws: ws, c: c, opts: r, inFlight: map[string]inFlight{}, awaited: map[string]bool{}, asked: map[string]bool{}}
	for i := 0; i < len(tr.Steps); i++ {
		s := tr.Steps[i]
		var err error
		if s.Kind == StepPoll {
			err = p.poll(tr.Steps[i+1], tr.Steps[i+2])
			i += 2
		} else {
			err = p.step(s)
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", s.where(tr.File), err)
			if !*keepGoing {
				return err
			}
			t.Error(err)
		}
	}
	return p.leftovers()
}

func (p *replay) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), p.opts.StepTimeout)
}

func (p *replay) step(s Step) error {
	switch s.Kind {
	case StepRequest:
		return p.send(s)
	case StepResponse:
		return p.reply(s)
	case StepNotify:
		msg, err := p.message(s.Text)
		if err != nil {
			return err
		}
		msg["jsonrpc"] = "2.0"
		return p.c.send(msg)
	case StepNotification:
		return p.notification(s)
	case StepServerRequest:
		return p.serverRequest(s)
	case StepRaw:
		p.replies = s.Replies
		return p.c.WriteFrame([]byte(s.Text))
	case StepAnswer:
		return p.answer(s.Text)
	case StepFile:
		return p.checkFile(s.Text)
	case StepLet:
		name, text, _ := strings.Cut(s.Text, " ")
		v, err := p.value(text)
		if err != nil {
			return err
		}
		if v, err = expand(v, p.ws.vars); err != nil {
			return err
		}
		p.ws.vars[name] = v
		return nil
	}
	return fmt.Errorf("unknown step kind %d", s.Kind)
}

// message parses a step's JSON after expanding templates and variables.
func (p *replay) message(text string) (map[string]any, error) {
	v, err := p.value(text)
	if err != nil {
		return nil, err
	}
	v, err = expand(v, p.ws.vars)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, got %s", text)
	}
	return m, nil
}

// value parses a step's JSON after expanding templates; strings keep their
// placeholders.
func (p *replay) value(text string) (any, error) {
	text, err := p.ws.expandTemplate(text)
	if err != nil {
		return nil, err
	}
	return decodeJSON([]byte(text))
}

func (p *replay) send(s Step) error {
	msg, err := p.message(s.Text)
	if err != nil {
		return err
	}
	method, _ := msg["method"].(string)
	if method == "" {
		return errors.New("a request needs a method")
	}
	id, ok := msg["id"]
	if !ok {
		id = json.Number(strconv.FormatInt(p.c.nextID.Add(1), 10))
		msg["id"] = id
	}
	msg["jsonrpc"] = "2.0"
	raw, _ := json.Marshal(id)
	ch := make(chan *Message, 1)
	p.c.mu.Lock()
	p.c.pending[canonicalID(raw)] = ch
	p.c.mu.Unlock()
	if err := p.c.send(msg); err != nil {
		return err
	}
	if s.Label != "" {
		p.ws.vars[s.Label] = id
	}
	p.inFlight[s.Label] = inFlight{method: method, reply: ch}
	return nil
}

func (p *replay) reply(s Step) error {
	want, err := p.value(s.Text)
	if err != nil {
		return err
	}
	ctx, cancel := p.ctx()
	defer cancel()
	req, ok := p.inFlight[s.Label]
	if !ok { // the replies to a raw frame
		return p.orphan(ctx, want)
	}
	delete(p.inFlight, s.Label)
	var m *Message
	select {
	case m = <-req.reply:
	case <-ctx.Done():
		return fmt.Errorf("no reply to %s within %v", req.method, p.opts.StepTimeout)
	case <-p.c.done:
		select {
		case m = <-req.reply:
		default:
			return fmt.Errorf("the connection ended before the reply to %s: %v", req.method, p.c.readErr)
		}
	}
	if err := p.compare(want, responseValue(m, want)); err != nil {
		return fmt.Errorf("reply to %s:\n%w", req.method, err)
	}
	if p.opts.CheckResult != nil && m.Error == nil {
		p.opts.CheckResult(p.t, req.method, m.Result)
	}
	return nil
}

// orphan waits for a reply that matched no request and matches want. The
// replies of a raw frame may come in any order; once as many have come as
// steps wait for and none matches, waiting longer is pointless.
func (p *replay) orphan(ctx context.Context, want any) error {
	var last *Message
	mismatch := errors.New("no reply matches")
	_, err := p.c.wait(ctx, func() (*Message, bool) {
		for i, m := range p.c.orphans {
			last = m
			if _, _, diffs := match(want, responseValue(m, want), copyVars(p.ws.vars)); len(diffs) == 0 {
				p.c.orphans = append(p.c.orphans[:i:i], p.c.orphans[i+1:]...)
				return m, true
			}
		}
		if len(p.c.orphans) >= p.replies && last != nil {
			return nil, true
		}
		return nil, false
	})
	p.replies--
	switch {
	case err == nil && last != nil:
		if err := p.compare(want, responseValue(last, want)); err != nil { // binds its captures
			return fmt.Errorf("no reply to the raw frame matches; the last one:\n%w", err)
		}
		return nil
	case last == nil:
		return fmt.Errorf("no reply to the raw frame: %v", err)
	}
	return fmt.Errorf("%w; the last one:\n%w", mismatch, p.compare(want, responseValue(last, want)))
}

// responseValue is a reply as a step compares it: result or error, and the
// id when the step gives one.
func responseValue(m *Message, want any) map[string]any {
	out := map[string]any{}
	if w, ok := want.(map[string]any); ok {
		if _, ok := w["id"]; ok {
			out["id"] = rawValue(m.ID)
		}
	}
	if m.Error != nil {
		e := map[string]any{"code": json.Number(strconv.FormatInt(m.Error.Code, 10)), "message": m.Error.Message}
		if len(m.Error.Data) > 0 {
			e["data"] = rawValue(m.Error.Data)
		}
		out["error"] = e
	} else {
		out["result"] = rawValue(m.Result)
	}
	return out
}

func rawValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	return v
}

func (p *replay) notification(s Step) error {
	want, err := p.value(s.Text)
	if err != nil {
		return err
	}
	w, _ := want.(map[string]any)
	method, _ := w["method"].(string)
	if method == "" {
		return errors.New("an expected notification needs a method")
	}
	p.awaited[method] = true
	ctx, cancel := p.ctx()
	defer cancel()
	var seen *Message
	m, err := p.c.wait(ctx, func() (*Message, bool) {
		for i := 0; i < len(p.c.notes); i++ {
			m := p.c.notes[i]
			if m.Method != method {
				continue
			}
			seen = m
			if !s.Skip {
				p.c.notes = append(p.c.notes[:i:i], p.c.notes[i+1:]...)
				return m, true
			}
			if _, _, diffs := match(want, notificationValue(m), copyVars(p.ws.vars)); len(diffs) == 0 {
				p.c.notes = append(p.c.notes[:i:i], p.c.notes[i+1:]...)
				return m, true
			}
			p.c.notes = append(p.c.notes[:i:i], p.c.notes[i+1:]...) // <~*: dropped
			i--
		}
		return nil, false
	})
	if err != nil {
		if seen != nil {
			return fmt.Errorf("no notification %s matches within %v; the last one:\n%w", method, p.opts.StepTimeout, p.compare(want, notificationValue(seen)))
		}
		return fmt.Errorf("no notification %s within %v: %v", method, p.opts.StepTimeout, err)
	}
	if err := p.compare(want, notificationValue(m)); err != nil {
		return fmt.Errorf("notification %s:\n%w", method, err)
	}
	return nil
}

// serverRequest waits for the next request of a method from the server.
func (p *replay) serverRequest(s Step) error {
	want, err := p.value(s.Text)
	if err != nil {
		return err
	}
	w, _ := want.(map[string]any)
	method, _ := w["method"].(string)
	if method == "" {
		return errors.New("an expected server request needs a method")
	}
	p.asked[method] = true
	ctx, cancel := p.ctx()
	defer cancel()
	m, err := p.c.wait(ctx, func() (*Message, bool) {
		for i, m := range p.c.requests {
			if m.Method == method {
				p.c.requests = append(p.c.requests[:i:i], p.c.requests[i+1:]...)
				return m, true
			}
		}
		return nil, false
	})
	if err != nil {
		return fmt.Errorf("no request %s from the server within %v: %v", method, p.opts.StepTimeout, err)
	}
	got := notificationValue(m)
	if _, ok := w["id"]; ok {
		got["id"] = rawValue(m.ID) // compared only when the step gives one
	}
	if err := p.compare(want, got); err != nil {
		return fmt.Errorf("server request %s:\n%w", method, err)
	}
	return nil
}

func notificationValue(m *Message) map[string]any {
	out := map[string]any{"method": m.Method}
	if len(m.Params) > 0 {
		out["params"] = rawValue(m.Params)
	}
	return out
}

// poll sends req until its reply matches want.
func (p *replay) poll(req, want Step) error {
	ctx, cancel := p.ctx()
	defer cancel()
	pause := 10 * time.Millisecond
	for {
		if err := p.send(req); err != nil {
			return err
		}
		// Compare without binding, so a failed attempt captures nothing.
		w, err := p.value(want.Text)
		if err != nil {
			return err
		}
		inf := p.inFlight[""]
		delete(p.inFlight, "")
		var m *Message
		select {
		case m = <-inf.reply:
		case <-ctx.Done():
			return fmt.Errorf("no reply to %s", inf.method)
		}
		_, _, diffs := match(w, responseValue(m, w), copyVars(p.ws.vars))
		if len(diffs) == 0 {
			if err := p.compare(w, responseValue(m, w)); err != nil {
				return err
			}
			if p.opts.CheckResult != nil && m.Error == nil {
				p.opts.CheckResult(p.t, inf.method, m.Result)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: the reply never matched within %v; the last one:\n%w", want.where(p.tr.File), p.opts.StepTimeout, p.compare(w, responseValue(m, w)))
		case <-time.After(pause):
		}
		pause = min(2*pause, 200*time.Millisecond)
	}
}

func copyVars(vars map[string]any) map[string]any {
	out := make(map[string]any, len(vars))
	for k, v := range vars {
		out[k] = v
	}
	return out
}

// compare matches got against want, binding captures, and describes any
// difference.
func (p *replay) compare(want, got any) error {
	exp, act, diffs := match(want, got, p.ws.vars)
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s\n--- expected\n+++ got\n%s", strings.Join(diffs, "\n"), lineDiff(pretty(exp), pretty(act)))
}

func (p *replay) answer(text string) error {
	method, result, _ := strings.Cut(text, " ")
	v, err := p.message(`{"result":` + result + `}`)
	if err != nil {
		return fmt.Errorf("answer %s: %v", method, err)
	}
	p.c.Handle(method, func(json.RawMessage) (any, error) { return v["result"], nil })
	return nil
}

func (p *replay) checkFile(text string) error {
	rel, check, arg, err := parseFileCheck(text)
	if err != nil {
		return err
	}
	if rel, err = splice(rel, p.ws.vars); err != nil {
		return err
	}
	path := rel
	if !filepath.IsAbs(rel) {
		path = p.ws.path(rel)
	}
	switch check {
	case "exists", "absent":
		m, err := filepath.Glob(path)
		if err != nil {
			return err
		}
		if check == "exists" && len(m) == 0 {
			return fmt.Errorf("no file matches %s", rel)
		}
		if check == "absent" && len(m) > 0 {
			return fmt.Errorf("%s should match no file, matches %v", rel, m)
		}
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	ok := false
	switch check {
	case "unchanged":
		initial, known := p.ws.initial[rel]
		if !known {
			return fmt.Errorf("%s was not in the workspace at the start", rel)
		}
		ok = string(initial) == string(data)
	case "contains":
		ok = strings.Contains(string(data), arg)
	case "lacks":
		ok = !strings.Contains(string(data), arg)
	case "matches", "notmatches":
		re, err := regexp.Compile(arg)
		if err != nil {
			return err
		}
		ok = re.Match(data) == (check == "matches")
	}
	if !ok {
		return fmt.Errorf("file %s %s %q fails; it holds:\n%s", rel, check, arg, data)
	}
	return nil
}

// leftovers fails on what came and no step consumed: notifications and
// server requests of methods some step waits for, and stray replies.
func (p *replay) leftovers() error {
	var extra []string
	p.c.mu.Lock()
	for _, m := range p.c.notes {
		if p.awaited[m.Method] || p.tr.Strict {
			extra = append(extra, fmt.Sprintf("notification %s %s", m.Method, canonical(rawValue(m.Params))))
		}
	}
	for _, m := range p.c.requests {
		if p.asked[m.Method] || p.tr.Strict {
			extra = append(extra, fmt.Sprintf("server request %s %s", m.Method, canonical(rawValue(m.Params))))
		}
	}
	for _, m := range p.c.orphans {
		b, _ := json.Marshal(m)
		extra = append(extra, fmt.Sprintf("reply to no request: %s", b))
	}
	p.c.mu.Unlock()
	if len(extra) > 0 {
		return fmt.Errorf("%s: messages no step expected:\n%s", p.tr.File, strings.Join(extra, "\n"))
	}
	return nil
}
