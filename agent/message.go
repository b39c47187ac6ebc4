package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Roles of conversation messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	// RoleCompactionSummary marks the summary that replaced compacted history.
	RoleCompactionSummary = "compactionSummary"
)

// Message is one conversation message. Its JSON form is the OpenAI-chat-like
// shape Kward stores in session files, so kast and Kward read each other's.
type Message struct {
	ID   string
	Role string
	// Text is the message text; Images are inline image attachments (user).
	Text   string
	Images []Image
	// ToolCalls are the assistant's tool calls.
	ToolCalls []ToolCall
	// ToolCallID and Name identify the call a tool message answers.
	ToolCallID string
	Name       string
	// ReasoningSummary is the assistant's reasoning text, kept apart from Text.
	ReasoningSummary string
	Usage            *Usage
	Provider, Model  string
	// Extra keeps fields kast does not model, so a rewritten message loses nothing.
	Extra map[string]json.RawMessage
}

// Image is a base64 image attachment.
type Image struct {
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Alt      string `json:"alt,omitempty"`
}

// ToolCall is a model's request to run a tool; Arguments is a JSON object text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Usage is the token usage a provider reported for one response.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.TotalTokens += u2.TotalTokens
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Alt      string `json:"alt,omitempty"`
	// Thinking and Reasoning are the reasoning parts some writers store.
	Thinking  string `json:"thinking,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
}

var messageKeys = []string{"id", "role", "content", "tool_calls", "tool_call_id", "name", "reasoning_summary", "usage", "provider", "model"}

// MarshalJSON writes content as a string, or as parts when there are images.
func (m Message) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(m.Extra)+8)
	for k, v := range m.Extra {
		out[k] = v
	}
	if m.ID != "" {
		out["id"] = m.ID
	}
	out["role"] = m.Role
	if len(m.Images) == 0 {
		out["content"] = m.Text
	} else {
		parts := []wirePart{}
		if m.Text != "" {
			parts = append(parts, wirePart{Type: "text", Text: m.Text})
		}
		for _, img := range m.Images {
			parts = append(parts, wirePart{Type: "image", Data: img.Data, MimeType: img.MimeType, Alt: img.Alt})
		}
		out["content"] = parts
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]wireToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			calls[i].ID, calls[i].Type = c.ID, "function"
			calls[i].Function.Name, calls[i].Function.Arguments = c.Name, c.Arguments
		}
		out["tool_calls"] = calls
	}
	if m.ToolCallID != "" {
		out["tool_call_id"] = m.ToolCallID
	}
	if m.Name != "" {
		out["name"] = m.Name
	}
	if m.ReasoningSummary != "" {
		out["reasoning_summary"] = m.ReasoningSummary
	}
	if m.Usage != nil {
		out["usage"] = m.Usage
	}
	if m.Provider != "" {
		out["provider"] = m.Provider
	}
	if m.Model != "" {
		out["model"] = m.Model
	}
	return json.Marshal(out)
}

// UnmarshalJSON accepts content as a string or as text, image and reasoning
// parts, as Kward writes them.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	var w struct {
		ID               string          `json:"id"`
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ToolCalls        []wireToolCall  `json:"tool_calls"`
		ToolCallID       string          `json:"tool_call_id"`
		Name             string          `json:"name"`
		ReasoningSummary string          `json:"reasoning_summary"`
		Usage            *Usage          `json:"usage"`
		Provider         string          `json:"provider"`
		Model            string          `json:"model"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = Message{ID: w.ID, Role: w.Role, ToolCallID: w.ToolCallID, Name: w.Name,
		ReasoningSummary: w.ReasoningSummary, Usage: w.Usage, Provider: w.Provider, Model: w.Model}
	for _, c := range w.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	if err := m.decodeContent(w.Content); err != nil {
		return err
	}
	for _, k := range messageKeys {
		delete(raw, k)
	}
	if len(raw) > 0 {
		m.Extra = raw
	}
	return nil
}

func (m *Message) decodeContent(content json.RawMessage) error {
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	if content[0] == '"' {
		return json.Unmarshal(content, &m.Text)
	}
	var parts []wirePart
	if err := json.Unmarshal(content, &parts); err != nil {
		return fmt.Errorf("message content: %w", err)
	}
	var text, reasoning []string
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			text = append(text, p.Text)
		case "image":
			m.Images = append(m.Images, Image{Data: p.Data, MimeType: p.MimeType, Alt: p.Alt})
		case "thinking", "reasoning":
			reasoning = append(reasoning, p.Thinking+p.Reasoning+p.Text)
		}
	}
	m.Text = strings.Join(text, "\n")
	if m.ReasoningSummary == "" && len(reasoning) > 0 {
		m.ReasoningSummary = strings.Join(reasoning, "\n")
	}
	return nil
}

