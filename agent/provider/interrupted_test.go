package provider_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kast-dev/kast/agent"
)

// responsesText is a minimal Responses API stream answering "ok".
const responsesText = "data: {\"type\":\"response.output_text.delta\",\"delta\":\"ok\"}\n\n" +
	"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}\n\ndata: [DONE]\n\n"

// item reads one element of a decoded JSON array as an object.
func item(v any) map[string]any { m, _ := v.(map[string]any); return m }

// chatWellFormed checks chat completions messages as OpenAI does: an
// assistant message with tool_calls is followed by a tool message for each
// call, and it returns the tool messages' contents by call id.
func chatWellFormed(body map[string]any) (map[string]string, error) {
	msgs, _ := body["messages"].([]any)
	results := map[string]string{}
	for i := 0; i < len(msgs); i++ {
		calls, _ := item(msgs[i])["tool_calls"].([]any)
		pending := map[string]bool{}
		for _, c := range calls {
			pending[item(c)["id"].(string)] = true
		}
		for ; len(pending) > 0 && i+1 < len(msgs) && item(msgs[i+1])["role"] == "tool"; i++ {
			id, _ := item(msgs[i+1])["tool_call_id"].(string)
			delete(pending, id)
			results[id], _ = item(msgs[i+1])["content"].(string)
		}
		if len(pending) > 0 {
			return nil, fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %v", pending)
		}
	}
	return results, nil
}

// anthropicWellFormed checks Messages as Anthropic does: each tool_use has
// a tool_result in the next (user) message.
func anthropicWellFormed(body map[string]any) (map[string]string, error) {
	msgs, _ := body["messages"].([]any)
	results := map[string]string{}
	for i, m := range msgs {
		var uses []string
		for _, b := range item(m)["content"].([]any) {
			if item(b)["type"] == "tool_use" {
				uses = append(uses, item(b)["id"].(string))
			}
		}
		if len(uses) == 0 {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(msgs) && item(msgs[i+1])["role"] == "user" {
			for _, b := range item(msgs[i+1])["content"].([]any) {
				if item(b)["type"] == "tool_result" {
					id := item(b)["tool_use_id"].(string)
					answered[id] = true
					for _, c := range item(b)["content"].([]any) {
						results[id] += item(c)["text"].(string)
					}
				}
			}
		}
		for _, id := range uses {
			if !answered[id] {
				return nil, fmt.Errorf("tool_use ids were found without tool_result blocks immediately after: %s", id)
			}
		}
	}
	return results, nil
}

// responsesWellFormed checks Responses input as OpenAI does: every
// function_call has a function_call_output with its call_id.
func responsesWellFormed(body map[string]any) (map[string]string, error) {
	input, _ := body["input"].([]any)
	calls, results := map[string]bool{}, map[string]string{}
	for _, it := range input {
		switch item(it)["type"] {
		case "function_call":
			calls[item(it)["call_id"].(string)] = true
		case "function_call_output":
			id := item(it)["call_id"].(string)
			if !calls[id] {
				return nil, fmt.Errorf("function_call_output %s precedes its call", id)
			}
			results[id], _ = item(it)["output"].(string)
		}
	}
	for id := range calls {
		if _, ok := results[id]; !ok {
			return nil, fmt.Errorf("No tool output found for function call %s.", id)
		}
	}
	return results, nil
}

// A session killed during a tool call is resumed with an interrupted
// result, and every provider sends it in its API's shape; a call left
// without a result in memory (its result could not be written) is repaired
// by the provider too.
func TestInterruptedToolCallsInEveryShape(t *testing.T) {
	for _, tc := range []struct {
		api   string
		reply []byte
		check func(map[string]any) (map[string]string, error)
	}{
		{agent.APIChat, chatChunks([]string{"ok"}, "", "", ""), chatWellFormed},
		{agent.APIAnthropic, testdata(t, "anthropic_text.sse"), anthropicWellFormed},
		{agent.APIResponses, []byte(responsesText), responsesWellFormed},
	} {
		t.Run(tc.api, func(t *testing.T) {
			store := &agent.Store{Dir: t.TempDir()}
			log, err := store.Create(agent.Header{Cwd: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			log.AppendMessage(agent.Message{Role: agent.RoleUser, Text: "list and loop"})
			calls := []agent.ToolCall{
				{ID: "call_ls", Name: "list_directory", Arguments: `{"path":"."}`},
				{ID: "call_loop", Name: "run_shell_command", Arguments: `{"command":"sleep 100"}`},
			}
			log.AppendMessage(agent.Message{Role: agent.RoleAssistant, ToolCalls: calls})
			log.AppendMessage(agent.Message{Role: agent.RoleTool, ToolCallID: "call_ls", Name: "list_directory", Text: "a.go"})
			log.Close() // kast died while the loop ran

			_, ld, err := agent.Open(log.Path())
			if err != nil {
				t.Fatal(err)
			}
			api := newFakeAPI(t, sse(tc.reply))
			p := newProvider(t, tc.api, api.URL, "k")
			// The resumed history, then one kept only in memory.
			histories := [][]agent.Message{
				append(ld.Messages, agent.Message{Role: agent.RoleUser, Text: "go on"}),
				{{Role: agent.RoleUser, Text: "loop"}, {Role: agent.RoleAssistant, ToolCalls: calls[1:]}, {Role: agent.RoleUser, Text: "go on"}},
			}
			for i, h := range histories {
				if _, _, _, err := collect(t, p, &agent.ModelRequest{System: "s", Messages: h}); err != nil {
					t.Fatal(err)
				}
				results, err := tc.check(api.bodies[i])
				if err != nil {
					raw, _ := json.Marshal(api.bodies[i])
					t.Fatalf("history %d: %v\n%s", i, err, raw)
				}
				if results["call_loop"] != agent.InterruptedResult || (i == 0 && results["call_ls"] != "a.go") {
					t.Fatalf("history %d: results %v", i, results)
				}
			}
		})
	}
}
