package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Behavior says what turns/start does with input while a turn may be running.
type Behavior string

// Streaming behaviors. Steer sends input to the running turn, which takes
// it between model steps; with no turn running it starts one. "" steers
// while a turn runs, except slash commands, which queue as followUp.
const (
	NewTurn  Behavior = "newTurn"
	FollowUp Behavior = "followUp"
	Steer    Behavior = "steer"
)

// InputError is input the session cannot accept; protocols report it as
// invalid params.
type InputError struct{ Message string }

func (e *InputError) Error() string { return e.Message }

// SessionOptions configures a Session.
type SessionOptions struct {
	ID        string
	Workspace string
	// Log persists messages; nil keeps the conversation in memory only.
	Log *SessionLog
	// History is the conversation so far (from Log when resuming).
	History []Message
	// Provider resolves the model provider when a turn starts, so configuration
	// changes apply to the next turn; an error fails that turn at once.
	Provider func() (Provider, error)
	Tools    Toolset
	// Roots are further workspace roots the tools may use (ToolEnv.Roots).
	Roots []string
	// System is the system prompt; empty means DefaultSystemPrompt.
	System string
	// Sink receives every event of every turn, in order per turn.
	Sink func(Event)
	// OnTurn is told of each turn the session queues, before its queued
	// event: the turns Start creates and the follow-ups that steering a
	// cancelled or failed turn becomes.
	OnTurn func(*Turn)
	// OnQuestion is called when a tool asks the user; nil means the client
	// cannot answer questions.
	OnQuestion func(QuestionRequest)
	// RetryDelays are the waits before each retry of a transient model failure;
	// nil means 1s then 2s (three attempts).
	RetryDelays []time.Duration
	// MaxSteps caps model requests per turn; 0 means 100.
	MaxSteps int
	// Context returns extra system-prompt text for a turn (workspace
	// instructions, retrieved memories); nil adds nothing.
	Context func(in Input) string
	// Compaction returns the automatic compaction policy, read before each
	// model request; nil never compacts on its own.
	Compaction func() CompactionPolicy
	// OnCompaction is told when a compaction starts and ends.
	OnCompaction func(CompactionEvent)
	// OnApproval is called when a turn's approval mode or policy needs the
	// user's approval of a tool call; nil denies every such call.
	OnApproval func(ApprovalRequest)
	// OnApprovalResolved is told how each approval request ended.
	OnApprovalResolved func(ApprovalResolution)
	// OnStep is told as each model request of a turn starts.
	OnStep func(StepEvent)
	// OnToolCallDelta hears tool calls' arguments as the model streams them,
	// before the call's toolCall event.
	OnToolCallDelta func(ToolCallPart)
}

// StepEvent is the start of a turn's Nth model request (from 1).
type StepEvent struct {
	SessionID string
	TurnID    string
	N         int
}

// ToolCallPart is a piece of a tool call a turn's model is streaming.
type ToolCallPart struct {
	SessionID, TurnID string
	ToolCallDelta
}

// ApprovalMode "ask" asks the user before each tool call runs.
const ApprovalAsk = "ask"

// ApprovalRequest is a tool call waiting for the user's approval.
type ApprovalRequest struct {
	SessionID string
	TurnID    string
	ID        string
	Call      ToolCall
	Kind      ToolKind
	// Timeout is how long the request waits before it is rejected; 0 means
	// until the turn ends.
	Timeout time.Duration
}

// QuestionRequest is a tool's question put to the user.
type QuestionRequest struct {
	SessionID string
	TurnID    string
	ID        string
	Questions []Question
	// ToolCallID is the call of the tool that asks.
	ToolCallID string
}

// toolCallKey carries the running tool call's id to what it asks.
type toolCallKey struct{}

// Session runs one conversation's turns: a FIFO queue served by one worker,
// so at most one turn runs at a time.
type Session struct {
	opts  SessionOptions
	reads ReadSet
	// runMu is held by the running turn and by a compaction, so the two never
	// change the history at once.
	runMu      sync.Mutex
	compacting atomic.Bool

	mu      sync.Mutex
	history []Message
	// approved are the tools the user approved for the whole session.
	approved map[string]bool
	queue    []*Turn
	running  *Turn
	working  bool // a worker goroutine is serving the queue
	closed   bool
	idle     chan struct{} // closed when the worker exits; replaced when one starts
}

// DefaultSystemPrompt introduces the agent to the model.
const DefaultSystemPrompt = `You are kast, a coding agent working in a local workspace.
Use the tools to inspect and change files and to run commands. Read a file before editing it.
Keep answers short and precise.`

