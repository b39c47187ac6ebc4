package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// step is one scripted model response.
type step struct {
	deltas []string
	calls  []ToolCall
	err    error
	// block, when set, is waited on after the deltas (or until cancelled).
	block chan struct{}
}

// scripted is a Provider that plays steps in order and records requests.
type scripted struct {
	mu       sync.Mutex
	steps    []step
	requests []*ModelRequest
}

func (p *scripted) Info() ProviderInfo {
	return ProviderInfo{Name: "scripted", Model: "m1"}
}

func (p *scripted) Stream(ctx context.Context, req *ModelRequest, sink DeltaSink) (*ModelResponse, error) {
	p.mu.Lock()
	p.requests = append(p.requests, req)
	if len(p.steps) == 0 {
		p.mu.Unlock()
		return &ModelResponse{Text: "done"}, nil
	}
	s := p.steps[0]
	p.steps = p.steps[1:]
	p.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var text strings.Builder
	for _, d := range s.deltas {
		text.WriteString(d)
		sink.Text(d)
	}
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &ModelResponse{Text: text.String(), ToolCalls: s.calls, Usage: Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}}, nil
}

func (p *scripted) requestCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// recorder collects the events a session's sink receives.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) sink(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) forTurn(id string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, ev := range r.events {
		if ev.TurnID == id {
			out = append(out, ev)
		}
	}
	return out
}

func kinds(evs []Event) []EventKind {
	var out []EventKind
	for _, ev := range evs {
		out = append(out, ev.Kind)
	}
	return out
}

func waitDone(t *testing.T, turn *Turn) {
	t.Helper()
	select {
	case <-turn.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("turn %s did not finish: %+v", turn.ID(), turn.Info())
	}
}

// checkTurnEvents asserts the invariants every turn's events keep: sequence
// numbers from 1 without gaps, exactly one finished event, and it is last.
func checkTurnEvents(t *testing.T, evs []Event) {
	t.Helper()
	finished := 0
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d (%s) has sequence %d", i, ev.Kind, ev.Seq)
		}
		if ev.Kind == EventFinished {
			finished++
		}
	}
	if finished != 1 || evs[len(evs)-1].Kind != EventFinished {
		t.Fatalf("want exactly one finished event, last; got %v", kinds(evs))
	}
}

