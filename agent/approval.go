package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Approvals: which tool calls wait for the user, and what the answer does.

// ToolKind classifies a tool for approval policies.
type ToolKind string

// Tool kinds. Reads (files, listings, code intelligence, questions) change
// nothing; writes change files; commands run programs.
const (
	KindRead    ToolKind = "read"
	KindWrite   ToolKind = "write"
	KindCommand ToolKind = "command"
	KindOther   ToolKind = "other"
)

// ToolKinds is implemented by toolsets that classify their tools; a tool of
// a toolset that does not is of KindOther.
type ToolKinds interface {
	Kind(name string) ToolKind
}

// Kind classifies a tool of the runtime's toolset.
func (t procTools) Kind(name string) ToolKind { return kindOf(t.Toolset, name) }

func kindOf(ts Toolset, name string) ToolKind {
	if k, ok := ts.(ToolKinds); ok {
		return k.Kind(name)
	}
	return KindOther
}

// ApprovalPolicy says which tool calls of a turn wait for the user's
// approval. A turn without one asks before every call when its
// ApprovalMode is ApprovalAsk.
type ApprovalPolicy struct {
	// Ask lists the kinds that ask; nil asks every kind.
	Ask []ToolKind
	// Deny lists kinds refused without asking (a read-only plan mode);
	// DenyReason is what the model is told.
	Deny       []ToolKind
	DenyReason string
	// Timeout rejects an approval unanswered this long; 0 waits until the
	// turn ends.
	Timeout time.Duration
}

// ApprovalDecision is the user's answer to an approval request.
type ApprovalDecision struct {
	Approved bool
	// ForSession approves later calls of the same tool in this session
	// without asking.
	ForSession bool
	// Reason, on a rejection, is told to the model.
	Reason string
	// Modify replaces top-level fields of the call's arguments before it
	// runs.
	Modify map[string]json.RawMessage
}

// Approval outcomes, as ApprovalResolution reports them.
const (
	ApprovalApproved           = "approved"
	ApprovalApprovedForSession = "approvedForSession"
	ApprovalRejected           = "rejected"
	ApprovalTimedOut           = "timedOut"
	ApprovalCancelled          = "cancelled"
)

// ApprovalResolution is how a pending approval ended: the user's answer,
// its timeout, or its turn's end.
type ApprovalResolution struct {
	SessionID string
	TurnID    string
	ID        string
	Outcome   string
	Reason    string
}

// gate decides whether call runs: it returns the call to run (with the
// user's modifications) and true, or the result the model gets instead.
func (s *Session) gate(ctx context.Context, t *Turn, call ToolCall) (ToolCall, ToolResult, bool) {
	pol := t.input.Approval
	if pol == nil {
		if t.input.ApprovalMode != ApprovalAsk {
			return call, ToolResult{}, true
		}
		pol = &ApprovalPolicy{}
	}
	if call.Name == "ask_user_question" {
		return call, ToolResult{}, true
	}
	kind := kindOf(s.opts.Tools, call.Name)
	if ext := t.input.External; ext.Has(call.Name) && ext.Kind != nil {
		kind = ext.Kind(call.Name)
	}
	if slices.Contains(pol.Deny, kind) {
		reason := pol.DenyReason
		if reason == "" {
			reason = "this kind of tool is not allowed now"
		}
		return call, ToolResult{Content: "Rejected: " + reason, IsError: true, Failure: FailureDenied}, false
	}
	if (pol.Ask != nil && !slices.Contains(pol.Ask, kind)) || s.remembered(call.Name) {
		return call, ToolResult{}, true
	}
	d, outcome := s.approve(ctx, t, call, kind, pol.Timeout)
	switch {
	case ctx.Err() != nil:
		return call, ToolResult{Content: "Cancelled.", IsError: true, Failure: FailureCancelled}, false
	case outcome == ApprovalTimedOut:
		return call, ToolResult{Content: fmt.Sprintf("Declined: the approval request got no answer within %s; the tool did not run.", pol.Timeout), IsError: true, Failure: FailureRejected}, false
	case !d.Approved:
		msg := "Declined: the user did not approve this tool call."
		if d.Reason != "" {
			msg = "Declined: the user did not approve this tool call: " + d.Reason
		}
		return call, ToolResult{Content: msg, IsError: true, Failure: FailureRejected}, false
	}
	if d.ForSession {
		s.remember(call.Name)
	}
	if len(d.Modify) > 0 {
		call.Arguments = modifyArgs(call.Arguments, d.Modify)
	}
	return call, ToolResult{}, true
}

// modifyArgs replaces top-level fields of a JSON object of arguments;
// arguments that are not an object are replaced by the fields.
func modifyArgs(args string, modify map[string]json.RawMessage) string {
	obj := map[string]json.RawMessage{}
	_ = json.Unmarshal([]byte(args), &obj)
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	for k, v := range modify {
		obj[k] = v
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return string(out)
}

// approve asks the user to approve call and waits for the answer, the
// timeout (0: none), or the turn's end or cancellation, which deny it. How
// it ended is reported to OnApprovalResolved.
func (s *Session) approve(ctx context.Context, t *Turn, call ToolCall, kind ToolKind, timeout time.Duration) (ApprovalDecision, string) {
	if s.opts.OnApproval == nil {
		return ApprovalDecision{}, ApprovalRejected
	}
	id := NewID()
	ch := t.addApproval(id)
	if ch == nil {
		return ApprovalDecision{}, ApprovalCancelled
	}
	defer t.dropApproval(id)
	s.opts.OnApproval(ApprovalRequest{SessionID: s.opts.ID, TurnID: t.id, ID: id, Call: call, Kind: kind, Timeout: timeout})
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	var d ApprovalDecision
	outcome := ApprovalCancelled
	select {
	case got, ok := <-ch:
		if ok {
			d, outcome = got, ApprovalRejected
			if d.Approved {
				outcome = ApprovalApproved
				if d.ForSession {
					outcome = ApprovalApprovedForSession
				}
			}
		}
	case <-ctx.Done():
	case <-expired:
		// A late answer finds nothing pending.
		t.dropApproval(id)
		outcome = ApprovalTimedOut
	}
	if s.opts.OnApprovalResolved != nil {
		s.opts.OnApprovalResolved(ApprovalResolution{SessionID: s.opts.ID, TurnID: t.id, ID: id, Outcome: outcome, Reason: d.Reason})
	}
	return d, outcome
}

// Approve answers a pending approval of the running turn.
func (s *Session) Approve(approvalID string, approved bool) bool {
	return s.Decide(approvalID, ApprovalDecision{Approved: approved})
}

// Decide answers a pending approval of the running turn with a decision.
func (s *Session) Decide(approvalID string, d ApprovalDecision) bool {
	t := s.Running()
	return t != nil && t.decide(approvalID, d)
}

// remembered reports whether the user approved the tool for the session.
func (s *Session) remembered(tool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.approved[tool]
}

func (s *Session) remember(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.approved == nil {
		s.approved = map[string]bool{}
	}
	s.approved[tool] = true
}