// NewSession returns a session ready to take turns.
func NewSession(opts SessionOptions) *Session {
	if opts.ID == "" {
		opts.ID = NewID()
	}
	if opts.RetryDelays == nil {
		opts.RetryDelays = []time.Duration{time.Second, 2 * time.Second}
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = 100
	}
	idle := make(chan struct{})
	close(idle)
	return &Session{opts: opts, history: append([]Message(nil), opts.History...), idle: idle}
}

// ID returns the session's id.
func (s *Session) ID() string { return s.opts.ID }

// Workspace returns the session's workspace root.
func (s *Session) Workspace() string { return s.opts.Workspace }

// Log returns the session's log, or nil.
func (s *Session) Log() *SessionLog { return s.opts.Log }

// History returns a copy of the conversation.
func (s *Session) History() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.history...)
}

// Busy reports whether a turn is running or queued.
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running != nil || len(s.queue) > 0
}

// Running returns the running turn, or nil.
func (s *Session) Running() *Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Start queues a turn for in, or steers the running turn with it (see
// Behavior); a steered turn is returned as it is.
func (s *Session) Start(in Input, behavior Behavior) (*Turn, error) {
	if strings.TrimSpace(in.Text) == "" && len(in.Images) == 0 {
		return nil, &InputError{"input is empty"}
	}
	switch behavior {
	case "", NewTurn, FollowUp, Steer:
	default:
		return nil, &InputError{fmt.Sprintf("unsupported streamingBehavior: %s; want newTurn, followUp or steer", behavior)}
	}
	if steers(in, behavior) {
		// A turn that ends, or starts finishing, meanwhile refuses the
		// input, which then queues as a new turn: it is never dropped.
		if running := s.Running(); running != nil && running.steer(in) {
			return running, nil
		}
	}
	t := newTurn(NewID(), s.opts.ID, in, s.opts.Sink)
	if !s.enqueue([]*Turn{t}, false) {
		return nil, &InputError{"the session is closed"}
	}
	return t, nil
}

// enqueue announces turns and queues them, at the front when front is set;
// false if the session is closed. Their queued events go out before the
// worker can see them, so they always precede their started events. Turns
// Close missed while they were announced are cancelled.
func (s *Session) enqueue(turns []*Turn, front bool) bool {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return false
	}
	for _, t := range turns {
		if s.opts.OnTurn != nil {
			s.opts.OnTurn(t)
		}
		t.emit(Event{Kind: EventQueued, Status: StatusQueued})
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		for _, t := range turns {
			t.requestCancel()
		}
		return true
	}
	if front {
		s.queue = append(turns[:len(turns):len(turns)], s.queue...)
	} else {
		s.queue = append(s.queue, turns...)
	}
	if !s.working {
		s.working = true
		s.idle = make(chan struct{})
		go s.work(s.idle)
	}
	s.mu.Unlock()
	return true
}

// Cancel cancels a turn of this session: a queued one never runs, a running
// one stops at the next opportunity. It returns the turn's state.
func (s *Session) Cancel(t *Turn) TurnInfo {
	t.requestCancel()
	return t.Info()
}

// Answer delivers answers to a pending question of the running turn.
func (s *Session) Answer(questionID string, answers []Answer) bool {
	t := s.Running()
	return t != nil && t.answer(questionID, answers)
}

// Close cancels queued and running turns and waits (bounded) for the worker.
func (s *Session) Close() {
	s.mu.Lock()
	s.closed = true
	turns := append([]*Turn(nil), s.queue...)
	if s.running != nil {
		turns = append(turns, s.running)
	}
	idle := s.idle
	s.mu.Unlock()
	for _, t := range turns {
		t.requestCancel()
	}
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
	}
}

func (s *Session) work(idle chan struct{}) {
	defer close(idle)
	for {
		s.runMu.Lock() // waits for a compaction in progress
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.working = false
			s.mu.Unlock()
			s.runMu.Unlock()
			return
		}
		t := s.queue[0]
		s.queue = s.queue[1:]
		s.running = t
		s.mu.Unlock()

		s.run(t)

		s.mu.Lock()
		s.running = nil
		s.mu.Unlock()
		s.runMu.Unlock()
	}
}

// run executes one turn to its terminal event. Steering the turn did not
// take, because it was cancelled or failed first, is not dropped: it runs
// as follow-up turns ahead of the queue, as the input arrived before
// anything queued behind the turn could run.
func (s *Session) run(t *Turn) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if t.begin(cancel) {
		status, err := s.loop(ctx, t)
		t.finish(status, err)
	}
	s.followUp(t, t.takeSteering())
}

