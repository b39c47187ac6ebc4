package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// kindTools offers a read and a write tool, classified by Kind.
type kindTools struct{}

func (kindTools) Specs() []ToolSpec {
	return []ToolSpec{{Name: "look", Parameters: map[string]any{"type": "object"}}, {Name: "put", Parameters: map[string]any{"type": "object"}}}
}
func (kindTools) Run(_ context.Context, _ *ToolEnv, call ToolCall) ToolResult {
	return ToolResult{Content: call.Name + " " + call.Arguments}
}
func (kindTools) Kind(name string) ToolKind {
	if name == "put" {
		return KindWrite
	}
	return KindRead
}

// approvalSession answers each approval with the next decision of answers
// (none: leaves it pending) and records the resolutions.
func approvalSession(t *testing.T, p Provider, answers ...*ApprovalDecision) (*Session, *recorder, *[]ApprovalResolution) {
	t.Helper()
	var mu sync.Mutex
	var resolved []ApprovalResolution
	rec := &recorder{}
	var s *Session
	s = NewSession(SessionOptions{
		Workspace: t.TempDir(),
		Provider:  func() (Provider, error) { return p, nil },
		Tools:     kindTools{},
		Sink:      rec.sink,
		OnApproval: func(r ApprovalRequest) {
			mu.Lock()
			var d *ApprovalDecision
			if len(answers) > 0 {
				d, answers = answers[0], answers[1:]
			}
			mu.Unlock()
			if d != nil {
				go s.Decide(r.ID, *d)
			}
		},
		OnApprovalResolved: func(r ApprovalResolution) {
			mu.Lock()
			defer mu.Unlock()
			resolved = append(resolved, r)
		},
	})
	t.Cleanup(s.Close)
	return s, rec, &resolved
}

func toolResults(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind == EventToolResult {
			out = append(out, ev.Tool.Result.Content)
		}
	}
	return out
}

// A policy asks only for the kinds it lists; approving for the session
// stops later calls of the tool from asking; modifications replace
// argument fields.
func TestApprovalPolicyKindsSessionAndModifications(t *testing.T) {
	p := &scripted{steps: []step{
		{calls: []ToolCall{{ID: "c1", Name: "look", Arguments: `{}`}, {ID: "c2", Name: "put", Arguments: `{"path":"a","content":"x"}`}}},
		{calls: []ToolCall{{ID: "c3", Name: "put", Arguments: `{"path":"b"}`}}},
		{deltas: []string{"ok"}},
	}}
	s, rec, resolved := approvalSession(t, p, &ApprovalDecision{Approved: true, ForSession: true, Modify: map[string]json.RawMessage{"content": json.RawMessage(`"y"`)}})
	turn, _ := s.Start(Input{Text: "go", Approval: &ApprovalPolicy{Ask: []ToolKind{KindWrite}}}, "")
	waitDone(t, turn)
	got := toolResults(rec.forTurn(turn.ID()))
	want := []string{"look {}", `put {"content":"y","path":"a"}`, `put {"path":"b"}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("results %q, want %q", got, want)
	}
	if len(*resolved) != 1 || (*resolved)[0].Outcome != ApprovalApprovedForSession {
		t.Fatalf("resolutions %+v: want one, approved for the session", *resolved)
	}
}

// An approval unanswered within the policy's timeout is rejected and the
// model is told; a denied kind is refused without asking.
func TestApprovalTimeoutAndDeny(t *testing.T) {
	p := &scripted{steps: []step{
		{calls: []ToolCall{{ID: "c1", Name: "put", Arguments: `{}`}}},
		{deltas: []string{"ok"}},
	}}
	s, rec, resolved := approvalSession(t, p)
	turn, _ := s.Start(Input{Text: "go", Approval: &ApprovalPolicy{Timeout: 20 * time.Millisecond}}, "")
	waitDone(t, turn)
	if got := toolResults(rec.forTurn(turn.ID())); len(got) != 1 || !strings.Contains(got[0], "no answer within 20ms") {
		t.Fatalf("results %q", got)
	}
	if len(*resolved) != 1 || (*resolved)[0].Outcome != ApprovalTimedOut {
		t.Fatalf("resolutions %+v", *resolved)
	}
	p2 := &scripted{steps: []step{{calls: []ToolCall{{ID: "c2", Name: "put", Arguments: `{}`}}}, {deltas: []string{"ok"}}}}
	s2, rec2, resolved2 := approvalSession(t, p2)
	turn2, _ := s2.Start(Input{Text: "go", Approval: &ApprovalPolicy{Deny: []ToolKind{KindWrite}, DenyReason: "plan mode"}}, "")
	waitDone(t, turn2)
	if got := toolResults(rec2.forTurn(turn2.ID())); len(got) != 1 || got[0] != "Rejected: plan mode" {
		t.Fatalf("results %q", got)
	}
	if len(*resolved2) != 0 {
		t.Fatalf("a denied kind asked: %+v", *resolved2)
	}
}
