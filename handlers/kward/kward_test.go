package kward_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/agenttest"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// chatServer is a loopback OpenAI-compatible endpoint that plays one scripted
// handler per request, in order (the last repeats).
func chatServer(t *testing.T, replies ...func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	return agenttest.Sequence(t, replies...)
}

// streamText answers with a chat-completions stream of deltas.
func streamText(deltas ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range deltas {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q},\"index\":0}]}\n\n", d)
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2,\"total_tokens\":6}}\n\ndata: [DONE]\n\n")
	}
}

// stall streams one delta, then waits until the client goes away.
func stall(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"thinking...\"},\"index\":0}]}\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// kwardEnv points kast's config, data and provider at temporary places.
func kwardEnv(t testing.TB, baseURL string) (dataDir string) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	for _, k := range []string{"KAST_PROVIDER", "KAST_MODEL", "KAST_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "MOONSHOT_API_KEY"} {
		t.Setenv(k, "")
	}
	if baseURL != "" {
		t.Setenv("KAST_PROVIDER", "openai")
		t.Setenv("KAST_BASE_URL", baseURL)
		t.Setenv("KAST_MODEL", "test-model")
		t.Setenv("OPENAI_API_KEY", "sk-test-key-123456")
	}
	return filepath.Join(dir, "data")
}

// kwardClient serves the Kward profile in-process.
func kwardClient(t *testing.T) *servertest.Client {
	entry := handlers.KwardRPC(handlers.NewProcess(host.New(host.Options{})))
	c, _ := servertest.Pipe(t, server.New(entry.Options("test", nil)), servertest.Header)
	return c
}

