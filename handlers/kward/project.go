package kward

import (
	"encoding/json"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// The projection of agent events and state onto Kward's wire shapes.

// kwardEventTypes maps the engine's event kinds to Kward's event types.
var kwardEventTypes = map[agent.EventKind]string{
	agent.EventQueued:          "turnQueued",
	agent.EventSteered:         "turnSteered",
	agent.EventStarted:         "turnStarted",
	agent.EventReasoningDelta:  "reasoningDelta",
	agent.EventTextDelta:       "assistantDelta",
	agent.EventMessage:         "assistantMessage",
	agent.EventRetry:           "modelRetry",
	agent.EventToolCall:        "toolCall",
	agent.EventToolResult:      "toolResult",
	agent.EventAnswer:          "answer",
	agent.EventCancelRequested: "turnCancelRequested",
	agent.EventError:           "error",
	agent.EventFinished:        "turnFinished",
}

// kwardEvent is the params of a turn/event notification.
type kwardEvent struct {
	Sequence  int64          `json:"sequence"`
	Timestamp string         `json:"timestamp"`
	SessionID string         `json:"sessionId"`
	TurnID    string         `json:"turnId"`
	Type      string         `json:"type"`
	Payload   map[string]any `json:"payload"`
}

func kwardTime(t time.Time) string { return t.UTC().Format(agent.TimeFormat) }

// projectEvent renders ev as Kward sends it. The engine session's id is the
// RPC session id, which is what Kward clients address.
func projectEvent(ev agent.Event) kwardEvent {
	out := kwardEvent{Sequence: ev.Seq, Timestamp: kwardTime(ev.Time), SessionID: ev.SessionID, TurnID: ev.TurnID,
		Type: kwardEventTypes[ev.Kind], Payload: map[string]any{}}
	p := out.Payload
	switch ev.Kind {
	case agent.EventQueued, agent.EventStarted:
		p["status"] = ev.Status
	case agent.EventFinished:
		p["status"] = ev.Status
		if ev.Err != nil {
			p["error"] = kwardError(ev.Err)
		}
	case agent.EventSteered:
		p["input"], p["createdAt"] = ev.Text, kwardTime(ev.Steered)
	case agent.EventReasoningDelta, agent.EventTextDelta:
		p["delta"] = ev.Delta
	case agent.EventMessage:
		p["message"] = ev.Message
	case agent.EventRetry:
		r := ev.Retry
		p["provider"], p["model"], p["attempt"], p["maxAttempts"] = r.Provider, r.Model, r.Attempt, r.MaxAttempts
		p["delaySeconds"], p["error"] = r.Delay.Seconds(), r.Error
	case agent.EventToolCall, agent.EventToolResult:
		projectTool(p, ev.Tool)
	case agent.EventAnswer:
		p["content"] = ev.Text
	case agent.EventError:
		for k, v := range kwardError(ev.Err) {
			p[k] = v
		}
	}
	return out
}

func kwardError(e *agent.TurnError) map[string]any {
	return map[string]any{"message": e.Message, "code": e.Code, "fatal": false}
}

// projectTool fills the normalized tool fields of toolCall and toolResult.
func projectTool(p map[string]any, te *agent.ToolEvent) {
	call := te.Call
	name := tools.NormalizedName(call.Name)
	args := tools.NormalizedArgs(call)
	raw := map[string]any{"id": call.ID, "type": "function", "function": map[string]any{"name": call.Name, "arguments": call.Arguments}}
	p["toolCallId"], p["toolName"], p["args"] = call.ID, name, args
	p["rawToolCall"], p["toolCall"] = raw, raw
	p["tool"] = map[string]any{"name": name, "rawName": call.Name, "args": args}
	if r := te.Result; r != nil {
		result := map[string]any{"content": r.Content, "isError": r.IsError, "images": []any{}}
		if r.Diff != "" {
			result["diff"] = r.Diff
		}
		if len(r.ChangedFiles) > 0 {
			result["changedFiles"] = r.ChangedFiles
		}
		if r.FirstChangedLine > 0 {
			result["firstChangedLine"] = r.FirstChangedLine
		}
		p["content"], p["result"] = r.Content, result
	}
}

// kwardTurn is Kward's turn object.
type kwardTurn struct {
	ID              string         `json:"id"`
	SessionID       string         `json:"sessionId"`
	Status          string         `json:"status"`
	CancelRequested bool           `json:"cancelRequested"`
	CreatedAt       string         `json:"createdAt"`
	StartedAt       string         `json:"startedAt,omitempty"`
	FinishedAt      string         `json:"finishedAt,omitempty"`
	Error           map[string]any `json:"error,omitempty"`
}

func projectTurn(info agent.TurnInfo) kwardTurn {
	t := kwardTurn{ID: info.ID, SessionID: info.SessionID, Status: string(info.Status),
		CancelRequested: info.CancelRequested, CreatedAt: kwardTime(info.CreatedAt)}
	if !info.StartedAt.IsZero() {
		t.StartedAt = kwardTime(info.StartedAt)
	}
	if !info.FinishedAt.IsZero() {
		t.FinishedAt = kwardTime(info.FinishedAt)
	}
	if info.Err != nil {
		t.Error = kwardError(info.Err)
	}
	return t
}

// transcriptMessages normalizes a conversation as kward-transcript-v1:
// reasoning becomes thinking blocks before the text, tool calls and results
// carry normalized names and arguments.
func transcriptMessages(history []agent.Message) []map[string]any {
	rawNames := map[string]string{} // tool call id → raw tool name
	out := []map[string]any{}       // never null: clients iterate it
	for _, m := range history {
		switch m.Role {
		case agent.RoleUser:
			content := []map[string]any{}
			if m.Text != "" {
				content = append(content, map[string]any{"type": "text", "text": m.Text})
			}
			for _, img := range m.Images {
				content = append(content, map[string]any{"type": "image", "data": img.Data, "mimeType": img.MimeType})
			}
			out = append(out, map[string]any{"role": "user", "content": content})
		case agent.RoleAssistant:
			content := []map[string]any{}
			if m.ReasoningSummary != "" {
				content = append(content, map[string]any{"type": "thinking", "thinking": m.ReasoningSummary})
			}
			if m.Text != "" {
				content = append(content, map[string]any{"type": "text", "text": m.Text})
			}
			for _, tc := range m.ToolCalls {
				rawNames[tc.ID] = tc.Name
				args := tools.NormalizedArgs(tc)
				if tc.Name == tools.RunShellCommand {
					args["timeoutSeconds"] = args["timeout"]
					delete(args, "timeout")
				}
				content = append(content, map[string]any{"type": "toolCall", "id": tc.ID, "name": tools.NormalizedName(tc.Name), "arguments": args})
			}
			out = append(out, map[string]any{"role": "assistant", "content": content})
		case agent.RoleTool:
			name := m.Name
			if name == "" {
				name = rawNames[m.ToolCallID]
			}
			r := m.ToolResult()
			details := map[string]any{}
			if r.Diff != "" {
				details["diff"] = r.Diff
			}
			if len(r.ChangedFiles) > 0 {
				details["changedFiles"] = r.ChangedFiles
			}
			if r.FirstChangedLine > 0 {
				details["firstChangedLine"] = r.FirstChangedLine
			}
			out = append(out, map[string]any{"role": "toolResult", "toolCallId": m.ToolCallID, "toolName": tools.NormalizedName(name),
				"isError": r.IsError, "content": []map[string]any{{"type": "text", "text": m.Text}}, "details": details})
		case "compactionSummary":
			msg := map[string]any{"role": "compactionSummary", "summary": m.Text}
			if tb, ok := m.Extra["tokens_before"]; ok {
				var n int64
				_ = json.Unmarshal(tb, &n)
				msg["tokensBefore"] = n
			}
			out = append(out, msg)
		case "branchSummary":
			out = append(out, map[string]any{"role": "branchSummary", "summary": m.Text})
		}
	}
	return out
}