func (s *Session) loop(ctx context.Context, t *Turn) (TurnStatus, *TurnError) {
	if s.opts.Provider == nil {
		return StatusFailed, &TurnError{Message: ErrNoProvider.Error(), Code: "PROVIDER_NOT_CONFIGURED"}
	}
	provider, err := s.opts.Provider()
	if err != nil {
		code := "PROVIDER_ERROR"
		if errors.Is(err, ErrNoProvider) {
			code = "PROVIDER_NOT_CONFIGURED"
		}
		return StatusFailed, &TurnError{Message: err.Error(), Code: code}
	}
	if err := s.record(ctx, userMessage(t.input)); err != nil {
		return StatusFailed, err
	}
	if t.input.Run != nil {
		return s.runCommand(ctx, t, provider.Info())
	}
	env := &ToolEnv{Workspace: s.opts.Workspace, Roots: s.opts.Roots, Reads: &s.reads}
	if s.opts.OnQuestion != nil {
		env.Ask = func(ctx context.Context, qs []Question) ([]Answer, error) { return s.ask(ctx, t, qs) }
	}
	var specs []ToolSpec
	if s.opts.Tools != nil {
		specs = s.opts.Tools.Specs()
	}
	if t.input.External != nil {
		specs = append(specs[:len(specs):len(specs)], t.input.External.Specs...)
	}
	system := s.opts.System
	if system == "" {
		system = DefaultSystemPrompt
	}
	if s.opts.Context != nil {
		if extra := s.opts.Context(t.input); extra != "" {
			system += "\n\n" + extra
		}
	}
	info := provider.Info()
	retried := false
	for step := range s.opts.MaxSteps {
		if pol := s.policy(); pol.Auto && pol.ContextWindow > 0 && EstimateTokens(s.History()) > pol.threshold() {
			// A failed automatic compaction is reported by its end event;
			// the request is still tried.
			_, _ = s.compact(ctx, provider, "", true)
		}
		if err := s.inject(ctx, t); err != nil {
			return StatusFailed, err
		}
		req := &ModelRequest{System: system, Messages: s.History(), Tools: specs}
		if s.opts.OnStep != nil && !t.Info().CancelRequested {
			s.opts.OnStep(StepEvent{SessionID: s.opts.ID, TurnID: t.id, N: step + 1})
		}
		resp, err := s.request(ctx, t, provider, req)
		if err != nil && !retried && ctx.Err() == nil && IsContextOverflow(err) {
			retried = true
			if _, cerr := s.compact(ctx, provider, overflowInstructions, true); cerr == nil {
				req.Messages = s.History()
				resp, err = s.request(ctx, t, provider, req)
			}
		}
		if ctx.Err() != nil {
			return StatusCanceled, nil
		}
		if err != nil {
			return StatusFailed, &TurnError{Message: err.Error(), Code: "PROVIDER_ERROR"}
		}
		usage := resp.Usage
		msg := Message{ID: NewID(), Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls,
			ReasoningSummary: resp.Reasoning, Usage: &usage, Provider: info.Name, Model: info.Model}
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = "call_" + NewID()[:12]
			}
		}
		if err := s.record(ctx, msg); err != nil {
			return StatusFailed, err
		}
		t.emit(Event{Kind: EventMessage, Message: &msg})
		for _, call := range msg.ToolCalls {
			if err := s.runTool(ctx, t, env, call); err != nil {
				return StatusFailed, err
			}
		}
		if ctx.Err() != nil {
			return StatusCanceled, nil
		}
		// Steering waiting now makes another step even after a final answer.
		if len(msg.ToolCalls) == 0 && t.settle() {
			t.emit(Event{Kind: EventAnswer, Text: msg.Text})
			return StatusCompleted, nil
		}
	}
	return StatusFailed, &TurnError{Message: fmt.Sprintf("the turn stopped after %d model requests", s.opts.MaxSteps), Code: "MAX_STEPS"}
}

// runTool runs one call and records its result. Once the turn is cancelled the
// call is answered "Cancelled." without running, so the history stays a valid
// conversation for the next turn.
func (s *Session) runTool(ctx context.Context, t *Turn, env *ToolEnv, call ToolCall) *TurnError {
	var result ToolResult
	if ctx.Err() != nil {
		result = ToolResult{Content: "Cancelled.", IsError: true, Failure: FailureCancelled}
	} else {
		t.emit(Event{Kind: EventToolCall, Tool: &ToolEvent{Call: call}})
		ctx := context.WithValue(ctx, toolCallKey{}, call.ID)
		switch ext := t.input.External; {
		case ext.Has(call.Name) && ext.Kind == nil:
			result = ext.Run(ctx, call)
		case ext.Has(call.Name):
			if run, denied, ok := s.gate(ctx, t, call); ok {
				call = run
				result = ext.Run(ctx, call)
			} else {
				result = denied
			}
		case s.opts.Tools == nil:
			result = ToolResult{Content: "Error: no tools are available", IsError: true}
		default:
			if run, denied, ok := s.gate(ctx, t, call); ok {
				call = run
				result = s.opts.Tools.Run(ctx, env, call)
			} else {
				result = denied
			}
		}
		t.emit(Event{Kind: EventToolResult, Tool: &ToolEvent{Call: call, Result: &result}})
	}
	return s.recordNow(ToolMessage(call, result))
}

