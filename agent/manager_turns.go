package agent

import (
	"context"
	"errors"
	"slices"
)

// The Manager's turns, their questions and approvals, compaction, memory
// and subscriptions.

// ErrQuestionNotPending is returned by Answer for a question that was
// answered already or whose turn ended.
var ErrQuestionNotPending = errors.New("the question is not pending: it was answered, or its turn ended")

// ErrApprovalNotPending is returned by Approve for an approval that was
// answered already or whose turn ended.
var ErrApprovalNotPending = errors.New("the approval is not pending: it was answered, or its turn ended")

// errSessionClosed is a subscription to a session closed meanwhile.
var errSessionClosed = errors.New("the session is closed")

// TurnRequest is what a client asks a turn to do.
type TurnRequest struct {
	// Text is the user's input; a slash command expands (a prompt or skill)
	// or runs without the model (a plugin).
	Text         string
	Images       []Image
	ApprovalMode string // ApprovalAsk asks before each tool call; "" runs them
	// Approval, when set, is the turn's approval policy (see ApprovalPolicy).
	Approval *ApprovalPolicy
	// External are tools the client runs (see ExternalTools).
	External *ExternalTools
	Behavior Behavior
}

// StartTurn queues a turn in the session, or steers its running turn (see
// Session.Start and Behavior); a steered turn keeps its approval mode.
// Input the session cannot take is an *InputError.
func (m *Manager) StartTurn(sessionID string, req TurnRequest) (*Turn, error) {
	ms, err := m.Session(sessionID)
	if err != nil {
		return nil, err
	}
	in := m.expandInput(ms, req.Text)
	in.Images, in.ApprovalMode, in.Approval, in.External = req.Images, req.ApprovalMode, req.Approval, req.External
	return ms.rt.Start(in, req.Behavior)
}

// addTurn registers a turn the session queued, so it can be addressed by
// id: the client's own, and the follow-ups its steering may become.
func (m *Manager) addTurn(t *Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns[t.ID()] = t
}

// expandInput turns slash-command input into the turn to run: a prompt or
// skill expands, a plugin runs without the model, anything else is literal.
func (m *Manager) expandInput(ms *ManagedSession, input string) Input {
	name, args, ok := SplitSlash(input)
	if !ok {
		return Input{Text: input}
	}
	res := LoadResources(ms.workspace, m.opts.ConfigDir)
	if p, ok := res.Plugin(name); ok {
		return Input{Text: input, Run: func(ctx context.Context) (string, error) { return p.Run(ctx, ms.workspace, args) }}
	}
	if text, ok := res.Expand(name, args); ok {
		return Input{Text: text, Display: input}
	}
	return Input{Text: input}
}

// Turn returns a turn of an open session.
func (m *Manager) Turn(id string) (*Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.turns[id]
	if !ok {
		return nil, &NotFoundError{Kind: "turn", ID: id}
	}
	return t, nil
}

// CancelTurn cancels a turn: a queued one never runs, a running one stops at
// the next opportunity. A queued turn's finished event has been delivered
// when it returns.
func (m *Manager) CancelTurn(id string) (TurnInfo, error) {
	t, err := m.Turn(id)
	if err != nil {
		return TurnInfo{}, err
	}
	t.requestCancel()
	return t.Info(), nil
}

// TurnEvents returns the turn's kept events with a sequence number above
// after, and the turn's state once they were read.
func (m *Manager) TurnEvents(id string, after int64) (TurnInfo, []Event, error) {
	t, err := m.Turn(id)
	if err != nil {
		return TurnInfo{}, nil, err
	}
	events := t.Events(after)
	return t.Info(), events, nil
}

// Answer delivers answers to a pending question of the session's running
// turn.
func (m *Manager) Answer(sessionID, questionID string, answers []Answer) error {
	ms, err := m.Session(sessionID)
	if err != nil {
		return err
	}
	if !ms.rt.Answer(questionID, answers) {
		return ErrQuestionNotPending
	}
	return nil
}

// Approve answers a pending approval of the session's running turn.
func (m *Manager) Approve(sessionID, approvalID string, approved bool) error {
	return m.Decide(sessionID, approvalID, ApprovalDecision{Approved: approved})
}

// Decide answers a pending approval of the session's running turn with a
// full decision: for the session, with a reason or modified arguments.
func (m *Manager) Decide(sessionID, approvalID string, d ApprovalDecision) error {
	ms, err := m.Session(sessionID)
	if err != nil {
		return err
	}
	if !ms.rt.Decide(approvalID, d) {
		return ErrApprovalNotPending
	}
	return nil
}

// Compact summarizes the session's older conversation (see Session.Compact);
// subscribers receive its start and end.
func (m *Manager) Compact(ctx context.Context, sessionID, instructions string) (*CompactionResult, error) {
	ms, err := m.Session(sessionID)
	if err != nil {
		return nil, err
	}
	return ms.rt.Compact(ctx, instructions)
}

