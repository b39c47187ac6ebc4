package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server/servertest"
)

// fakeModel is a loopback OpenAI-compatible server; each request gets the
// next scripted reply (the last repeats) and its body is kept.
type fakeModel struct {
	*httptest.Server
	mu      sync.Mutex
	replies []func(http.ResponseWriter, *http.Request)
	bodies  []string
}

func newFakeModel(t *testing.T, replies ...func(http.ResponseWriter, *http.Request)) *fakeModel {
	f := &fakeModel{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, string(body))
		h := f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func chunk(w io.Writer, delta string) {
	fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":%s,\"index\":0}]}\n\n", delta)
}

func say(text string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, word := range strings.SplitAfter(text, " ") {
			b, _ := json.Marshal(map[string]string{"content": word})
			chunk(w, string(b))
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

func callTool(id, name, args string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		chunk(w, fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]}`, id, name, args))
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

func hang(w http.ResponseWriter, r *http.Request) {
	chunk(w, `{"content":"Looking"}`)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// kwardProcessEnv isolates the child's config and data and points its
// provider at model.
func kwardProcessEnv(t *testing.T, model string) string {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("KAST_PROVIDER", "openai")
	t.Setenv("KAST_MODEL", "fake-model")
	t.Setenv("KAST_BASE_URL", model)
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789")
	return dir
}

type kwardCaps struct {
	ProtocolVersion int `json:"protocolVersion"`
	Capabilities    struct {
		Sessions struct {
			Methods []string `json:"methods"`
		} `json:"sessions"`
		Events struct {
			Notification  string `json:"notification"`
			AssistantText string `json:"assistantText"`
		} `json:"events"`
	} `json:"capabilities"`
}

type wireEvent struct {
	Sequence int64          `json:"sequence"`
	TurnID   string         `json:"turnId"`
	Type     string         `json:"type"`
	Payload  map[string]any `json:"payload"`
}

// follow reads notification until the turn's terminal event, or until stop
// says so.
func follow(t *testing.T, c *servertest.Client, notification, turnID string, stop func(wireEvent) bool) []wireEvent {
	t.Helper()
	ctx := testCtx(t)
	var evs []wireEvent
	for {
		m, err := c.WaitNotification(ctx, notification)
		if err != nil {
			t.Fatalf("following turn %s after %d events: %v", turnID, len(evs), err)
		}
		var ev wireEvent
		json.Unmarshal(m.Params, &ev)
		if ev.TurnID != turnID {
			continue
		}
		evs = append(evs, ev)
		if ev.Type == "turnFinished" || (stop != nil && stop(ev)) {
			return evs
		}
	}
}

// TestKwardRPCLikeTauren drives `kast kward rpc` as the Tauren UI does:
// method and notification names come from the capabilities.
func TestKwardRPCLikeTauren(t *testing.T) {
	model := newFakeModel(t, say("Hello from the fake model."))
	kwardProcessEnv(t, model.URL)
	c, cmd := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	ctx := testCtx(t)
	var caps kwardCaps
	if err := c.Call(ctx, "initialize", map[string]any{}, &caps); err != nil {
		t.Fatal(err)
	}
	notification, deltaType := caps.Capabilities.Events.Notification, caps.Capabilities.Events.AssistantText
	create := ""
	for _, m := range caps.Capabilities.Sessions.Methods {
		if strings.HasSuffix(m, "/create") {
			create = m
		}
	}
	if caps.ProtocolVersion != 1 || notification == "" || create == "" {
		t.Fatalf("capabilities %+v", caps)
	}
	var s struct{ ID, Path string }
	if err := c.Call(ctx, create, map[string]any{"workspaceRoot": t.TempDir()}, &s); err != nil {
		t.Fatal(err)
	}
	var turn struct{ ID, Status string }
	if err := c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "say hello"}, &turn); err != nil {
		t.Fatal(err)
	}
	evs := follow(t, c, notification, turn.ID, nil)
	var text strings.Builder
	for i, ev := range evs {
		if ev.Sequence != int64(i+1) {
			t.Fatalf("sequence %d at %d", ev.Sequence, i)
		}
		if ev.Type == deltaType {
			text.WriteString(ev.Payload["delta"].(string))
		}
	}
	if text.String() != "Hello from the fake model." || evs[len(evs)-1].Payload["status"] != "completed" {
		t.Fatalf("text %q, last %+v", text.String(), evs[len(evs)-1])
	}
	var bye struct{ OK bool }
	if err := c.Call(ctx, "shutdown", nil, &bye); err != nil || !bye.OK {
		t.Fatalf("shutdown: %+v %v", bye, err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit code %d after shutdown", code)
	}
}

// TestKwardSIGKILLMidTurn kills kast while a turn streams, after a tool ran:
// the session file must load and resume in a new process.
func TestKwardSIGKILLMidTurn(t *testing.T) {
	model := newFakeModel(t, callTool("call_ls", "list_directory", `{"path":"."}`), hang)
	kwardProcessEnv(t, model.URL)
	workspace := t.TempDir()
	c, cmd := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	ctx := testCtx(t)
	var s struct{ ID, Path string }
	if err := c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace}, &s); err != nil {
		t.Fatal(err)
	}
	var turn struct{ ID string }
	c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "list the files"}, &turn)
	follow(t, c, "turn/event", turn.ID, func(ev wireEvent) bool { return ev.Type == "assistantDelta" })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	ld, err := agent.Load(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range ld.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool" || ld.Messages[2].ToolCallID != "call_ls" || ld.Header.ID == "" {
		t.Fatalf("after SIGKILL the session holds %v (header %+v)", roles, ld.Header)
	}

	// A new process resumes it and the conversation continues.
	model.mu.Lock()
	model.replies = []func(http.ResponseWriter, *http.Request){say("Resumed.")}
	model.mu.Unlock()
	c2, _ := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	var resumed struct{ ID string }
	if err := c2.Call(ctx, "sessions/resume", map[string]any{"path": s.Path}, &resumed); err != nil {
		t.Fatal(err)
	}
	c2.Call(ctx, "turns/start", map[string]any{"sessionId": resumed.ID, "input": "go on"}, &turn)
	evs := follow(t, c2, "turn/event", turn.ID, nil)
	if evs[len(evs)-1].Payload["status"] != "completed" {
		t.Fatalf("resumed turn: %+v", evs[len(evs)-1])
	}
	model.mu.Lock()
	last := model.bodies[len(model.bodies)-1]
	model.mu.Unlock()
	if !strings.Contains(last, `"tool_call_id":"call_ls"`) || !strings.Contains(last, "list the files") {
		t.Fatalf("the resumed request lacks the earlier conversation: %s", last)
	}
}
