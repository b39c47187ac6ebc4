package kward

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
)

// TestProjectEveryEventType renders each engine event kind as the Kward
// event of the spec and checks its payload fields.
func TestProjectEveryEventType(t *testing.T) {
	call := agent.ToolCall{ID: "c1", Name: "edit_file", Arguments: `{"path":"a.go","edits":[{"old_text":"x","new_text":"y"}]}`}
	result := &agent.ToolResult{Content: "Edited a.go", Diff: "--- a/a.go\n", ChangedFiles: []string{"a.go"}, FirstChangedLine: 3}
	fail := &agent.TurnError{Message: "boom", Code: "PROVIDER_ERROR"}
	cases := []struct {
		ev   agent.Event
		typ  string
		want string // a fragment of the JSON payload
	}{
		{agent.Event{Kind: agent.EventQueued, Status: agent.StatusQueued}, "turnQueued", `"status":"queued"`},
		{agent.Event{Kind: agent.EventSteered, Text: "more", Steered: time.Unix(0, 0)}, "turnSteered", `"input":"more"`},
		{agent.Event{Kind: agent.EventStarted, Status: agent.StatusRunning}, "turnStarted", `"status":"running"`},
		{agent.Event{Kind: agent.EventReasoningDelta, Delta: "hm"}, "reasoningDelta", `"delta":"hm"`},
		{agent.Event{Kind: agent.EventTextDelta, Delta: "hi"}, "assistantDelta", `"delta":"hi"`},
		{agent.Event{Kind: agent.EventMessage, Message: &agent.Message{Role: "assistant", Text: "hi"}}, "assistantMessage", `"message":{"content":"hi","role":"assistant"}`},
		{agent.Event{Kind: agent.EventRetry, Retry: &agent.RetryInfo{Provider: "openai", Model: "m", Attempt: 2, MaxAttempts: 3, Delay: time.Second, Error: "429"}},
			"modelRetry", `"attempt":2,"delaySeconds":1,"error":"429","maxAttempts":3,"model":"m","provider":"openai"`},
		{agent.Event{Kind: agent.EventToolCall, Tool: &agent.ToolEvent{Call: call}}, "toolCall", `"args":{"edits":[{"newText":"y","oldText":"x"}],"path":"a.go"}`},
		{agent.Event{Kind: agent.EventToolResult, Tool: &agent.ToolEvent{Call: call, Result: result}}, "toolResult",
			`"result":{"changedFiles":["a.go"],"content":"Edited a.go","diff":"--- a/a.go\n","firstChangedLine":3,"images":[],"isError":false}`},
		{agent.Event{Kind: agent.EventAnswer, Text: "done"}, "answer", `"content":"done"`},
		{agent.Event{Kind: agent.EventCancelRequested}, "turnCancelRequested", `{}`},
		{agent.Event{Kind: agent.EventError, Err: fail}, "error", `{"code":"PROVIDER_ERROR","fatal":false,"message":"boom"}`},
		{agent.Event{Kind: agent.EventFinished, Status: agent.StatusFailed, Err: fail}, "turnFinished", `"status":"failed"`},
	}
	if len(cases) != len(kwardEventTypes) {
		t.Fatalf("%d cases for %d event types", len(cases), len(kwardEventTypes))
	}
	for _, c := range cases {
		got := projectEvent(c.ev)
		payload, _ := json.Marshal(got.Payload)
		if got.Type != c.typ || !strings.Contains(string(payload), c.want) {
			t.Errorf("%s: type %s payload %s; want %s containing %s", c.ev.Kind, got.Type, payload, c.typ, c.want)
		}
	}
	tool := projectEvent(cases[7].ev).Payload
	if tool["toolName"] != "edit" || tool["toolCallId"] != "c1" || tool["rawToolCall"] == nil {
		t.Fatalf("toolCall payload %v", tool)
	}
}

func TestTranscriptNormalization(t *testing.T) {
	msgs := transcriptMessages([]agent.Message{
		{Role: agent.RoleUser, Text: "run it", Images: []agent.Image{{Data: "aGk=", MimeType: "image/png"}}},
		{Role: agent.RoleAssistant, ReasoningSummary: "plan", Text: "ok",
			ToolCalls: []agent.ToolCall{{ID: "b1", Name: "run_shell_command", Arguments: `{"command":"ls","timeout_seconds":5}`}}},
		{Role: agent.RoleTool, ToolCallID: "b1", Text: "Error: nope"},
	})
	got, _ := json.Marshal(msgs)
	for _, want := range []string{
		`{"content":[{"text":"run it","type":"text"},{"data":"aGk=","mimeType":"image/png","type":"image"}],"role":"user"}`,
		`"content":[{"thinking":"plan","type":"thinking"},{"text":"ok","type":"text"},{"arguments":{"command":"ls","timeoutSeconds":5},"id":"b1","name":"bash","type":"toolCall"}]`,
		`"isError":true,"role":"toolResult","toolCallId":"b1","toolName":"bash"`,
	} {
		if !strings.Contains(string(got), want) {
			t.Fatalf("transcript lacks %s:\n%s", want, got)
		}
	}
}
