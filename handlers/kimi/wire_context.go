package kimi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/agent"
)

// A session folder kimi-cli wrote itself has no kast_session in its
// state.json: its conversation is context.jsonl, one record a line. Records
// whose role starts with "_" are kimi-cli's bookkeeping (_system_prompt,
// _checkpoint, _usage); the others are messages {role, content,
// tool_calls?, tool_call_id?} with content a string or content parts.
// Lines that do not parse, unknown roles and parts kast cannot pass on
// (images, audio, video) are skipped, as kimi-cli skips what it cannot
// read.

type contextRecord struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"`
	ToolCalls  []contextToolCall `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
}

type contextToolCall struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	Function struct {
		Name      string  `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

// history reads the conversation of context.jsonl.
func (s *wireStore) history() ([]agent.Message, error) {
	f, err := os.Open(filepath.Join(s.dir, "context.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []agent.Message
	callNames := map[string]string{} // tool call id → tool name
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if m, ok := contextMessage(line, callNames); ok {
			out = append(out, m)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// contextMessage converts one context.jsonl line, or reports false for a
// line that is not a conversation message kast can use.
func contextMessage(line []byte, callNames map[string]string) (agent.Message, bool) {
	var rec contextRecord
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &rec) != nil {
		return agent.Message{}, false
	}
	text, think := contentText(rec.Content)
	switch rec.Role {
	case agent.RoleUser:
		return agent.Message{Role: agent.RoleUser, Text: text}, text != ""
	case agent.RoleAssistant:
		m := agent.Message{Role: agent.RoleAssistant, Text: text, ReasoningSummary: think}
		for _, c := range rec.ToolCalls {
			if c.ID == "" || c.Function.Name == "" {
				continue
			}
			args := "{}"
			if c.Function.Arguments != nil && *c.Function.Arguments != "" {
				args = *c.Function.Arguments
			}
			callNames[c.ID] = c.Function.Name
			m.ToolCalls = append(m.ToolCalls, agent.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
		}
		return m, text != "" || len(m.ToolCalls) > 0
	case agent.RoleTool:
		name, ok := callNames[rec.ToolCallID]
		return agent.Message{Role: agent.RoleTool, ToolCallID: rec.ToolCallID, Name: name, Text: text}, ok
	}
	return agent.Message{}, false
}

// contentText joins the text parts and the thinking parts of a message's
// content, a string or a list of parts.
func contentText(raw json.RawMessage) (text, think string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, ""
	}
	var parts []struct {
		Type  string `json:"type"`
		Text  string `json:"text"`
		Think string `json:"think"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts, thoughts []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "think":
			thoughts = append(thoughts, p.Think)
		}
	}
	return strings.Join(texts, ""), strings.Join(thoughts, "")
}

// contextToolCalls writes an assistant message's tool calls as kimi-cli
// records them.
func contextToolCalls(calls []agent.ToolCall) []contextToolCall {
	out := make([]contextToolCall, 0, len(calls))
	for _, c := range calls {
		tc := contextToolCall{Type: "function", ID: c.ID}
		args := c.Arguments
		tc.Function.Name, tc.Function.Arguments = c.Name, &args
		out = append(out, tc)
	}
	return out
}
