package kward_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestKwardSteerRunningTurn steers a turn while its first model request is
// in flight, with streamingBehavior omitted: the reply is the running turn,
// the input is injected after the tool result as turnSteered, and the same
// turn finishes with the steered input answered and kept in the session.
func TestKwardSteerRunningTurn(t *testing.T) {
	asked, proceed := make(chan struct{}), make(chan struct{})
	api := newRecordingServer(t,
		func(w http.ResponseWriter, r *http.Request) {
			close(asked)
			<-proceed
			streamToolCall("call_notes", "read_file", `{"path":"notes.txt"}`)(w, r)
		},
		streamText("Read the notes ", "and checked go.mod."),
	)
	kwardEnv(t, api.URL)
	c := kwardClient(t)
	ctx := ctxT(t)

	var init struct {
		Capabilities struct {
			Turns struct {
				BusyInput map[string]any `json:"busyInput"`
			} `json:"turns"`
			Events struct {
				Steering map[string]any `json:"steering"`
			} `json:"events"`
		} `json:"capabilities"`
	}
	mustCall(t, c, "initialize", map[string]any{}, &init)
	if bi := init.Capabilities.Turns.BusyInput; bi["steer"] != "native" || bi["defaultWhenBusy"] != "steer" {
		t.Fatalf("busyInput %v", bi)
	}
	if st := init.Capabilities.Events.Steering; st["supported"] != true || st["event"] != "turnSteered" || st["mode"] != "native" {
		t.Fatalf("events.steering %v", st)
	}

	workspace := t.TempDir()
	os.WriteFile(filepath.Join(workspace, "notes.txt"), []byte("check go.mod next\n"), 0o644)
	s := newSession(t, c, workspace)
	var running turn
	mustCall(t, c, "turns/start", map[string]any{"sessionId": s.ID, "input": "read my notes"}, &running)
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the model was never asked")
	}
	var steered turn
	mustCall(t, c, "turns/start", map[string]any{"sessionId": s.ID, "input": "also check go.mod"}, &steered)
	if steered.ID != running.ID || steered.Status != "running" {
		t.Fatalf("steering answered %+v; want the running turn %s", steered, running.ID)
	}
	var state map[string]any
	mustCall(t, c, "runtime/state", map[string]any{"sessionId": s.ID}, &state)
	if state["pendingMessageCount"] != float64(1) || state["steeringMode"] != "in-flight" {
		t.Fatalf("runtime/state while the steering waits: %v", state)
	}
	close(proceed)

	evs := followTurn(t, c, running.ID)
	want := "turnQueued,turnStarted,assistantMessage,toolCall,toolResult,turnSteered,assistantDelta,assistantDelta,assistantMessage,answer,turnFinished"
	if got := types(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if p := evs[5].Payload; p["input"] != "also check go.mod" || p["createdAt"] == nil {
		t.Fatalf("turnSteered %v", p)
	}
	if evs[9].Payload["content"] != "Read the notes and checked go.mod." || evs[10].Payload["status"] != "completed" {
		t.Fatalf("answer %v, finished %v", evs[9].Payload, evs[10].Payload)
	}

	// The model's second request has the steered input after the result.
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(api.body(1)), &body); err != nil {
		t.Fatal(err)
	}
	n := len(body.Messages)
	if n < 2 || body.Messages[n-2].Role != "tool" || body.Messages[n-2].ToolCallID != "call_notes" ||
		body.Messages[n-1].Role != "user" || body.Messages[n-1].Content != "also check go.mod" {
		t.Fatalf("second request messages %+v", body.Messages)
	}

	// A reload of the session shows the steered input where the model saw it.
	var transcript struct {
		Messages []map[string]any `json:"messages"`
	}
	mustCall(t, c, "sessions/transcript", map[string]any{"sessionId": s.ID}, &transcript)
	var roles []string
	for _, m := range transcript.Messages {
		roles = append(roles, m["role"].(string))
	}
	if len(roles) != 5 || roles[2] != "toolResult" || roles[3] != "user" || roles[4] != "assistant" {
		t.Fatalf("transcript roles %v", roles)
	}
	if text := transcript.Messages[3]["content"].([]any)[0].(map[string]any)["text"]; text != "also check go.mod" {
		t.Fatalf("steered message in the transcript: %v", transcript.Messages[3])
	}
}