// toolDetails is what a tool message keeps of its result besides the text:
// the diff and files of an edit, so transcripts show them after a reload.
type toolDetails struct {
	Diff             string   `json:"diff,omitempty"`
	ChangedFiles     []string `json:"changedFiles,omitempty"`
	FirstChangedLine int      `json:"firstChangedLine,omitempty"`
}

// ToolMessage is the stored form of a tool call's result.
func ToolMessage(call ToolCall, r ToolResult) Message {
	m := Message{Role: RoleTool, ToolCallID: call.ID, Name: call.Name, Text: r.Content}
	d := toolDetails{Diff: r.Diff, ChangedFiles: r.ChangedFiles, FirstChangedLine: r.FirstChangedLine}
	if d.Diff != "" || len(d.ChangedFiles) > 0 || d.FirstChangedLine > 0 {
		raw, _ := json.Marshal(d)
		m.Extra = map[string]json.RawMessage{"details": raw}
	}
	if r.IsError {
		m.Extra = setExtra(m.Extra, "is_error", json.RawMessage("true"))
	}
	return m
}

// ToolResult reads a tool message back as the result it stores. Messages
// without the flag (Kward's, older kast's) failed when their text says so.
func (m Message) ToolResult() ToolResult {
	r := ToolResult{Content: m.Text}
	var d toolDetails
	if json.Unmarshal(m.Extra["details"], &d) == nil {
		r.Diff, r.ChangedFiles, r.FirstChangedLine = d.Diff, d.ChangedFiles, d.FirstChangedLine
	}
	if json.Unmarshal(m.Extra["is_error"], &r.IsError) != nil || !r.IsError {
		r.IsError = strings.HasPrefix(m.Text, "Error:") || strings.HasPrefix(m.Text, "Declined:") || strings.HasPrefix(m.Text, "Cancelled.")
	}
	return r
}

func setExtra(extra map[string]json.RawMessage, key string, v json.RawMessage) map[string]json.RawMessage {
	if extra == nil {
		extra = map[string]json.RawMessage{}
	}
	extra[key] = v
	return extra
}

// InterruptedResult is the result a tool call gets when none was stored:
// kast stopped (crashed, was killed, lost power) while the tool ran.
const InterruptedResult = "interrupted: kast stopped before this tool finished"

// RepairToolCalls returns msgs with a result for every tool call: each call
// no tool message answers before the next assistant message gets an
// InterruptedResult tool message, placed after the results its assistant
// message has. Chat APIs reject a call without a result (OpenAI: "An
// assistant message with 'tool_calls' must be followed by tool messages
// responding to each 'tool_call_id'"; Anthropic and the Responses API
// likewise for tool_use and function_call), so without this one crash in a
// tool would break the session for good. msgs itself is returned when
// nothing is missing.
func RepairToolCalls(msgs []Message) []Message {
	out, _ := repairToolCalls(msgs)
	return out
}

// repairToolCalls is RepairToolCalls that also counts the results it added
// at the end of the conversation (the calls of the last step).
func repairToolCalls(msgs []Message) (out []Message, trailing int) {
	var missing map[int][]ToolCall // position after the results → calls
	for i, m := range msgs {
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		end := i + 1 // after the tool messages that follow the call
		for j := i + 1; j < len(msgs) && msgs[j].Role != RoleAssistant; j++ {
			if msgs[j].Role == RoleTool {
				answered[msgs[j].ToolCallID] = true
				if end == j {
					end = j + 1
				}
			}
		}
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				if missing == nil {
					missing = map[int][]ToolCall{}
				}
				missing[end] = append(missing[end], c)
				answered[c.ID] = true // a call repeated in one message gets one result
			}
		}
	}
	if missing == nil {
		return msgs, 0
	}
	out = make([]Message, 0, len(msgs)+len(missing))
	for i := 0; i <= len(msgs); i++ {
		for _, c := range missing[i] {
			out = append(out, interruptedMessage(c))
		}
		if i < len(msgs) {
			out = append(out, msgs[i])
		}
	}
	return out, len(missing[len(msgs)])
}

// interruptedMessage is the synthesized result of call.
func interruptedMessage(call ToolCall) Message {
	m := ToolMessage(call, ToolResult{Content: InterruptedResult, IsError: true})
	m.ID = NewID()
	m.Extra = setExtra(m.Extra, "interrupted", json.RawMessage("true"))
	return m
}
