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
			done <- agent.ToolResult{Content: "Error: " + err.Error(), IsError: true, Failure: failureExternalError}
			return
		}
		var resp struct {
			ReturnValue *struct {
				IsError bool            `json:"is_error"`
				Output  json.RawMessage `json:"output"`
				Message string          `json:"message"`
				Display []any           `json:"display"`
			} `json:"return_value"`
		}
		if json.Unmarshal(raw, &resp) != nil || resp.ReturnValue == nil {
			done <- agent.ToolResult{Content: "Error: the client's reply carries no return_value", IsError: true, Failure: failureInvalidResult}
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
		if rv.Display != nil {
			c.keepClientReturn(call.ID, rv.Message, rv.Display)
		}
		done <- agent.ToolResult{Content: out, IsError: rv.IsError}
	})
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		return agent.ToolResult{Content: "Agent turn ended before tool result was received.", IsError: true, Failure: failureTurnEnded}
	}
}

// clientReturn is the message and display blocks of an external tool's
// result as the client gave them: the ToolResult event passes them on, as
// kimi-cli does.
type clientReturn struct {
	message string
	display []any
}

func (c *wireConn) keepClientReturn(callID, message string, display []any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clientReturns == nil {
		c.clientReturns = map[string]clientReturn{}
	}
	c.clientReturns[callID] = clientReturn{message, display}
}

func (c *wireConn) takeClientReturn(callID string) (clientReturn, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.clientReturns[callID]
	delete(c.clientReturns, callID)
	return r, ok
}