func newTestSession(t *testing.T, p Provider, tools Toolset) (*Session, *recorder, *SessionLog) {
	t.Helper()
	store := &Store{Dir: t.TempDir()}
	log, err := store.Create(Header{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s := NewSession(SessionOptions{
		Workspace:   log.Header().Cwd,
		Log:         log,
		Provider:    func() (Provider, error) { return p, nil },
		Tools:       tools,
		Sink:        rec.sink,
		RetryDelays: []time.Duration{time.Millisecond, 2 * time.Millisecond},
	})
	t.Cleanup(s.Close)
	return s, rec, log
}

func TestTurnCompletes(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"Hel", "lo"}}}}
	s, rec, log := newTestSession(t, p, nil)
	turn, err := s.Start(Input{Text: "hi"}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, turn)
	evs := rec.forTurn(turn.ID())
	checkTurnEvents(t, evs)
	want := []EventKind{EventQueued, EventStarted, EventTextDelta, EventTextDelta, EventMessage, EventAnswer, EventFinished}
	if got := kinds(evs); !equalKinds(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if evs[len(evs)-1].Status != StatusCompleted || evs[5].Text != "Hello" {
		t.Fatalf("finished %v, answer %q", evs[len(evs)-1].Status, evs[5].Text)
	}
	if m := evs[4].Message; m.Usage == nil || m.Usage.TotalTokens != 5 || m.Provider != "scripted" {
		t.Fatalf("assistant message lacks usage or provider: %+v", m)
	}
	ld, err := Load(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(ld.Messages) != 2 || ld.Messages[0].Text != "hi" || ld.Messages[1].Text != "Hello" {
		t.Fatalf("session file messages = %+v", ld.Messages)
	}
}

func equalKinds(a, b []EventKind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCancelQueuedTurn(t *testing.T) {
	release := make(chan struct{})
	p := &scripted{steps: []step{{deltas: []string{"working"}, block: release}}}
	s, rec, _ := newTestSession(t, p, nil)
	first, _ := s.Start(Input{Text: "one"}, "")
	second, err := s.Start(Input{Text: "two"}, FollowUp)
	if err != nil {
		t.Fatal(err)
	}
	if info := s.Cancel(second); info.Status != StatusCanceled || !info.CancelRequested {
		t.Fatalf("cancelled queued turn: %+v", info)
	}
	close(release)
	waitDone(t, first)
	waitDone(t, second)
	evs := rec.forTurn(second.ID())
	checkTurnEvents(t, evs)
	if got, want := kinds(evs), []EventKind{EventQueued, EventCancelRequested, EventFinished}; !equalKinds(got, want) {
		t.Fatalf("cancelled queued turn events = %v, want %v", got, want)
	}
	if first.Info().Status != StatusCompleted {
		t.Fatalf("first turn: %+v", first.Info())
	}
	time.Sleep(20 * time.Millisecond)
	if n := p.requestCount(); n != 1 {
		t.Fatalf("the cancelled turn reached the model: %d requests", n)
	}
}

func TestCancelMidStream(t *testing.T) {
	block := make(chan struct{}) // never closed: only cancellation ends the stream
	p := &scripted{steps: []step{{deltas: []string{"partial"}, block: block}}}
	s, rec, log := newTestSession(t, p, nil)
	turn, _ := s.Start(Input{Text: "go"}, "")
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.forTurn(turn.ID())) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s.Cancel(turn)
	waitDone(t, turn)
	evs := rec.forTurn(turn.ID())
	checkTurnEvents(t, evs)
	n := len(evs)
	if evs[n-2].Kind != EventCancelRequested || evs[n-1].Status != StatusCanceled {
		t.Fatalf("last events = %v", kinds(evs[n-2:]))
	}
	for _, ev := range evs {
		if ev.Kind == EventMessage || ev.Kind == EventAnswer {
			t.Fatalf("assistant event after cancel: %v", kinds(evs))
		}
	}
	// The next turn runs normally and sees a consistent history.
	next, _ := s.Start(Input{Text: "again"}, "")
	waitDone(t, next)
	if next.Info().Status != StatusCompleted {
		t.Fatalf("turn after cancel: %+v", next.Info())
	}
	ld, _ := Load(log.Path())
	if len(ld.Messages) != 3 || ld.Messages[1].Text != "again" {
		t.Fatalf("history after a cancelled turn: %+v", ld.Messages)
	}
}

func TestFollowUpOrdering(t *testing.T) {
	p := &scripted{steps: []step{{deltas: []string{"a"}}, {deltas: []string{"b"}}, {deltas: []string{"c"}}}}
	s, rec, _ := newTestSession(t, p, nil)
	var turns []*Turn
	for _, in := range []string{"1", "2", "3"} {
		turn, err := s.Start(Input{Text: in}, FollowUp)
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, turn)
	}
	for _, turn := range turns {
		waitDone(t, turn)
	}
	// Turn n+1 starts only after turn n finished.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var order []string
	for _, ev := range rec.events {
		if ev.Kind == EventStarted || ev.Kind == EventFinished {
			order = append(order, ev.TurnID[:4]+string(ev.Kind[0]))
		}
	}
	var want []string
	for _, turn := range turns {
		want = append(want, turn.ID()[:4]+"s", turn.ID()[:4]+"f")
	}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Fatalf("start/finish order = %v, want %v", order, want)
	}
	if got := s.History(); got[1].Text != "a" || got[3].Text != "b" || got[5].Text != "c" {
		t.Fatalf("history out of order: %+v", got)
	}
}

func TestReplay(t *testing.T) {
	deltas := make([]string, 1500)
	for i := range deltas {
		deltas[i] = "x"
	}
	p := &scripted{steps: []step{{deltas: []string{"a", "b", "c"}}, {deltas: deltas}}}
	s, _, _ := newTestSession(t, p, nil)
	turn, _ := s.Start(Input{Text: "short"}, "")
	waitDone(t, turn)
	after := turn.Events(2)
	if len(after) == 0 || after[0].Seq != 3 || after[len(after)-1].Kind != EventFinished {
		t.Fatalf("Events(2) = %v", kinds(after))
	}
	long, _ := s.Start(Input{Text: "long"}, "")
	waitDone(t, long)
	all := long.Events(0)
	last := long.Info().LastSeq
	if len(all) != ReplayLimit || all[0].Seq != last-ReplayLimit+1 || all[len(all)-1].Seq != last {
		t.Fatalf("replay kept %d events, %d..%d of %d", len(all), all[0].Seq, all[len(all)-1].Seq, last)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq != all[i-1].Seq+1 {
			t.Fatalf("replay out of order at %d", i)
		}
	}
}

