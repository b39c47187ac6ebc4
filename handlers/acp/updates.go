package acp

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// forward projects one engine update onto session/update notifications,
// written on the producing goroutine so they keep the turn's order and all
// precede the prompt's reply.
func (ss *session) forward(s *Service, u agent.Update) {
	switch {
	case u.Event != nil:
		ss.event(s, *u.Event)
	case u.Approval != nil:
		// Not from deliver itself: the answer calls back into the manager.
		go ss.permission(s, *u.Approval)
	case u.Question != nil:
		// ACP has no question request: the tool hears there is no answer.
		go func() { _ = s.mgr.Answer(ss.ms.ID(), u.Question.ID, nil) }()
	}
}

func (ss *session) event(s *Service, ev agent.Event) {
	switch ev.Kind {
	case agent.EventTextDelta:
		ss.notify(chunk("agent_message_chunk", ev.Delta))
	case agent.EventReasoningDelta:
		ss.notify(chunk("agent_thought_chunk", ev.Delta))
	case agent.EventToolCall:
		if ev.Tool.Call.Name == planTool {
			ss.notify(planUpdate(ev.Tool.Call.Arguments))
			return
		}
		ss.notify(ss.toolCall(ev.Tool.Call, "tool_call", "pending", true))
	case agent.EventToolResult:
		if ev.Tool.Call.Name == planTool {
			return
		}
		ss.notify(ss.toolResult(ev.Tool.Call, ev.Tool.Result, maxToolText))
	case agent.EventMessage:
		ss.notify(usageUpdate(ev.Message))
	case agent.EventStarted:
		ss.mu.Lock()
		first := !ss.titled
		ss.titled = true
		ss.mu.Unlock()
		if first {
			ss.notify(map[string]any{"sessionUpdate": "session_info_update", "title": titleOf(ev.Text),
				"updatedAt": time.Now().UTC().Format(time.RFC3339)})
		}
	case agent.EventFinished:
		ss.endWaits(ev.TurnID)
		ss.notify(map[string]any{"sessionUpdate": "session_info_update", "updatedAt": time.Now().UTC().Format(time.RFC3339)})
	}
}

func chunk(kind, text string) map[string]any {
	return map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": text}}
}

// maxToolText bounds a tool's output in an update; maxReplayText in a
// replayed one (editors slow down on huge histories).
const (
	maxToolText   = 16 << 10
	maxReplayText = 2 << 10
)

// clipped cuts text at n bytes on a rune boundary with a marker saying
// how much was left out.
func clipped(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut] + "\n… [truncated: " + itoa(len(text)-cut) + " more bytes]"
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// toolKinds are ACP's kinds of kast's tools; MCP tools are "other".
var toolKinds = map[string]string{
	tools.ReadFile: "read", tools.ListDirectory: "read", "file_outline": "read", "file_diagnostics": "read",
	tools.WriteFile: "edit", tools.EditFile: "edit", tools.DeleteFile: "delete", tools.RenameFile: "move",
	tools.RunShellCommand: "execute", "resolve_symbol": "search", "find_references": "search", "workspace_symbols": "search",
	tools.RenamePreview: "search", tools.RegexSearch: "search", tools.HybridSearch: "search", tools.AskUserQuestion: "other",
}

// toolCall describes a call as a tool_call (or, with kind
// "tool_call_update", the toolCall of a permission request): title, kind,
// locations and, for edits, the diff.
func (ss *session) toolCall(call agent.ToolCall, update, status string, live bool) map[string]any {
	args, _ := rawJSON(call.Arguments).(map[string]any)
	str := func(k string) string { s, _ := args[k].(string); return s }
	kind := toolKinds[call.Name]
	if kind == "" {
		kind = "other"
	}
	title := call.Name
	path := str("path")
	switch call.Name {
	case tools.ReadFile:
		title = "Read " + path
	case tools.ListDirectory:
		title = "List " + path
	case tools.WriteFile:
		title = "Write " + path
	case tools.EditFile:
		title = "Edit " + path
	case tools.RunShellCommand:
		title = "Run `" + str("command") + "`"
	case tools.RegexSearch:
		title = "Search /" + str("pattern") + "/"
	case tools.HybridSearch, "workspace_symbols":
		title = "Search " + strings.TrimSpace(str("query")+" ")
	default:
		if path != "" {
			title = call.Name + " " + path
		}
	}
	out := map[string]any{"sessionUpdate": update, "toolCallId": call.ID, "title": title, "kind": kind, "status": status,
		"rawInput": rawJSON(call.Arguments)}
	if path != "" {
		abs := ss.abs(path)
		loc := map[string]any{"path": abs}
		if line, ok := args["line"].(float64); ok && line >= 1 {
			loc["line"] = int(line)
		}
		out["locations"] = []any{loc}
		if diffs := ss.diffs(call.Name, abs, args, live); len(diffs) > 0 {
			out["content"] = diffs
			if live && update == "tool_call" {
				ss.mu.Lock()
				ss.callDiffs[call.ID] = diffs
				ss.mu.Unlock()
			}
		}
	}
	return out
}