// Subscribe registers deliver for the updates of a session, or with
// opts.TurnID of one turn (sessionID may then be ""). See Subscription for
// how deliver is called.
func (m *Manager) Subscribe(sessionID string, opts SubscribeOptions, deliver func(Update)) (*Subscription, error) {
	var turn *Turn
	if opts.TurnID != "" {
		t, err := m.Turn(opts.TurnID)
		if err != nil {
			return nil, err
		}
		if sessionID != "" && t.sessionID != sessionID {
			return nil, &NotFoundError{Kind: "turn", ID: opts.TurnID}
		}
		turn, sessionID = t, t.sessionID
	}
	ms, err := m.Session(sessionID)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{opts: opts, deliver: deliver, done: make(chan struct{})}
	if turn == nil {
		err = ms.hub.add(sub, nil, false)
	} else {
		turn.observe(opts.After, func(events []Event, finished bool) {
			if !opts.Replay {
				events = nil
			}
			err = ms.hub.add(sub, events, finished)
		})
	}
	if errors.Is(err, errSessionClosed) {
		return nil, &NotFoundError{Kind: "session", ID: sessionID}
	}
	return sub, err
}

// observe is run for every event of the session's turns before subscribers
// get it: telemetry, and a completed turn's memories, summarized before its
// finished event goes out so clients see them once it has.
func (m *Manager) observe(ms *ManagedSession, ev Event) {
	if m.opts.Telemetry != nil {
		m.opts.Telemetry.Observe(ev)
	}
	if ev.Kind == EventFinished && ev.Status == StatusCompleted {
		m.autoSummarize(ms)
	}
	if ev.Kind == EventFinished {
		m.retireTurn(ms, ev.TurnID)
	}
}

// keepFinishedTurns is how many ended turns of a session stay addressable
// (turns/status, turns/events) with their events: a session that runs for
// days must not keep every turn's stream in memory. Its conversation is in
// its history and file; the older turns' ids answer as unknown.
const keepFinishedTurns = 32

// retireTurn records that a turn ended and forgets the session's oldest
// ended turns beyond keepFinishedTurns.
func (m *Manager) retireTurn(ms *ManagedSession, turnID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms.finished = append(ms.finished, turnID)
	if excess := len(ms.finished) - keepFinishedTurns; excess > 0 {
		for _, id := range ms.finished[:excess] {
			delete(m.turns, id)
		}
		ms.finished = slices.Delete(ms.finished, 0, excess)
	}
}

// Memory and resources.

// turnContext adds the workspace's and user's AGENTS.md and, for
// interactive turns with memory enabled, the retrieved memories.
func (m *Manager) turnContext(ms *ManagedSession, in Input) string {
	text := LoadResources(ms.workspace, m.opts.ConfigDir).ContextPrompt()
	if m.opts.Memory == nil || in.Run != nil {
		return text
	}
	if cfg, err := m.Config(); err == nil && cfg.Memory.Enabled {
		if r, err := m.opts.Memory.Retrieve(in.Text, ms.workspace); err == nil {
			ms.retrieval.Store(&r)
			m.lastRetrieval.Store(&r)
			if p := r.Prompt(); p != "" {
				text += "\n\n" + p
			}
		}
	}
	return text
}

// LastRetrieval returns the latest memory retrieval of any session, or nil.
func (m *Manager) LastRetrieval() *Retrieval { return m.lastRetrieval.Load() }

// autoSummarize infers soft memories from a completed turn's input when
// memory and auto-summary are both on.
func (m *Manager) autoSummarize(ms *ManagedSession) {
	if m.opts.Memory == nil {
		return
	}
	cfg, err := m.Config()
	if err != nil || !cfg.Memory.Enabled || !cfg.Memory.AutoSummary {
		return
	}
	history := ms.rt.History()
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == RoleUser {
			for _, text := range Infer(history[i:]) {
				_, _ = m.opts.Memory.AddSoft(MemoryInput{Text: text, Scope: "workspace:" + ms.workspace}, true)
			}
			return
		}
	}
}

// SummarizeMemories infers soft memories from the whole conversation and
// stores them under the session's workspace.
func (m *Manager) SummarizeMemories(sessionID string) ([]SoftMemory, error) {
	ms, err := m.Session(sessionID)
	if err != nil {
		return nil, err
	}
	memories := []SoftMemory{}
	if m.opts.Memory == nil {
		return memories, nil
	}
	for _, text := range Infer(ms.rt.History()) {
		mem, err := m.opts.Memory.AddSoft(MemoryInput{Text: text, Scope: "workspace:" + ms.workspace}, true)
		if err != nil {
			return nil, err
		}
		memories = append(memories, mem)
	}
	return memories, nil
}

// Resources loads the session's workspace's and the user's resources, and
// returns the workspace; with sessionID "" the launch directory is the
// workspace.
func (m *Manager) Resources(sessionID string) (*Resources, string, error) {
	workspace := m.opts.LaunchDir
	if sessionID != "" {
		ms, err := m.Session(sessionID)
		if err != nil {
			return nil, "", err
		}
		workspace = ms.workspace
	}
	return LoadResources(workspace, m.opts.ConfigDir), workspace, nil
}
