package kimi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// wireClient serves `kast kimi --wire` in-process over a fresh work
// folder, its model the script (one reply a line; "" for none).
func wireClient(t *testing.T, script string) *servertest.Client {
	t.Helper()
	testEnv(t, scriptedModel(t, []byte(script)))
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	entry := handlers.KimiWire(handlers.NewProcess(h), kimi.WireOptions{WorkDir: t.TempDir(), Version: "test"})
	c, _ := servertest.Pipe(t, server.New(entry.Options("test", nil)), servertest.NDJSON)
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// docExample is one line of kimi-cli's documented wire examples.
type docExample struct {
	Section string             `json:"section"`
	Message servertest.Message `json:"message"`
}

func docExamples(t *testing.T) []docExample {
	f, err := os.Open(servertest.Shared(t, "reference/agent-protocols/kimi-wire-v1.10-doc-examples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docExample
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ex docExample
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, ex)
	}
	return out
}

// shape checks that got has every key of want, recursively, with values
// of the same JSON type (the first element stands for an array's).
func shape(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", path, got)}
		}
		var diffs []string
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing", path, k))
				continue
			}
			diffs = append(diffs, shape(path+"."+k, v, gv)...)
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %T", path, got)}
		}
		if len(w) > 0 && len(g) > 0 {
			return shape(path+"[0]", w[0], g[0])
		}
		return nil
	}
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
		return []string{fmt.Sprintf("%s: want a %T, got %T", path, want, got)}
	}
	return nil
}

func decode(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// TestWireDocExamples replays every request of kimi-cli's wire-mode
// documentation against `kast kimi --wire` and checks each reply has the
// documented shape: the result's fields, or the documented error code.
// Then a prompt makes the server send each documented request type, whose
// payloads must have the documented fields, and the documented replies are
// accepted.
func TestWireDocExamples(t *testing.T) {
	examples := docExamples(t)
	ctx := ctxT(t)
	c := wireClient(t, `{"text":["Hello"]}
{"toolCall":{"id":"tc-1","name":"run_shell_command","arguments":"{\"command\":\"ls\"}"}}
{"toolCall":{"id":"tc-2","name":"open_in_ide","arguments":"{\"path\":\"README.md\"}"}}
{"toolCall":{"id":"tc-3","name":"ask_user_question","arguments":"{\"questions\":[{\"question\":\"Which language should I use?\",\"header\":\"Lang\",\"options\":[{\"label\":\"Python\",\"description\":\"\"},{\"label\":\"Rust\",\"description\":\"\"}]}]}"}}
{"text":["Done."]}`)
	replies := map[string][]servertest.Message{}
	requests := map[string]docExample{}
	for _, ex := range examples {
		m := ex.Message
		switch {
		case m.Method == "request":
			var p struct{ Type string }
			_ = json.Unmarshal(m.Params, &p)
			requests[p.Type] = ex
		case m.Method == "" && len(m.ID) > 0:
			replies[string(m.ID)] = append(replies[string(m.ID)], m)
		}
	}
	for _, ex := range examples {
		m := ex.Message
		if m.Method == "" || m.Method == "event" || m.Method == "request" {
			continue
		}
		documented := replies[string(m.ID)]
		if len(documented) == 0 {
			t.Fatalf("%s: no documented reply", ex.Section)
		}
		got, err := c.CallID(ctx, m.ID, m.Method, decode(m.Params))
		if err != nil {
			t.Fatalf("%s: %v", ex.Section, err)
		}
		var fails []string
		for _, want := range documented {
			var diffs []string
			switch {
			case want.Error != nil && got.Error == nil:
				diffs = []string{"want an error, got a result"}
			case want.Error != nil && got.Error.Code != want.Error.Code:
				diffs = []string{fmt.Sprintf("want error %d, got %d %s", want.Error.Code, got.Error.Code, got.Error.Message)}
			case want.Error == nil && got.Error != nil:
				diffs = []string{fmt.Sprintf("want a result, got error %d %s", got.Error.Code, got.Error.Message)}
			case want.Error == nil:
				diffs = shape("result", decode(want.Result), decode(got.Result))
			}
			if len(diffs) == 0 {
				fails = nil
				break
			}
			fails = append(fails, strings.Join(diffs, "; "))
		}
		if fails != nil {
			t.Errorf("%s %s: no documented reply matches: %v", ex.Section, m.Method, fails)
		}
	}

	// The server's requests, answered with the documented replies.
	var mu sync.Mutex
	seen := map[string]bool{}
	c.Handle("request", func(params json.RawMessage) (any, error) {
		var p struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		}
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		seen[p.Type] = true
		mu.Unlock()
		doc, ok := requests[p.Type]
		if !ok {
			t.Errorf("undocumented request %s", p.Type)
			return nil, nil
		}
		if diffs := shape("params", decode(doc.Message.Params), decode(params)); len(diffs) > 0 {
			t.Errorf("%s: %v", p.Type, diffs)
		}
		for _, r := range replies[string(doc.Message.ID)] {
			if r.Result != nil {
				return decode(r.Result), nil
			}
		}
		return nil, nil
	})
	// The examples turned plan mode on, which refuses commands unasked.
	if _, err := c.CallID(ctx, json.RawMessage(`"plan-off"`), "set_plan_mode", map[string]any{"enabled": false}); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	got, err := c.CallID(ctx, json.RawMessage(`"tools"`), "prompt", map[string]any{"user_input": "use the tools"})
	if err != nil || got.Error != nil {
		t.Fatalf("prompt: %v %+v", err, got)
	}
	_ = json.Unmarshal(got.Result, &out)
	if out["status"] != "finished" {
		t.Errorf("prompt result %v", out)
	}
	for typ := range requests {
		if !seen[typ] {
			t.Errorf("the server never sent a %s", typ)
		}
	}
}