// abs is a tool's path as ACP wants it: absolute.
func (ss *session) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(ss.ms.Workspace(), path)
}

// diffs are an edit's ACP diff blocks: each replacement of edit_file, the
// whole file of write_file (against the file on disk while live; a
// replayed write shows no old text, the disk having changed since).
func (ss *session) diffs(name, abs string, args map[string]any, live bool) []any {
	var out []any
	switch name {
	case tools.EditFile:
		edits, _ := args["edits"].([]any)
		for _, e := range edits {
			m, _ := e.(map[string]any)
			oldText, _ := m["old_text"].(string)
			newText, _ := m["new_text"].(string)
			out = append(out, map[string]any{"type": "diff", "path": abs, "oldText": oldText, "newText": newText})
		}
	case tools.WriteFile:
		content, _ := args["content"].(string)
		d := map[string]any{"type": "diff", "path": abs, "newText": content, "oldText": nil}
		if old, err := os.ReadFile(abs); err == nil && live {
			d["oldText"] = clipped(string(old), maxToolText)
		}
		out = append(out, d)
	}
	return out
}

// toolResult is the tool_call_update that ends a call.
func (ss *session) toolResult(call agent.ToolCall, r *agent.ToolResult, max int) map[string]any {
	status := "completed"
	if r.IsError {
		status = "failed"
	}
	content := []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": clipped(r.Content, max)}}}
	// The update's content replaces the call's: an edit keeps its diff.
	ss.mu.Lock()
	diffs := ss.callDiffs[call.ID]
	delete(ss.callDiffs, call.ID)
	ss.mu.Unlock()
	if diffs == nil && max == maxReplayText {
		args, _ := rawJSON(call.Arguments).(map[string]any)
		if p, _ := args["path"].(string); p != "" {
			diffs = ss.diffs(call.Name, ss.abs(p), args, false)
		}
	}
	if !r.IsError {
		content = append(content, diffs...)
	}
	return map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": call.ID, "status": status, "content": content}
}

// usageUpdate reports the context used after a model step and the model's
// window (0 when kast does not know it).
func usageUpdate(m *agent.Message) map[string]any {
	if m == nil || m.Usage == nil {
		return nil
	}
	size := 0
	if model, ok := agent.LookupModel(m.Provider, m.Model); ok {
		size = model.ContextWindow
	}
	return map[string]any{"sessionUpdate": "usage_update", "used": m.Usage.InputTokens + m.Usage.OutputTokens, "size": size}
}

// titleOf is a session title from its first prompt: the first line, cut.
func titleOf(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if len(line) > 80 {
		cut := 80
		for cut > 0 && line[cut]&0xC0 == 0x80 {
			cut--
		}
		line = line[:cut] + "…"
	}
	return line
}

// commandsUpdate lists kast's slash commands for the session: its prompts
// and skills.
func (ss *session) commandsUpdate(s *Service) map[string]any {
	cmds := []any{}
	res, _, err := s.mgr.Resources(ss.ms.ID())
	if err == nil && res != nil {
		for _, p := range res.Prompts {
			cmds = append(cmds, map[string]any{"name": p.Name, "description": p.Description, "input": map[string]any{"hint": "arguments"}})
		}
		for _, sk := range res.Skills {
			cmds = append(cmds, map[string]any{"name": "skill:" + sk.Name, "description": sk.Description})
		}
	}
	return map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": cmds}
}

// replay sends the history as the updates that made it, tool outputs cut
// to maxReplayText.
func (ss *session) replay(history []agent.Message) {
	calls := map[string]agent.ToolCall{}
	for _, m := range history {
		switch m.Role {
		case agent.RoleUser:
			if m.Text != "" {
				ss.notify(chunk("user_message_chunk", m.Text))
			}
			for _, img := range m.Images {
				ss.notify(map[string]any{"sessionUpdate": "user_message_chunk",
					"content": map[string]any{"type": "image", "data": img.Data, "mimeType": img.MimeType}})
			}
		case agent.RoleAssistant:
			if m.ReasoningSummary != "" {
				ss.notify(chunk("agent_thought_chunk", m.ReasoningSummary))
			}
			if m.Text != "" {
				ss.notify(chunk("agent_message_chunk", m.Text))
			}
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
				if c.Name == planTool {
					ss.notify(planUpdate(c.Arguments))
					continue
				}
				ss.notify(ss.toolCall(c, "tool_call", "pending", false))
			}
		case agent.RoleTool:
			c, ok := calls[m.ToolCallID]
			if !ok || c.Name == planTool {
				continue
			}
			r := m.ToolResult()
			ss.notify(ss.toolResult(c, &r, maxReplayText))
		}
	}
}