// request calls the model, retrying transient failures that happened before
// anything was streamed (a retry after deltas would repeat them).
func (s *Session) request(ctx context.Context, t *Turn, p Provider, req *ModelRequest) (*ModelResponse, error) {
	maxAttempts := len(s.opts.RetryDelays) + 1
	for attempt := 1; ; attempt++ {
		streamed := false
		sink := DeltaSink{
			Text:      func(d string) { streamed = true; t.emit(Event{Kind: EventTextDelta, Delta: d}) },
			Reasoning: func(d string) { streamed = true; t.emit(Event{Kind: EventReasoningDelta, Delta: d}) },
			ToolCall: func(d ToolCallDelta) {
				streamed = true
				if s.opts.OnToolCallDelta != nil {
					s.opts.OnToolCallDelta(ToolCallPart{SessionID: s.opts.ID, TurnID: t.id, ToolCallDelta: d})
				}
			},
		}
		resp, err := p.Stream(ctx, req, sink)
		if err == nil || ctx.Err() != nil {
			return resp, err
		}
		var perr *ProviderError
		if attempt >= maxAttempts || streamed || !errors.As(err, &perr) || !perr.Transient {
			return nil, err
		}
		delay := s.opts.RetryDelays[attempt-1]
		info := p.Info()
		t.emit(Event{Kind: EventRetry, Retry: &RetryInfo{Provider: info.Name, Model: info.Model,
			Attempt: attempt + 1, MaxAttempts: maxAttempts, Delay: delay, Error: err.Error()}})
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// runCommand runs a command turn: its output is the answer, without the
// model.
func (s *Session) runCommand(ctx context.Context, t *Turn, info ProviderInfo) (TurnStatus, *TurnError) {
	out, err := t.input.Run(ctx)
	if ctx.Err() != nil {
		return StatusCanceled, nil
	}
	if err != nil {
		return StatusFailed, &TurnError{Message: err.Error(), Code: "COMMAND_FAILED"}
	}
	if out != "" {
		t.emit(Event{Kind: EventTextDelta, Delta: out})
	}
	msg := Message{ID: NewID(), Role: RoleAssistant, Text: out, Provider: info.Name, Model: info.Model}
	if err := s.record(ctx, msg); err != nil {
		return StatusFailed, err
	}
	t.emit(Event{Kind: EventMessage, Message: &msg})
	t.emit(Event{Kind: EventAnswer, Text: out})
	return StatusCompleted, nil
}

func (s *Session) policy() CompactionPolicy {
	var p CompactionPolicy
	if s.opts.Compaction != nil {
		p = s.opts.Compaction()
	}
	return p.withDefaults()
}

// userMessage is the stored form of input; the typed text, when it differs
// from what the model sees (an expanded slash command), is kept for display.
func userMessage(in Input) Message {
	m := Message{Role: RoleUser, Text: in.Text, Images: in.Images}
	if in.Display != "" && in.Display != in.Text {
		d, _ := json.Marshal(in.Display)
		m.Extra = map[string]json.RawMessage{"display_content": d}
	}
	return m
}

// ask registers a question with the turn, tells the client and waits for the
// answer, the turn's end or cancellation.
func (s *Session) ask(ctx context.Context, t *Turn, qs []Question) ([]Answer, error) {
	if err := ValidateQuestions(qs); err != nil {
		return nil, &InputError{err.Error()}
	}
	id := NewID()
	ch := t.addQuestion(id)
	if ch == nil {
		return nil, context.Canceled
	}
	defer t.dropQuestion(id)
	callID, _ := ctx.Value(toolCallKey{}).(string)
	s.opts.OnQuestion(QuestionRequest{SessionID: s.opts.ID, TurnID: t.id, ID: id, Questions: qs, ToolCallID: callID})
	select {
	case answers, ok := <-ch:
		if !ok {
			return nil, context.Canceled
		}
		return answers, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// record appends msg to the history and the log, unless the turn was
// cancelled: a cancelled turn adds nothing more to the conversation.
func (s *Session) record(ctx context.Context, msg Message) *TurnError {
	if ctx.Err() != nil {
		return nil
	}
	return s.recordNow(msg)
}

func (s *Session) recordNow(msg Message) *TurnError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.Log != nil {
		stored, err := s.opts.Log.AppendMessage(msg)
		if err != nil {
			return &TurnError{Message: "writing the session file: " + err.Error(), Code: "SESSION_WRITE_FAILED"}
		}
		msg = stored
	}
	s.history = append(s.history, msg)
	return nil
}

// NewID returns a random 32-hex-digit id.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
