package agent

import (
	"context"
	"errors"
	"fmt"
)

// Provider streams one model response. Implementations live in agent/provider.
type Provider interface {
	Info() ProviderInfo
	// Stream sends the request and reports text and reasoning deltas to sink as
	// they arrive. Cancelling ctx closes the HTTP stream.
	Stream(ctx context.Context, req *ModelRequest, sink DeltaSink) (*ModelResponse, error)
}

// ProviderInfo names a configured provider.
type ProviderInfo struct {
	Name  string // openai, anthropic, openrouter, … or a configured name
	Model string
}

// ModelRequest is one request to the model.
type ModelRequest struct {
	System   string
	Messages []Message
	Tools    []ToolSpec
}

// DeltaSink receives streamed deltas; nil fields are ignored.
type DeltaSink struct {
	Text      func(delta string)
	Reasoning func(delta string)
	// ToolCall hears a tool call's arguments as the model streams them.
	ToolCall func(ToolCallDelta)
}

// ToolCallDelta is a piece of a streamed tool call: its index in the
// response, its id and name on its first piece, and the next part of its
// JSON arguments.
type ToolCallDelta struct {
	Index     int
	ID, Name  string
	Arguments string
}

// ModelResponse is a complete model response.
type ModelResponse struct {
	Text      string
	Reasoning string
	ToolCalls []ToolCall
	Usage     Usage
}

// ProviderError is a failed model request. Transient errors (429, 5xx,
// network, idle stream) are retried.
type ProviderError struct {
	Provider  string
	Status    int // HTTP status, 0 for network errors
	Transient bool
	Message   string
}

func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Provider, e.Message)
}

// ErrNoProvider is wrapped by the error a turn fails with when no model
// provider is configured.
var ErrNoProvider = errors.New("no model provider configured")
