package kimi_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/handlers/kimi"
)

// A client that answers a request with a JSON-RPC error gets what kimi-cli
// makes of it: the approval is rejected (brief "Rejected by user", the
// write never runs) and the external tool fails with the client's message
// (brief "External tool error").
func TestWireErrorRepliesToRequests(t *testing.T) {
	testEnv(t, scriptedModel(t, []byte(`{"toolCall":{"id":"c1","name":"write_file","arguments":"{\"path\":\"no.txt\",\"content\":\"x\"}"}}
{"toolCall":{"id":"c2","name":"open_in_ide","arguments":"{\"path\":\"README.md\"}"}}
{"text":["Both failed."]}`)))
	root := t.TempDir()
	c, _ := wireServer(t, kimi.WireOptions{WorkDir: root, Version: "test"})
	c.Handle("request", func(params json.RawMessage) (any, error) {
		return nil, errors.New("the editor closed the dialog")
	})
	call(t, c, "i1", "initialize", map[string]any{"protocol_version": "1.10",
		"external_tools": []any{map[string]any{"name": "open_in_ide", "description": "Open a file", "parameters": map[string]any{"type": "object"}}}})
	if got := call(t, c, "p1", "prompt", map[string]any{"user_input": "go"}); got["status"] != "finished" {
		t.Fatalf("prompt: %v", got)
	}
	if _, err := os.Stat(filepath.Join(root, "no.txt")); err == nil {
		t.Fatal("an approval answered with an error ran the write")
	}
	want := map[string]string{"c1": "Rejected by user", "c2": "External tool error"}
	outputs := map[string]string{}
	for _, m := range c.Notifications("event") {
		var ev struct {
			Type    string `json:"type"`
			Payload struct {
				ToolCallID  string `json:"tool_call_id"`
				ReturnValue struct {
					IsError bool             `json:"is_error"`
					Output  string           `json:"output"`
					Display []map[string]any `json:"display"`
				} `json:"return_value"`
			} `json:"payload"`
		}
		if json.Unmarshal(m.Params, &ev) != nil || ev.Type != "ToolResult" {
			continue
		}
		rv := ev.Payload.ReturnValue
		label, ok := want[ev.Payload.ToolCallID]
		if !ok {
			continue
		}
		if !rv.IsError || len(rv.Display) != 1 || rv.Display[0]["type"] != "brief" || rv.Display[0]["text"] != label {
			t.Errorf("%s: %+v, want the brief %q", ev.Payload.ToolCallID, rv, label)
		}
		outputs[ev.Payload.ToolCallID] = rv.Output
	}
	if len(outputs) != 2 {
		t.Fatalf("results: %v", outputs)
	}
	if outputs["c2"] != "Error: the editor closed the dialog" {
		t.Errorf("the external tool's failure reads %q", outputs["c2"])
	}
}