func TestTwoSessionsRunAtOnce(t *testing.T) {
	// Each provider blocks until both have been called: only concurrent
	// sessions can finish.
	var wg sync.WaitGroup
	wg.Add(2)
	both := make(chan struct{})
	go func() { wg.Wait(); close(both) }()
	mk := func() Provider { return &barrier{wg: &wg, both: both} }
	s1, _, _ := newTestSession(t, mk(), nil)
	s2, _, _ := newTestSession(t, mk(), nil)
	t1, _ := s1.Start(Input{Text: "a"}, "")
	t2, _ := s2.Start(Input{Text: "b"}, "")
	waitDone(t, t1)
	waitDone(t, t2)
	if t1.Info().Status != StatusCompleted || t2.Info().Status != StatusCompleted {
		t.Fatalf("turns: %+v %+v", t1.Info(), t2.Info())
	}
}

type barrier struct {
	wg   *sync.WaitGroup
	both chan struct{}
}

func (b *barrier) Info() ProviderInfo { return ProviderInfo{Name: "barrier"} }
func (b *barrier) Stream(ctx context.Context, _ *ModelRequest, _ DeltaSink) (*ModelResponse, error) {
	b.wg.Done()
	select {
	case <-b.both:
		return &ModelResponse{Text: "ok"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func isInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

func TestNoProviderFailsAtOnce(t *testing.T) {
	cfg := &Config{}
	env := func(string) string { return "" }
	rec := &recorder{}
	s := NewSession(SessionOptions{
		Provider: func() (Provider, error) {
			_, err := cfg.Resolve(env, "/cfg/kast/config.json")
			return nil, err
		},
		Sink: rec.sink,
	})
	defer s.Close()
	start := time.Now()
	turn, _ := s.Start(Input{Text: "hello"}, "")
	waitDone(t, turn)
	if time.Since(start) > time.Second {
		t.Fatalf("a turn with no provider took %v", time.Since(start))
	}
	evs := rec.forTurn(turn.ID())
	checkTurnEvents(t, evs)
	info := turn.Info()
	if info.Status != StatusFailed || info.Err.Code != "PROVIDER_NOT_CONFIGURED" ||
		!strings.Contains(info.Err.Message, "KAST_PROVIDER") || !strings.Contains(info.Err.Message, "OPENAI_API_KEY") {
		t.Fatalf("failure = %+v", info.Err)
	}
	if got := kinds(evs); !equalKinds(got, []EventKind{EventQueued, EventStarted, EventError, EventFinished}) {
		t.Fatalf("events = %v", got)
	}
}

func TestRetryTransientFailure(t *testing.T) {
	p := &scripted{steps: []step{
		{err: &ProviderError{Provider: "scripted", Status: 429, Transient: true, Message: "Rate limit exceeded"}},
		{deltas: []string{"ok"}},
	}}
	s, rec, _ := newTestSession(t, p, nil)
	turn, _ := s.Start(Input{Text: "x"}, "")
	waitDone(t, turn)
	evs := rec.forTurn(turn.ID())
	checkTurnEvents(t, evs)
	var retry *RetryInfo
	for _, ev := range evs {
		if ev.Kind == EventRetry {
			retry = ev.Retry
		}
	}
	if retry == nil || retry.Attempt != 2 || retry.MaxAttempts != 3 || !strings.Contains(retry.Error, "Rate limit") {
		t.Fatalf("retry event = %+v", retry)
	}
	if turn.Info().Status != StatusCompleted {
		t.Fatalf("turn = %+v", turn.Info())
	}

	// A permanent failure is not retried.
	p.steps = []step{{err: &ProviderError{Provider: "scripted", Status: 401, Message: "bad key"}}}
	failed, _ := s.Start(Input{Text: "y"}, "")
	waitDone(t, failed)
	for _, ev := range failed.Events(0) {
		if ev.Kind == EventRetry {
			t.Fatal("a 401 was retried")
		}
	}
	if info := failed.Info(); info.Status != StatusFailed || !strings.Contains(info.Err.Message, "bad key") {
		t.Fatalf("401 turn: %+v", info)
	}
}

// echoTools is a Toolset that answers every call with its arguments.
type echoTools struct{}

func (echoTools) Specs() []ToolSpec {
	return []ToolSpec{{Name: "echo", Parameters: map[string]any{"type": "object"}}}
}
func (echoTools) Run(_ context.Context, _ *ToolEnv, call ToolCall) ToolResult {
	return ToolResult{Content: "echo " + call.Arguments}
}

func TestToolCallRoundTrip(t *testing.T) {
	p := &scripted{steps: []step{
		{calls: []ToolCall{{ID: "c1", Name: "echo", Arguments: `{"x":1}`}}},
		{deltas: []string{"finished"}},
	}}
	s, rec, log := newTestSession(t, p, echoTools{})
	turn, _ := s.Start(Input{Text: "use a tool"}, "")
	waitDone(t, turn)
	evs := rec.forTurn(turn.ID())
	checkTurnEvents(t, evs)
	want := []EventKind{EventQueued, EventStarted, EventMessage, EventToolCall, EventToolResult, EventTextDelta, EventMessage, EventAnswer, EventFinished}
	if got := kinds(evs); !equalKinds(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if r := evs[4].Tool.Result; r.Content != `echo {"x":1}` {
		t.Fatalf("tool result = %+v", r)
	}
	ld, _ := Load(log.Path())
	if len(ld.Messages) != 4 || ld.Messages[2].Role != RoleTool || ld.Messages[2].ToolCallID != "c1" {
		t.Fatalf("session file = %+v", ld.Messages)
	}
	// The model's second request carried the tool result.
	p.mu.Lock()
	second := p.requests[1]
	p.mu.Unlock()
	if m := second.Messages[len(second.Messages)-1]; m.Role != RoleTool || m.Text != `echo {"x":1}` {
		t.Fatalf("second request ended with %+v", m)
	}
}

func TestQuestionResolvedOnCancel(t *testing.T) {
	asked := make(chan QuestionRequest, 1)
	p := &scripted{steps: []step{{calls: []ToolCall{{ID: "q", Name: "ask"}}}}}
	store := &Store{Dir: t.TempDir()}
	log, _ := store.Create(Header{Cwd: t.TempDir()})
	rec := &recorder{}
	s := NewSession(SessionOptions{Log: log, Provider: func() (Provider, error) { return p, nil },
		Tools: askTools{}, Sink: rec.sink, OnQuestion: func(q QuestionRequest) { asked <- q }})
	defer s.Close()
	turn, _ := s.Start(Input{Text: "ask me"}, "")
	q := <-asked
	s.Cancel(turn)
	waitDone(t, turn)
	if turn.Info().Status != StatusCanceled {
		t.Fatalf("turn = %+v", turn.Info())
	}
	if s.Answer(q.ID, []Answer{{Question: "q", Answer: "late"}}) {
		t.Fatal("a question of a finished turn accepted an answer")
	}
	// The tool call got its "Cancelled." result, so the history stays valid.
	h := s.History()
	if last := h[len(h)-1]; last.Role != RoleTool || last.Text != "Cancelled." {
		t.Fatalf("history ends with %+v", last)
	}
}

type askTools struct{}

func (askTools) Specs() []ToolSpec { return []ToolSpec{{Name: "ask"}} }
func (askTools) Run(ctx context.Context, env *ToolEnv, _ ToolCall) ToolResult {
	if _, err := env.Ask(ctx, []Question{{Question: "q", Options: []QuestionOption{{Label: "a"}, {Label: "b"}}}}); err != nil {
		return ToolResult{Content: "Cancelled.", IsError: true}
	}
	return ToolResult{Content: "answered"}
}

func TestSessionFilePermissions(t *testing.T) {
	store := &Store{Dir: filepath.Join(t.TempDir(), "sessions")}
	log, err := store.Create(Header{Cwd: "/home/u/my:proj"})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(log.Path())
	di, _ := os.Stat(filepath.Dir(log.Path()))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("file %v, dir %v", fi.Mode().Perm(), di.Mode().Perm())
	}
	if got := filepath.Base(filepath.Dir(log.Path())); got != "--home-u-my-proj--" {
		t.Fatalf("session folder = %q", got)
	}
}
