package acp

import (
	"context"

	"github.com/kast-dev/kast/agent"
)

// The permission options kast offers, one of each ACP kind.
var permissionOptions = []map[string]any{
	{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
	{"optionId": "allow_always", "name": "Always allow this tool in this session", "kind": "allow_always"},
	{"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
	{"optionId": "reject_always", "name": "Always reject this tool in this session", "kind": "reject_always"},
}

// permission asks the client about a guarded call and hands its answer to
// the engine. "Always" is remembered per tool for the session: the engine
// keeps the allowances, the session the rejections. A cancelled request
// means the client is cancelling the turn, so the turn is cancelled rather
// than told the user declined; no answer before the turn ends (a cancel the
// client never confirms) leaves the engine to settle the call as cancelled.
func (ss *session) permission(s *Service, r agent.ApprovalRequest) {
	decide := func(d agent.ApprovalDecision) { _ = s.mgr.Decide(ss.ms.ID(), r.ID, d) }
	ss.mu.Lock()
	rejected, allowed := ss.rejectAlways[r.Call.Name], ss.allowAlways[r.Call.Name]
	ss.mu.Unlock()
	switch {
	case rejected:
		decide(agent.ApprovalDecision{Reason: "the user rejected " + r.Call.Name + " for this session"})
		return
	case allowed: // an answer of an earlier process, from the session file
		decide(agent.ApprovalDecision{Approved: true, ForSession: true})
		return
	}
	params := map[string]any{"sessionId": ss.id, "toolCall": ss.toolCall(r.Call, "", "pending", true), "options": permissionOptions}
	delete(params["toolCall"].(map[string]any), "sessionUpdate")
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if err := ss.call(context.Background(), r.TurnID, "session/request_permission", params, &res); err != nil {
		return
	}
	switch {
	case res.Outcome.Outcome == "cancelled":
		_, _ = s.mgr.CancelTurn(r.TurnID)
	case res.Outcome.OptionID == "allow_once":
		decide(agent.ApprovalDecision{Approved: true})
	case res.Outcome.OptionID == "allow_always":
		ss.mu.Lock()
		ss.allowAlways[r.Call.Name] = true
		ss.mu.Unlock()
		ss.persist()
		decide(agent.ApprovalDecision{Approved: true, ForSession: true})
	case res.Outcome.OptionID == "reject_always":
		ss.mu.Lock()
		ss.rejectAlways[r.Call.Name] = true
		ss.mu.Unlock()
		ss.persist()
		decide(agent.ApprovalDecision{})
	default:
		decide(agent.ApprovalDecision{})
	}
}
