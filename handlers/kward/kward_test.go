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
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// chatServer is a loopback OpenAI-compatible endpoint that plays one scripted
// handler per request, in order (the last repeats).
func chatServer(t *testing.T, replies ...func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := replies[0]
		if len(replies) > 1 {
			replies = replies[1:]
		}
		mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
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

func TestKwardInitialize(t *testing.T) {
	kwardEnv(t, "")
	c := kwardClient(t)
	var res struct {
		ProtocolVersion int            `json:"protocolVersion"`
		ServerName      string         `json:"serverName"`
		Capabilities    map[string]any `json:"capabilities"`
	}
	if err := c.Call(ctxT(t), "initialize", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	turns := res.Capabilities["turns"].(map[string]any)
	if res.ProtocolVersion != 1 || turns["eventReplay"].(map[string]any)["limit"].(float64) != 1000 {
		t.Fatalf("initialize: %+v", res)
	}
	if mcp := res.Capabilities["mcp"].(map[string]any); mcp["supported"] != false || mcp["reason"] == "" {
		t.Fatalf("unsupported capability lacks a reason: %v", mcp)
	}

	// On the LSP connection the same result is an experimental capability
	// and kward/initialize.
	lsp, _ := servertest.Pipe(t, server.New(handlers.LSP(handlers.NewProcess(host.New(host.Options{}))).Options("test", nil)), servertest.Header)
	init, err := lsp.Initialize(ctxT(t), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var advertised map[string]any
	json.Unmarshal(init.Capabilities.Experimental["kward"], &advertised)
	if advertised["protocolVersion"].(float64) != 1 || advertised["capabilities"] == nil {
		t.Fatalf("experimental.kward = %v", advertised)
	}
	var again map[string]any
	if err := lsp.Call(ctxT(t), "kward/initialize", nil, &again); err != nil || again["serverName"] != "kast" {
		t.Fatalf("kward/initialize: %v %v", again, err)
	}
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

func TestKwardCancelMidStream(t *testing.T) {
	api := chatServer(t, stall, streamText("after cancel"))
	kwardEnv(t, api.URL)
	c := kwardClient(t)
	ctx := ctxT(t)
	var s session
	c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": t.TempDir()}, &s)
	var tr turn
	c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "think hard"}, &tr)
	// Queue a follow-up and cancel it before it runs.
	var queued turn
	c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "then this", "streamingBehavior": "followUp"}, &queued)
	for {
		m, err := c.WaitNotification(ctx, "turn/event")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(m.Params), "assistantDelta") {
			break
		}
	}
	var canceledQueued turn
	c.Call(ctx, "turns/cancel", map[string]any{"turnId": queued.ID}, &canceledQueued)
	if canceledQueued.Status != "canceled" {
		t.Fatalf("queued cancel: %+v", canceledQueued)
	}
	var canceled turn
	if err := c.Call(ctx, "turns/cancel", map[string]any{"turnId": tr.ID}, &canceled); err != nil || !canceled.CancelRequested {
		t.Fatalf("cancel: %+v %v", canceled, err)
	}
	var replay struct {
		Turn   turn    `json:"turn"`
		Events []event `json:"events"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for replay.Turn.Status != "canceled" && time.Now().Before(deadline) {
		c.Call(ctx, "turns/events", map[string]any{"turnId": tr.ID}, &replay)
		time.Sleep(5 * time.Millisecond)
	}
	if got := types(replay.Events); got != "turnQueued,turnStarted,assistantDelta,turnCancelRequested,turnFinished" {
		t.Fatalf("cancelled turn events %s", got)
	}
	c.Call(ctx, "turns/events", map[string]any{"turnId": queued.ID}, &replay)
	if got := types(replay.Events); got != "turnQueued,turnCancelRequested,turnFinished" {
		t.Fatalf("cancelled queued turn events %s", got)
	}
	// Nothing of the cancelled turn arrives after its turnFinished.
	time.Sleep(50 * time.Millisecond)
	finished := false
	for _, m := range c.Notifications("turn/event") {
		var ev event
		json.Unmarshal(m.Params, &ev)
		if ev.TurnID != tr.ID {
			continue
		}
		if finished {
			t.Fatalf("event after turnFinished: %s", ev.Type)
		}
		finished = ev.Type == "turnFinished"
	}
	// The session goes on.
	var next turn
	c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "next"}, &next)
	if evs := followTurn(t, c, next.ID); evs[len(evs)-1].Payload["status"] != "completed" {
		t.Fatalf("next turn %s", types(evs))
	}
}

func TestKwardTurnWithoutProvider(t *testing.T) {
	kwardEnv(t, "")
	c := kwardClient(t)
	ctx := ctxT(t)
	var s session
	c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": t.TempDir()}, &s)
	var tr turn
	if err := c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "hello"}, &tr); err != nil {
		t.Fatal(err)
	}
	evs := followTurn(t, c, tr.ID)
	if got := types(evs); got != "turnQueued,turnStarted,error,turnFinished" {
		t.Fatalf("events %s", got)
	}
	msg, _ := evs[2].Payload["message"].(string)
	if evs[3].Payload["status"] != "failed" || !strings.Contains(msg, "KAST_PROVIDER") || evs[2].Payload["fatal"] != false {
		t.Fatalf("error payload %v", evs[2].Payload)
	}
}

func TestKwardInvalidParams(t *testing.T) {
	api := chatServer(t, stall)
	kwardEnv(t, api.URL)
	c := kwardClient(t)
	ctx := ctxT(t)
	var s session
	c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": t.TempDir()}, &s)
	png := "iVBORw0KGgo="
	for name, params := range map[string]map[string]any{
		"unknown session": {"sessionId": "nope", "input": "x"},
		"empty input":     {"sessionId": s.ID, "input": " "},
		"bad behavior":    {"sessionId": s.ID, "input": "x", "streamingBehavior": "later"},
		"steer idle":      {"sessionId": s.ID, "input": "x", "streamingBehavior": "steer"},
		"mime":            {"sessionId": s.ID, "input": "x", "attachments": []map[string]any{{"type": "image", "data": png, "mimeType": "image/bmp"}}},
		"data prefix":     {"sessionId": s.ID, "input": "x", "attachments": []map[string]any{{"type": "image", "data": "data:image/png;base64," + png, "mimeType": "image/png"}}},
		"not base64":      {"sessionId": s.ID, "input": "x", "attachments": []map[string]any{{"type": "image", "data": "%%%", "mimeType": "image/png"}}},
		"too large":       {"sessionId": s.ID, "input": "x", "attachments": []map[string]any{{"type": "image", "data": png, "mimeType": "image/png", "sizeBytes": 11 << 20}}},
	} {
		err := c.Call(ctx, "turns/start", params, nil)
		if rpcErr, ok := err.(*servertest.RPCError); !ok || rpcErr.Code != -32602 {
			t.Errorf("%s: want -32602, got %v", name, err)
		}
	}
	// A valid image is accepted and stored with the user message.
	var tr turn
	if err := c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "look",
		"attachments": []map[string]any{{"type": "image", "data": png, "mimeType": "image/png", "name": "a.png"}}}, &tr); err != nil {
		t.Fatal(err)
	}
	// Steering a running turn is refused: no provider steers natively yet.
	err := c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "x", "streamingBehavior": "steer"}, nil)
	if rpcErr, ok := err.(*servertest.RPCError); !ok || rpcErr.Code != -32602 {
		t.Fatalf("steer while running: %v", err)
	}
	c.Call(ctx, "turns/cancel", map[string]any{"turnId": tr.ID}, nil)
	if err := c.Call(ctx, "turns/status", map[string]any{"turnId": "nope"}, nil); err == nil {
		t.Fatal("unknown turn accepted")
	}
	var ws map[string]any
	if err := c.Call(ctx, "workspace/info", map[string]any{"workspaceRoot": "/definitely/not/here"}, &ws); err == nil {
		t.Fatal("missing workspace accepted")
	}
}

// TestKwardCleanupSparesLiveSessions: listing, creating and closing other
// sessions never deletes the file of a live (even empty) RPC session.
func TestKwardCleanupSparesLiveSessions(t *testing.T) {
	kwardEnv(t, "")
	c := kwardClient(t)
	ctx := ctxT(t)
	workspace := t.TempDir()
	var live, other session
	c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace}, &live)
	c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace}, &other)
	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	c.Call(ctx, "sessions/list", map[string]any{"workspaceRoot": workspace}, &list)
	if len(list.Sessions) != 2 {
		t.Fatalf("list %v", list.Sessions)
	}
	c.Call(ctx, "sessions/close", map[string]any{"sessionId": other.ID}, nil)
	if _, err := os.Stat(other.Path); !os.IsNotExist(err) {
		t.Fatalf("a closed empty unnamed session was kept: %v", err)
	}
	if _, err := os.Stat(live.Path); err != nil {
		t.Fatalf("the live session's file was deleted: %v", err)
	}
}