// A line just under kimi-cli's 100 MB limit is read; one over it is
// answered -32600 (kimi-cli fails on it) and skipped, and the connection
// still answers.
func TestWireLineLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	ctx := ctxT(t)
	c := wireClient(t, "")
	for _, tc := range []struct {
		size int
		code int64
	}{{100<<20 - 200, -32000}, {100<<20 + 1, -32600}} {
		head := `{"jsonrpc":"2.0","id":"big","method":"steer","params":{"user_input":"`
		tail := `"}}`
		pad := tc.size - len(head) - len(tail)
		w := c.Writer()
		fmt.Fprint(w, head)
		chunk := strings.Repeat("x", 1<<20)
		for pad > 0 {
			n := min(pad, len(chunk))
			fmt.Fprint(w, chunk[:n])
			pad -= n
		}
		fmt.Fprint(w, tail+"\n")
		m, err := c.WaitOrphan(ctx)
		if err != nil || m.Error == nil || m.Error.Code != tc.code || string(m.ID) != `"big"` {
			t.Fatalf("a %d-byte line: %+v %v", tc.size, m, err)
		}
	}
	got, err := c.CallID(ctx, json.RawMessage(`"after"`), "cancel", nil)
	if err != nil || got.Error == nil || got.Error.Code != -32000 {
		t.Fatalf("after the long lines: %+v %v", got, err)
	}
}

// cancel twice while a turn runs: both are accepted, the prompt answers
// cancelled once.
func TestWireCancelTwice(t *testing.T) {
	ctx := ctxT(t)
	c := wireClient(t, `{"stall":true}`)
	id, done := json.RawMessage(`"p"`), make(chan *servertest.Message, 1)
	go func() {
		m, _ := c.CallID(ctx, id, "prompt", map[string]any{"user_input": "long"})
		done <- m
	}()
	if _, err := c.WaitNotificationFunc(ctx, "event", func(m *servertest.Message) bool {
		return strings.Contains(string(m.Params), "working...")
	}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"k1"`, `"k2"`} {
		got, err := c.CallID(ctx, json.RawMessage(k), "cancel", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Error != nil && got.Error.Code != -32000 {
			t.Fatalf("cancel %s: %+v", k, got.Error)
		}
	}
	m := <-done
	if m == nil || !strings.Contains(string(m.Result), `"cancelled"`) {
		t.Fatalf("prompt: %+v", m)
	}
}
