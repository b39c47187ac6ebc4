package kimi

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/kast-dev/kast/agent"
)

// External tools: tools the wire client declares in initialize and runs
// itself. When the model calls one, a ToolCallRequest goes to the client,
// whose reply is the tool's result.

type externalTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// acceptTools splits the declared tools into those offered to the model
// and those rejected, with the reason.
func (w *Wire) acceptTools(declared []externalTool) ([]agent.ToolSpec, []map[string]any) {
	taken := map[string]bool{todoTool: true}
	if ts := w.rt.Tools(); ts != nil {
		for _, s := range ts.Specs() {
			taken[s.Name] = true
		}
	}
	accepted := []agent.ToolSpec{}
	rejected := []map[string]any{}
	for _, t := range declared {
		reason := ""
		switch {
		case !toolName.MatchString(t.Name):
			reason = "the name must be 1 to 64 letters, digits, _ or -"
		case taken[t.Name]:
			reason = "the name is taken by a built-in tool or an earlier external tool"
		case t.Parameters == nil || t.Parameters["type"] != "object":
			reason = "parameters must be a JSON Schema object"
		}
		if reason != "" {
			rejected = append(rejected, map[string]any{"name": t.Name, "reason": reason})
			continue
		}
		taken[t.Name] = true
		accepted = append(accepted, agent.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return accepted, rejected
}

// runExternal asks the client to run a call and waits for its result or
// the turn's end.
func (c *wireConn) runExternal(ctx context.Context, call agent.ToolCall) agent.ToolResult {
	done := make(chan agent.ToolResult, 1)
	payload := map[string]any{"id": call.ID, "name": call.Name, "arguments": call.Arguments}
	c.requestCtx(ctx, "ToolCallRequest", call.ID, payload, func(raw json.RawMessage, err error) {
		if err != nil {
			// An error reply fails the call with the client's message.
			done <- agent.ToolResult{Content: "Error: " + err.Error(), IsError: true}
			return
		}
		var resp struct {
			ReturnValue *struct {
				IsError bool            `json:"is_error"`
				Output  json.RawMessage `json:"output"`
				Message string          `json:"message"`
			} `json:"return_value"`
		}
		if json.Unmarshal(raw, &resp) != nil || resp.ReturnValue == nil {
			done <- agent.ToolResult{Content: "Error: the client's reply carries no return_value", IsError: true}
			return
		}
		rv := resp.ReturnValue
		var out string
		if json.Unmarshal(rv.Output, &out) != nil {
			out = string(rv.Output)
		}
		if out == "" {
			out = rv.Message
		}
		done <- agent.ToolResult{Content: out, IsError: rv.IsError}
	})
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		return agent.ToolResult{Content: "Agent turn ended before tool result was received.", IsError: true}
	}
}
