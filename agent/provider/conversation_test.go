package provider_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// chatChunks renders a chat-completions SSE stream: text deltas, then one
// tool call whose arguments arrive in two pieces.
func chatChunks(text []string, callID, tool string, args string) []byte {
	var b strings.Builder
	for _, d := range text {
		fmt.Fprintf(&b, "data: {\"choices\":[{\"delta\":{\"content\":%q},\"index\":0}]}\n\n", d)
	}
	if tool != "" {
		half := len(args) / 2
		fmt.Fprintf(&b, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":%q,\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":%q}}]},\"index\":0}]}\n\n", callID, tool, args[:half])
		fmt.Fprintf(&b, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":%q}}]},\"index\":0}]}\n\n", args[half:])
	}
	b.WriteString("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\ndata: [DONE]\n\n")
	return []byte(b.String())
}

// TestScriptedConversation: the model reads a file, edits it and answers,
// through the real chat-completions provider, the real tools and a real
// session file.
func TestScriptedConversation(t *testing.T) {
	workspace := t.TempDir()
	file := filepath.Join(workspace, "greet.go")
	os.WriteFile(file, []byte("package greet\n\nfunc Hello() string { return \"hi\" }\n"), 0o644)
	editArgs, _ := json.Marshal(map[string]any{"path": "greet.go", "edits": []map[string]string{
		{"old_text": `return "hi"`, "new_text": `return "hello"`},
	}})
	api := newFakeAPI(t,
		sse(chatChunks([]string{"Let me look."}, "call_read", "read_file", `{"path":"greet.go"}`)),
		sse(chatChunks(nil, "call_edit", "edit_file", string(editArgs))),
		sse(chatChunks([]string{"Done: ", "Hello now says hello."}, "", "", "")),
	)
	store := &agent.Store{Dir: t.TempDir()}
	log, err := store.Create(agent.Header{Cwd: workspace})
	if err != nil {
		t.Fatal(err)
	}
	var events []agent.Event
	s := agent.NewSession(agent.SessionOptions{
		Workspace: workspace,
		Log:       log,
		Provider:  func() (agent.Provider, error) { return newProvider(t, agent.APIChat, api.URL, "k"), nil },
		Tools:     &tools.Set{},
		Sink:      func(ev agent.Event) { events = append(events, ev) },
	})
	defer s.Close()
	turn, _ := s.Start(agent.Input{Text: "make Hello say hello"}, "")
	<-turn.Done()
	if info := turn.Info(); info.Status != agent.StatusCompleted {
		t.Fatalf("turn %+v", info)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `return "hello"`) {
		t.Fatalf("file not edited:\n%s", data)
	}
	var results []*agent.ToolResult
	for _, ev := range events {
		if ev.Kind == agent.EventToolResult {
			results = append(results, ev.Tool.Result)
		}
	}
	if len(results) != 2 || results[0].IsError || !strings.Contains(results[1].Diff, `+func Hello() string { return "hello" }`) {
		t.Fatalf("tool results %+v", results)
	}
	// The second request carried the file's content as the read result.
	msgs, _ := json.Marshal(api.bodies[1]["messages"])
	if !strings.Contains(string(msgs), `"tool_call_id":"call_read"`) || !strings.Contains(string(msgs), `package greet`) {
		t.Fatalf("second request messages: %s", msgs)
	}
	if answer := events[len(events)-2]; answer.Kind != agent.EventAnswer || answer.Text != "Done: Hello now says hello." {
		t.Fatalf("answer %+v", answer)
	}
	ld, err := agent.Load(log.Path())
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range ld.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant,tool,assistant" {
		t.Fatalf("session roles %v", roles)
	}
	if ld.Messages[1].ToolCalls[0].Arguments != `{"path":"greet.go"}` || ld.Messages[5].Usage.TotalTokens != 7 {
		t.Fatalf("stored assistant messages: %+v / %+v", ld.Messages[1], ld.Messages[5])
	}
}
