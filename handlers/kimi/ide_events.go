package kimi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// The IDE events: each update of the connection's session becomes
// notifications named after the event, as the spec's TypeScript types
// define them.

// ideTurn is what the projection keeps of one turn.
type ideTurn struct {
	input    turnInput
	step     int
	openStep string               // the step begun and not yet ended, or ""
	started  map[string]time.Time // tool call id → when it started
}

// forward projects one update; it runs on the goroutine that produced it.
func (c *ideConn) forward(u agent.Update) {
	switch {
	case u.Event != nil:
		c.event(*u.Event)
	case u.Step != nil:
		t := c.turn(u.Step.TurnID)
		c.endStep(t, u.Step.TurnID, "success")
		c.beginStep(t, u.Step.TurnID, "response")
	case u.Approval != nil:
		c.notify("ApprovalRequest", approvalRequest(c.workspace, *u.Approval))
	case u.ApprovalResolved != nil && u.ApprovalResolved.Outcome == agent.ApprovalTimedOut:
		r := u.ApprovalResolved
		c.notify("Error", map[string]any{"code": CodeTimeout, "message": "the approval request timed out and was rejected",
			"data": map[string]any{"turn_id": r.TurnID, "request_id": r.ID}})
	case u.Compaction != nil && !u.Compaction.Done:
		c.notify("StatusUpdate", map[string]any{"type": "busy", "message": "Compacting the conversation..."})
	}
}

func (c *ideConn) event(ev agent.Event) {
	switch ev.Kind {
	case agent.EventQueued:
		c.mu.Lock()
		t := &ideTurn{started: map[string]time.Time{}}
		if len(c.pending) > 0 {
			t.input, c.pending = c.pending[0], c.pending[1:]
		}
		c.turns[ev.TurnID] = t
		c.mu.Unlock()
	case agent.EventStarted:
		t := c.turn(ev.TurnID)
		c.notify("TurnBegin", map[string]any{"turn_id": ev.TurnID, "user_input": t.input.text, "context": turnContext(t.input.context)})
		c.notify("StatusUpdate", map[string]any{"type": "busy", "message": "Processing request..."})
	case agent.EventReasoningDelta:
		c.notify("ContentPart", map[string]any{"type": "think", "content": ev.Delta})
	case agent.EventTextDelta:
		c.notify("ContentPart", map[string]any{"type": "text", "text": ev.Delta})
	case agent.EventMessage:
		c.endStep(c.turn(ev.TurnID), ev.TurnID, "success")
	case agent.EventRetry:
		r := ev.Retry
		c.notify("StatusUpdate", map[string]any{"type": "busy", "message": fmt.Sprintf("The model failed (%s); retrying in %s", r.Error, r.Delay),
			"progress": map[string]any{"current": r.Attempt, "total": r.MaxAttempts, "message": "retrying the model request"}})
	case agent.EventToolCall:
		t := c.turn(ev.TurnID)
		call := ev.Tool.Call
		c.beginStep(t, ev.TurnID, "tool_call")
		c.mu.Lock()
		t.started[call.ID] = ev.Time
		c.mu.Unlock()
		c.notify("ToolCall", map[string]any{"id": call.ID, "name": call.Name, "arguments": argsObject(call.Arguments)})
	case agent.EventToolResult:
		t := c.turn(ev.TurnID)
		call, r := ev.Tool.Call, ev.Tool.Result
		c.mu.Lock()
		began, ok := t.started[call.ID]
		delete(t.started, call.ID)
		c.mu.Unlock()
		elapsed := int64(0)
		if ok {
			elapsed = ev.Time.Sub(began).Milliseconds()
		}
		c.notify("ToolResult", map[string]any{"tool_call_id": call.ID, "name": call.Name, "content": r.Content,
			"is_error": r.IsError, "execution_time_ms": elapsed})
		status := "success"
		if r.IsError {
			status = "error"
		}
		c.endStep(t, ev.TurnID, status)
	case agent.EventError:
		c.notify("Error", map[string]any{"code": errorCode(ev.Err), "message": ev.Err.Message,
			"data": map[string]any{"turn_id": ev.TurnID, "code": ev.Err.Code}})
	case agent.EventFinished:
		t := c.turn(ev.TurnID)
		reason, status := "completed", "cancelled"
		var errText any
		switch ev.Status {
		case agent.StatusCanceled:
			reason = "interrupted"
		case agent.StatusFailed:
			reason, status = "error", "error"
			if ev.Err != nil {
				errText = ev.Err.Message
			}
		}
		c.endStep(t, ev.TurnID, status)
		c.notify("TurnEnd", map[string]any{"turn_id": ev.TurnID, "finish_reason": reason, "error": errText})
		c.notify("StatusUpdate", map[string]any{"type": "idle", "message": "Ready"})
	}
}

