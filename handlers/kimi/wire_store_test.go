package kimi_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// bodyModel answers every request with text and keeps the request bodies.
func bodyModel(t *testing.T, text string) (url string, bodies func() []string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"choices":[{"delta":{"content":"`+text+`"},"index":0}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

func wireServer(t *testing.T, opts kimi.WireOptions) (*servertest.Client, *server.Conn) {
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	entry := handlers.KimiWire(handlers.NewProcess(h), opts)
	return servertest.Pipe(t, server.New(entry.Options("test", nil)), servertest.NDJSON)
}

func call(t *testing.T, c *servertest.Client, id, method string, params any) map[string]any {
	t.Helper()
	m, err := c.CallID(ctxT(t), json.RawMessage(`"`+id+`"`), method, params)
	if err != nil || m.Error != nil {
		t.Fatalf("%s: %v %+v", method, err, m)
	}
	var out map[string]any
	_ = json.Unmarshal(m.Result, &out)
	return out
}

// A session is stored as kimi-cli stores it and resumed by --session and
// --continue: the model sees the earlier conversation and replay re-sends
// the recorded events.
func TestWireSessionResume(t *testing.T) {
	url, bodies := bodyModel(t, "Noted.")
	data := testEnv(t, url)
	work := t.TempDir()
	c, conn := wireServer(t, kimi.WireOptions{WorkDir: work, SessionID: "s1"})
	call(t, c, "p1", "prompt", map[string]any{"user_input": "remember the word walnut"})
	call(t, c, "m1", "set_plan_mode", map[string]any{"enabled": true})
	_ = c.Close()
	<-conn.Done()

	real, _ := filepath.EvalSymlinks(work)
	sum := md5.Sum([]byte(real))
	dir := filepath.Join(data, "kast", "kimi", "sessions", hex.EncodeToString(sum[:]), "s1")
	wire, err := os.ReadFile(filepath.Join(dir, "wire.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(wire)), "\n")
	if lines[0] != `{"type":"metadata","protocol_version":"1.10"}` || !strings.Contains(lines[1], `"timestamp":`) {
		t.Fatalf("wire.jsonl starts %q", lines[:2])
	}
	ctxFile, _ := os.ReadFile(filepath.Join(dir, "context.jsonl"))
	if !strings.Contains(string(ctxFile), `"content":"remember the word walnut","role":"user"`) {
		t.Fatalf("context.jsonl: %s", ctxFile)
	}
	var state map[string]any
	raw, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if json.Unmarshal(raw, &state) != nil || state["plan_mode"] != true {
		t.Fatalf("state.json: %s", raw)
	}

	// Records a newer writer added, of types this one does not know, are
	// skipped when the session is restored.
	kast, _ := state["kast_session"].(string)
	f, err := os.OpenFile(kast, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("the engine's session file %q: %v", kast, err)
	}
	_, _ = f.WriteString(`{"type":"micro_compaction.apply","id":"x1","parentId":null,"payload":{}}` + "\n")
	f.Close()

	// --continue finds it again; the model's next request carries the
	// earlier conversation, and plan mode is remembered.
	c2, _ := wireServer(t, kimi.WireOptions{WorkDir: work, Continue: true})
	replayed := call(t, c2, "r1", "replay", nil)
	if replayed["events"].(float64) < 5 {
		t.Fatalf("replay %v", replayed)
	}
	call(t, c2, "p2", "prompt", map[string]any{"user_input": "which word?"})
	got := bodies()
	if len(got) != 2 || !strings.Contains(got[1], "walnut") {
		t.Fatalf("the resumed request lacks the history: %q", got[len(got)-1])
	}
}

// Replay skips lines it cannot read and records of types it does not know
// (a newer kimi's), and never resurrects an approval whose resolution was
// not recorded (a crash or cancel before it).
func TestWireReplaySkipsUnresolvedAndUnknown(t *testing.T) {
	data := testEnv(t, "")
	work := t.TempDir()
	real, _ := filepath.EvalSymlinks(work)
	sum := md5.Sum([]byte(real))
	dir := filepath.Join(data, "kast", "kimi", "sessions", hex.EncodeToString(sum[:]), "old")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	wire := `{"type":"metadata","protocol_version":"1.10"}
{"timestamp":1.5,"message":{"type":"TurnBegin","payload":{"user_input":"x"}}}
not json at all
{"timestamp":1.6,"message":{"type":"ApprovalRequest","payload":{"id":"a1","tool_call_id":"c1","sender":"Shell","action":"run","description":"d","display":[]}}}
{"timestamp":1.7,"message":{"type":"ApprovalResponse","payload":{"request_id":"a1","response":"approve"}}}
{"timestamp":1.8,"message":{"type":"ApprovalRequest","payload":{"id":"a2","tool_call_id":"c2","sender":"Shell","action":"run","description":"d","display":[]}}}
{"timestamp":1.9,"message":{"type":"micro_compaction.apply","payload":{}}}
`
	if err := os.WriteFile(filepath.Join(dir, "wire.jsonl"), []byte(wire), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := wireServer(t, kimi.WireOptions{WorkDir: work, SessionID: "old"})
	got := call(t, c, "r1", "replay", nil)
	if got["events"] != float64(2) || got["requests"] != float64(1) {
		t.Fatalf("replay %v: want 2 events (the unknown type is skipped, as kimi-cli skips it) and 1 request", got)
	}
	for _, m := range c.Notifications("event") {
		if strings.Contains(string(m.Params), "micro_compaction") {
			t.Fatal("a record of an unknown type was replayed")
		}
	}
	// The client records each request as it reads it, before the reply to
	// replay; its handler may still be running, so the test reads the record.
	requests := c.Requests("request")
	if len(requests) != 1 {
		t.Fatalf("%d requests replayed, want 1", len(requests))
	}
	if strings.Contains(string(requests[0].Params), `"a2"`) {
		t.Fatal("the unresolved approval was replayed")
	}
}
