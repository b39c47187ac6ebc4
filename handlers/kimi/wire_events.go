package kimi

import (
	"encoding/json"
	"strings"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// forward projects one update onto kimi-cli's wire: `event` notifications
// {type, payload} and `request`s for approvals and questions.
func (c *wireConn) forward(w *Wire, u agent.Update) {
	switch {
	case u.Event != nil:
		c.wireEvent(*u.Event)
	case u.Step != nil:
		c.mu.Lock()
		c.stepsOf[u.Step.TurnID] = u.Step.N
		c.mu.Unlock()
		c.event("StepBegin", map[string]any{"n": u.Step.N})
	case u.Approval != nil:
		c.approvalRequest(w, *u.Approval)
	case u.ApprovalResolved != nil:
		r := u.ApprovalResolved
		resp := map[string]string{agent.ApprovalApproved: "approve", agent.ApprovalApprovedForSession: "approve_for_session"}[r.Outcome]
		if resp == "" {
			resp = "reject"
		}
		payload := map[string]any{"request_id": r.ID, "response": resp}
		if r.Reason != "" {
			payload["feedback"] = r.Reason
		}
		c.event("ApprovalResponse", payload)
	case u.Question != nil:
		c.questionRequest(w, *u.Question)
	case u.ToolCallPart != nil:
		c.toolCallPart(*u.ToolCallPart)
	case u.Compaction != nil:
		if u.Compaction.Done {
			c.event("CompactionEnd", map[string]any{})
		} else {
			c.event("CompactionBegin", map[string]any{})
		}
	}
}

func (c *wireConn) wireEvent(ev agent.Event) {
	switch ev.Kind {
	case agent.EventStarted:
		c.store.context(map[string]any{"role": "user", "content": ev.Text})
		c.event("TurnBegin", map[string]any{"user_input": ev.Text})
	case agent.EventReasoningDelta:
		c.event("ContentPart", map[string]any{"type": "think", "think": ev.Delta})
	case agent.EventTextDelta:
		c.event("ContentPart", map[string]any{"type": "text", "text": ev.Delta})
	case agent.EventSteered:
		c.store.context(map[string]any{"role": "user", "content": ev.Text})
		c.event("SteerInput", map[string]any{"user_input": ev.Text})
	case agent.EventMessage:
		m := ev.Message
		rec := map[string]any{"role": "assistant", "content": m.Text}
		if len(m.ToolCalls) > 0 {
			rec["tool_calls"] = contextToolCalls(m.ToolCalls)
		}
		c.store.context(rec)
		c.statusUpdate(m)
	case agent.EventRetry:
		r := ev.Retry
		c.event("StepRetry", map[string]any{"n": c.steps(ev.TurnID), "next_attempt": r.Attempt, "max_attempts": r.MaxAttempts,
			"wait_s": r.Delay.Seconds(), "error_type": "APIStatusError"})
	case agent.EventToolCall:
		call := ev.Tool.Call
		c.mu.Lock()
		streamed := c.streamedCalls[call.ID]
		delete(c.streamedCalls, call.ID)
		c.mu.Unlock()
		if streamed {
			return // announced as it streamed (toolCallPart)
		}
		c.event("ToolCall", map[string]any{"type": "function", "id": call.ID,
			"function": map[string]any{"name": call.Name, "arguments": call.Arguments}})
	case agent.EventToolResult:
		call, r := ev.Tool.Call, ev.Tool.Result
		c.store.context(map[string]any{"role": "tool", "content": r.Content, "tool_call_id": call.ID})
		message, blocks := firstLine(r.Content), c.display(call, r)
		if call.Name == todoTool {
			message, blocks = todoReturn(call, r)
		}
		if cr, ok := c.takeClientReturn(call.ID); ok {
			message, blocks = cr.message, cr.display
		}
		c.event("ToolResult", map[string]any{"tool_call_id": call.ID, "return_value": map[string]any{
			"is_error": r.IsError, "output": r.Content, "message": message, "display": blocks}})
	case agent.EventFinished:
		c.endRequests(ev.TurnID)
		if ev.Status == agent.StatusCanceled {
			c.event("StepInterrupted", map[string]any{})
		}
		c.event("TurnEnd", map[string]any{})
		c.store.sync()
	}
}

// toolCallPart streams a tool call as kimi-cli does: ToolCall with its id
// and name when the model starts it, then its arguments in ToolCallPart
// pieces.
func (c *wireConn) toolCallPart(p agent.ToolCallPart) {
	if p.ID != "" {
		c.mu.Lock()
		if c.streamedCalls == nil {
			c.streamedCalls = map[string]bool{}
		}
		c.streamedCalls[p.ID] = true
		c.mu.Unlock()
		c.event("ToolCall", map[string]any{"type": "function", "id": p.ID, "function": map[string]any{"name": p.Name, "arguments": ""}})
	}
	if p.Arguments != "" {
		c.event("ToolCallPart", map[string]any{"arguments_part": p.Arguments})
	}
}

// statusUpdate reports the context and token usage after a model step.
func (c *wireConn) statusUpdate(m *agent.Message) {
	c.mu.Lock()
	plan := c.planMode
	c.mu.Unlock()
	payload := map[string]any{"message_id": m.ID, "plan_mode": plan}
	if u := m.Usage; u != nil {
		model, _ := agent.LookupModel(m.Provider, m.Model)
		payload["context_tokens"] = u.InputTokens + u.OutputTokens
		if model.ContextWindow > 0 {
			payload["max_context_tokens"] = model.ContextWindow
			payload["context_usage"] = float64(u.InputTokens+u.OutputTokens) / float64(model.ContextWindow)
		}
		payload["token_usage"] = map[string]any{"input_other": u.InputTokens, "output": u.OutputTokens,
			"input_cache_read": 0, "input_cache_creation": 0}
	}
	c.event("StatusUpdate", payload)
}

// display renders a tool result's display blocks as kimi-cli does: a
// failure is its brief line alone; an edit or write shows its diff, a shell
// call its command.
func (c *wireConn) display(call agent.ToolCall, r *agent.ToolResult) []any {
	feedback := c.takeFeedback(call.ID)
	if r.IsError {
		return []any{map[string]any{"type": "brief", "text": c.brief(call, r, feedback)}}
	}
	switch call.Name {
	case tools.EditFile, tools.WriteFile:
		if r.Diff != "" && len(r.ChangedFiles) > 0 {
			return hunkBlocks(c.absPath(r.ChangedFiles[0]), r.Diff)
		}
	case tools.RunShellCommand:
		return []any{map[string]any{"type": "shell", "language": "bash", "command": str(argsObject(call.Arguments), "command")}}
	}
	return []any{}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return clip(line, 200)
}

// approvalRequest asks the client as kimi-cli does and applies its reply.
func (c *wireConn) approvalRequest(w *Wire, r agent.ApprovalRequest) {
	args := argsObject(r.Call.Arguments)
	action, desc, blocks := "call "+r.Call.Name, "Call "+r.Call.Name, []any{}
	switch r.Kind {
	case agent.KindWrite:
		verb := map[string]string{tools.WriteFile: "Write", tools.EditFile: "Edit", tools.DeleteFile: "Delete", tools.RenameFile: "Rename"}[r.Call.Name]
		if verb == "" {
			verb = "Change"
		}
		action, desc, blocks = "edit file", verb+" file `"+c.absPath(str(args, "path"))+"`", c.previewBlocks(r.Call)
	case agent.KindCommand:
		action, desc = "run shell command", "Run command `"+str(args, "command")+"`"
		blocks = []any{map[string]any{"type": "shell", "language": "bash", "command": str(args, "command")}}
	}
	payload := map[string]any{"id": r.ID, "tool_call_id": r.Call.ID, "sender": r.Call.Name, "action": action,
		"description": desc, "display": blocks}
	c.request(r.TurnID, "ApprovalRequest", r.ID, payload, func(raw json.RawMessage, err error) {
		var resp struct {
			Response string `json:"response"`
			Feedback string `json:"feedback"`
		}
		if err == nil {
			_ = json.Unmarshal(raw, &resp)
		} // an error reply rejects, as in kimi-cli
		d := agent.ApprovalDecision{Reason: resp.Feedback}
		switch resp.Response {
		case "approve":
			d.Approved = true
		case "approve_for_session":
			d.Approved, d.ForSession = true, true
		default:
			c.rejected(r.Call.ID, resp.Feedback)
		}
		_ = w.mgr.Decide(c.sessionID, r.ID, d)
	})
}

// questionRequest puts a tool's questions to a client that declared it can
// answer them; otherwise they are dismissed at once.
func (c *wireConn) questionRequest(w *Wire, q agent.QuestionRequest) {
	c.mu.Lock()
	supported := c.supportsQuestion
	c.mu.Unlock()
	if !supported {
		// Not from deliver itself: it must not call back into the manager.
		go func() { _ = w.mgr.Answer(c.sessionID, q.ID, nil) }()
		return
	}
	questions := []any{}
	for _, qq := range q.Questions {
		questions = append(questions, map[string]any{"question": qq.Question, "header": qq.Header, "options": qq.Options, "multi_select": qq.MultiSelect})
	}
	payload := map[string]any{"id": q.ID, "tool_call_id": q.ToolCallID, "questions": questions}
	c.request(q.TurnID, "QuestionRequest", q.ID, payload, func(raw json.RawMessage, err error) {
		var resp struct {
			Answers map[string]any `json:"answers"`
		}
		if err == nil {
			_ = json.Unmarshal(raw, &resp)
		} // an error reply dismisses the questions, as in kimi-cli
		var answers []agent.Answer
		for question, a := range resp.Answers {
			text, _ := json.Marshal(a)
			if s, ok := a.(string); ok {
				text = []byte(s)
			}
			answers = append(answers, agent.Answer{Question: question, Answer: string(text)})
		}
		_ = w.mgr.Answer(c.sessionID, q.ID, answers)
	})
}