// turn returns the projection's record of a turn (a fresh one for a turn
// it did not see queued).
func (c *ideConn) turn(id string) *ideTurn {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.turns[id]
	if t == nil {
		t = &ideTurn{started: map[string]time.Time{}}
		c.turns[id] = t
	}
	return t
}

func (c *ideConn) beginStep(t *ideTurn, turnID, typ string) {
	c.mu.Lock()
	t.step++
	id := fmt.Sprintf("%s-step-%d", turnID, t.step)
	t.openStep = id
	c.mu.Unlock()
	c.notify("StepBegin", map[string]any{"step_id": id, "turn_id": turnID, "type": typ})
}

func (c *ideConn) endStep(t *ideTurn, turnID, status string) {
	c.mu.Lock()
	id := t.openStep
	t.openStep = ""
	c.mu.Unlock()
	if id != "" {
		c.notify("StepEnd", map[string]any{"step_id": id, "turn_id": turnID, "status": status})
	}
}

func (c *ideConn) notify(method string, params any) {
	if err := c.conn.RPC().Notify(context.Background(), method, params); err != nil {
		c.conn.Logger().Debug("kimi notification not delivered", "method", method, "err", err)
	}
}

// turnContext is TurnBegin's context: the files and selections the message
// came with.
func turnContext(mc MessageContext) map[string]any {
	files := []string{}
	if mc.CurrentFile != "" {
		files = append(files, mc.CurrentFile)
	}
	selections := []any{}
	if r := mc.SelectionRange; r != nil && mc.CurrentFile != "" {
		selections = append(selections, map[string]any{"file_path": mc.CurrentFile, "start_line": r.StartLine,
			"start_column": r.StartColumn, "end_line": r.EndLine, "end_column": r.EndColumn, "content": mc.SelectedText})
	}
	return map[string]any{"files": files, "selections": selections}
}

const previewBytes = 2000

// approvalRequest renders an approval as the spec's typed request.
func approvalRequest(workspace string, r agent.ApprovalRequest) map[string]any {
	args := argsObject(r.Call.Arguments)
	out := map[string]any{"request_id": r.ID, "turn_id": r.TurnID, "timeout_ms": r.Timeout.Milliseconds()}
	switch r.Kind {
	case agent.KindWrite:
		path := str(args, "path")
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(workspace, path)
		}
		_, statErr := os.Stat(abs)
		preview := str(args, "content")
		if r.Call.Name == tools.EditFile {
			preview = editPreview(args)
		}
		out["type"], out["description"] = "file_write", "Write to file "+path
		out["details"] = map[string]any{"file_path": path, "content_preview": clip(preview, previewBytes),
			"is_create": os.IsNotExist(statErr), "is_delete": false}
	case agent.KindCommand:
		cmd := str(args, "command")
		out["type"], out["description"] = "command_execute", "Run command "+cmd
		out["details"] = map[string]any{"command": cmd, "cwd": workspace, "env": map[string]any{}}
	default:
		out["type"], out["description"] = "tool_call", "Call tool "+r.Call.Name
		out["details"] = map[string]any{"tool_name": r.Call.Name, "arguments": args}
	}
	return out
}

// editPreview shows an edit's replacements as removed and added lines.
func editPreview(args map[string]any) string {
	var b strings.Builder
	edits, _ := args["edits"].([]any)
	for _, e := range edits {
		m, _ := e.(map[string]any)
		for _, l := range strings.Split(str(m, "old_text"), "\n") {
			b.WriteString("- " + l + "\n")
		}
		for _, l := range strings.Split(str(m, "new_text"), "\n") {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
