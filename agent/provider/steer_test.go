package provider_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
)

// gatedRead is a read_file tool that waits until released, so a test can
// steer a turn while its tool call runs.
type gatedRead struct {
	entered chan struct{}
	release chan struct{}
}

func (g *gatedRead) Specs() []agent.ToolSpec { return []agent.ToolSpec{readFileTool} }

func (g *gatedRead) Run(ctx context.Context, _ *agent.ToolEnv, call agent.ToolCall) agent.ToolResult {
	g.entered <- struct{}{}
	select {
	case <-g.release:
		return agent.ToolResult{Content: "# README"}
	case <-ctx.Done():
		return agent.ToolResult{Content: "Cancelled.", IsError: true}
	}
}

// conversation lists what a request body sends the model, one entry per
// message or content block: "user:<text>", "tool:<call id>", "assistant",
// "call:<call id>". Each provider shape has its own reader.
type conversation func(body map[string]any) []string

func chatConversation(body map[string]any) []string {
	var out []string
	for _, m := range list(body["messages"]) {
		switch m["role"] {
		case "user":
			out = append(out, "user:"+text(m["content"]))
		case "tool":
			out = append(out, fmt.Sprint("tool:", m["tool_call_id"]))
		case "assistant":
			out = append(out, "assistant")
			for _, c := range list(m["tool_calls"]) {
				out = append(out, fmt.Sprint("call:", c["id"]))
			}
		}
	}
	return out
}

func responsesConversation(body map[string]any) []string {
	var out []string
	for _, item := range list(body["input"]) {
		switch {
		case item["type"] == "function_call_output":
			out = append(out, fmt.Sprint("tool:", item["call_id"]))
		case item["type"] == "function_call":
			out = append(out, fmt.Sprint("call:", item["call_id"]))
		case item["role"] == "user":
			out = append(out, "user:"+text(item["content"]))
		case item["role"] == "assistant":
			out = append(out, "assistant")
		}
	}
	return out
}

func anthropicConversation(body map[string]any) []string {
	var out []string
	for _, m := range list(body["messages"]) {
		for _, b := range list(m["content"]) {
			switch b["type"] {
			case "text":
				out = append(out, fmt.Sprint(m["role"], ":", b["text"]))
			case "tool_result":
				out = append(out, fmt.Sprint("tool:", b["tool_use_id"]))
			case "tool_use":
				out = append(out, fmt.Sprint("call:", b["id"]))
			}
		}
	}
	return out
}

func list(v any) []map[string]any {
	var out []map[string]any
	items, _ := v.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// text is a message's text: a string, or its text parts joined.
func text(content any) string {
	if s, ok := content.(string); ok {
		return s
	}
	var parts []string
	for _, p := range list(content) {
		if t, ok := p["text"].(string); ok {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "")
}

// TestSteerReachesEveryProviderAfterToolResults steers a turn while its
// tool call runs, through each provider against its recorded streams: the
// request of the next step carries the steered input as a user message
// after the tool result, never between a call and its result.
func TestSteerReachesEveryProviderAfterToolResults(t *testing.T) {
	cases := []struct {
		api          string
		tools, final func(t *testing.T) []byte
		callID       string
		read         conversation
	}{
		{agent.APIChat, fix("azure_openai/tools.sse"), fix("azure_openai/text.sse"), "call_azure", chatConversation},
		{agent.APIResponses, fix("openai/tools.sse"), fix("openai/text.sse"), "call_1", responsesConversation},
		{agent.APIAnthropic, local("anthropic_tools.sse"), local("anthropic_text.sse"), "toolu_01", anthropicConversation},
	}
	for _, tc := range cases {
		t.Run(tc.api, func(t *testing.T) {
			api := newFakeAPI(t, sse(tc.tools(t)), sse(tc.final(t)))
			p := newProvider(t, tc.api, api.URL, "k")
			g := &gatedRead{entered: make(chan struct{}, 4), release: make(chan struct{})}
			var mu sync.Mutex
			var events []agent.Event
			s := agent.NewSession(agent.SessionOptions{
				Workspace: t.TempDir(),
				Provider:  func() (agent.Provider, error) { return p, nil },
				Tools:     g,
				Sink: func(ev agent.Event) {
					mu.Lock()
					events = append(events, ev)
					mu.Unlock()
				},
			})
			t.Cleanup(s.Close)
			turn, err := s.Start(agent.Input{Text: "hello"}, "")
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-g.entered:
			case <-time.After(20 * time.Second):
				t.Fatal("the tool was never called")
			}
			steered, err := s.Start(agent.Input{Text: "please also check go.mod"}, agent.Steer)
			if err != nil || steered != turn {
				t.Fatalf("steer returned %v, %v; want the running turn", steered, err)
			}
			close(g.release)
			select {
			case <-turn.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("turn did not finish")
			}
			if info := turn.Info(); info.Status != agent.StatusCompleted || api.requests() != 2 {
				t.Fatalf("turn %+v after %d requests", info, api.requests())
			}
			first := strings.Join(tc.read(api.bodies[0]), " ")
			if first != "user:hello" {
				t.Fatalf("first request sends %s", first)
			}
			got := tc.read(api.bodies[1])
			want := []string{"user:hello", "call:" + tc.callID, "tool:" + tc.callID, "user:please also check go.mod"}
			if n := len(got); n < len(want) || strings.Join(got[n-3:], " ") != strings.Join(want[1:], " ") || got[0] != want[0] {
				t.Fatalf("second request sends\n %s\nwant (assistant text aside)\n %s", strings.Join(got, " "), strings.Join(want, " "))
			}
			if tc.api == agent.APIAnthropic {
				// Messages alternate roles: the steered text joins the tool
				// result's user message, after the result.
				msgs := list(api.bodies[1]["messages"])
				for i := 1; i < len(msgs); i++ {
					if msgs[i]["role"] == msgs[i-1]["role"] {
						t.Fatalf("messages %d and %d are both %v", i-1, i, msgs[i]["role"])
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			var order []string
			for _, ev := range events {
				switch ev.Kind {
				case agent.EventToolResult, agent.EventSteered, agent.EventAnswer:
					order = append(order, string(ev.Kind))
				}
			}
			if strings.Join(order, ",") != "toolResult,steered,answer" {
				t.Fatalf("events in order %v", order)
			}
		})
	}
}

func fix(name string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return fixture(t, name) }
}

func local(name string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return testdata(t, name) }
}