// lspClient serves `kast lsp` in-process: the Kward family on the LSP
// connection.
func lspClient(t *testing.T) *servertest.Client {
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	entry := handlers.LSP(handlers.NewProcess(h))
	c, _ := servertest.Pipe(t, server.New(entry.Options("test", nil)), servertest.Header)
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type session struct {
	ID           string `json:"id"`
	PersistentID string `json:"persistentId"`
	Path         string `json:"path"`
	Workspace    string `json:"workspaceRoot"`
	Name         string `json:"name"`
	ParentID     string `json:"parentId"`
	ParentPath   string `json:"parentPath"`
}

type turn struct {
	ID              string `json:"id"`
	SessionID       string `json:"sessionId"`
	Status          string `json:"status"`
	CancelRequested bool   `json:"cancelRequested"`
	Error           *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

type event struct {
	Sequence  int64          `json:"sequence"`
	Timestamp string         `json:"timestamp"`
	SessionID string         `json:"sessionId"`
	TurnID    string         `json:"turnId"`
	Type      string         `json:"type"`
	Payload   map[string]any `json:"payload"`
}

// followTurn collects the turn/event notifications of turnID up to turnFinished.
func followTurn(t *testing.T, c *servertest.Client, turnID string) []event {
	t.Helper()
	ctx := ctxT(t)
	var out []event
	for {
		m, err := c.WaitNotification(ctx, "turn/event")
		if err != nil {
			t.Fatalf("waiting for turn events (have %d): %v", len(out), err)
		}
		var ev event
		if err := json.Unmarshal(m.Params, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.TurnID != turnID {
			continue
		}
		out = append(out, ev)
		if ev.Type == "turnFinished" {
			return out
		}
	}
}

func types(evs []event) string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return strings.Join(out, ",")
}

func TestKwardSessionAndTurn(t *testing.T) {
	api := chatServer(t, streamText("Hello ", "there."), streamText("Second."))
	dataDir := kwardEnv(t, api.URL)
	c := kwardClient(t)
	ctx := ctxT(t)
	workspace := t.TempDir()
	var s session
	if err := c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace, "name": "first"}, &s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Path, dataDir) || s.Name != "first" || s.ID == s.PersistentID {
		t.Fatalf("session %+v", s)
	}
	if fi, _ := os.Stat(s.Path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file mode %v", fi.Mode().Perm())
	}

	var tr turn
	if err := c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "hi"}, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Status != "queued" && tr.Status != "running" {
		t.Fatalf("turn %+v", tr)
	}
	evs := followTurn(t, c, tr.ID)
	if got := types(evs); got != "turnQueued,turnStarted,assistantDelta,assistantDelta,assistantMessage,answer,turnFinished" {
		t.Fatalf("events %s", got)
	}
	for i, ev := range evs {
		if ev.Sequence != int64(i+1) || ev.SessionID != s.ID {
			t.Fatalf("event %d: %+v", i, ev)
		}
	}
	if evs[6].Payload["status"] != "completed" || evs[5].Payload["content"] != "Hello there." {
		t.Fatalf("finish %v answer %v", evs[6].Payload, evs[5].Payload)
	}
	msg := evs[4].Payload["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["content"] != "Hello there." || msg["usage"].(map[string]any)["total_tokens"].(float64) != 6 {
		t.Fatalf("assistantMessage %v", msg)
	}

	// Replay after a sequence number.
	var replay struct {
		Turn   turn    `json:"turn"`
		Events []event `json:"events"`
	}
	if err := c.Call(ctx, "turns/events", map[string]any{"turnId": tr.ID, "afterSequence": 4}, &replay); err != nil {
		t.Fatal(err)
	}
	if len(replay.Events) != 3 || replay.Events[0].Sequence != 5 || replay.Turn.Status != "completed" {
		t.Fatalf("replay %+v", replay)
	}

	// The session file holds the header, the name and both messages.
	data, _ := os.ReadFile(s.Path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"type":"session"`) || !strings.Contains(lines[0], `"provider":"openai"`) ||
		!strings.Contains(lines[2], `"content":"hi"`) || !strings.Contains(lines[3], `"content":"Hello there."`) {
		t.Fatalf("session file:\n%s", data)
	}

	var second turn
	c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "again", "streamingBehavior": "followUp"}, &second)
	followTurn(t, c, second.ID)

	var transcript struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := c.Call(ctx, "sessions/transcript", map[string]any{"sessionId": s.ID}, &transcript); err != nil {
		t.Fatal(err)
	}
	if len(transcript.Messages) != 4 || transcript.Messages[1]["content"].([]any)[0].(map[string]any)["text"] != "Hello there." {
		t.Fatalf("transcript %v", transcript.Messages)
	}
	var stats map[string]any
	c.Call(ctx, "runtime/stats", map[string]any{"sessionId": s.ID}, &stats)
	if stats["userMessages"].(float64) != 2 || stats["totalMessages"].(float64) != 4 || stats["tokens"].(map[string]any)["total"].(float64) != 12 {
		t.Fatalf("stats %v", stats)
	}
	var state map[string]any
	c.Call(ctx, "runtime/state", map[string]any{"sessionId": s.ID}, &state)
	if state["rpcSessionId"] != s.ID || state["persistentSessionId"] != s.PersistentID || state["defaultModel"] != "openai/test-model" {
		t.Fatalf("state %v", state)
	}

	// Fork before the second user message: the fork holds the first exchange.
	var fm struct {
		Messages []struct{ EntryID, Text string } `json:"messages"`
	}
	c.Call(ctx, "sessions/forkMessages", map[string]any{"sessionId": s.ID}, &fm)
	if len(fm.Messages) != 2 || fm.Messages[1].Text != "again" {
		t.Fatalf("forkMessages %+v", fm)
	}
	var fork struct {
		Session session `json:"session"`
		Text    string  `json:"text"`
	}
	if err := c.Call(ctx, "sessions/fork", map[string]any{"sessionId": s.ID, "entryId": fm.Messages[1].EntryID}, &fork); err != nil {
		t.Fatal(err)
	}
	ld, _ := agent.Load(fork.Session.Path)
	if fork.Text != "again" || len(ld.Messages) != 2 || fork.Session.ParentPath != s.Path || ld.Header.ParentID != s.PersistentID {
		t.Fatalf("fork %+v, %d messages", fork, len(ld.Messages))
	}
	var clone session
	c.Call(ctx, "sessions/clone", map[string]any{"sessionId": s.ID}, &clone)
	if ld, _ := agent.Load(clone.Path); len(ld.Messages) != 4 || clone.ParentID != s.PersistentID {
		t.Fatalf("clone %+v", clone)
	}

	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	c.Call(ctx, "sessions/list", map[string]any{"workspaceRoot": workspace}, &list)
	if len(list.Sessions) != 3 || list.Sessions[0]["path"] != s.Path || list.Sessions[1]["depth"].(float64) != 1 {
		t.Fatalf("list %v", list.Sessions)
	}

	var export struct{ Path, Format string }
	if err := c.Call(ctx, "sessions/export", map[string]any{"sessionId": s.ID, "path": "out.html", "format": "html"}, &export); err != nil {
		t.Fatal(err)
	}
	if html, _ := os.ReadFile(export.Path); export.Format != "html" || !strings.Contains(string(html), "<pre># first") {
		t.Fatalf("export %+v", export)
	}
	err := c.Call(ctx, "sessions/export", map[string]any{"sessionId": s.ID, "path": "/etc/kast-export.md"}, nil)
	if rpcErr, ok := err.(*servertest.RPCError); !ok || rpcErr.Code != -32602 || rpcErr.DataCode() != "EXPORT_PATH_OUTSIDE" {
		t.Fatalf("export outside the workspace: %v", err)
	}

	var deleted struct {
		Deleted bool   `json:"deleted"`
		Path    string `json:"path"`
	}
	c.Call(ctx, "sessions/delete", map[string]any{"sessionId": clone.ID}, &deleted)
	if _, err := os.Stat(clone.Path); !deleted.Deleted || !os.IsNotExist(err) {
		t.Fatalf("delete %+v %v", deleted, err)
	}
	if err := c.Call(ctx, "sessions/close", map[string]any{"sessionId": s.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path); err != nil {
		t.Fatalf("closing a session with messages removed its file: %v", err)
	}
	err = c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "x"}, nil)
	if rpcErr, ok := err.(*servertest.RPCError); !ok || rpcErr.DataCode() != "SESSION_NOT_FOUND" {
		t.Fatalf("closed session: %v", err)
	}
}
