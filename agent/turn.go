package agent

import (
	"context"
	"sync"
	"time"
)

// ReplayLimit is how many recent events a turn keeps for replay.
const ReplayLimit = 1000

// Input is what the user sends to start or steer a turn.
type Input struct {
	Text   string
	Images []Image
	// Display is what the user typed when Text is its expansion (a slash
	// command); "" means Text.
	Display string
	// ApprovalMode ApprovalAsk asks before each tool call; "" runs them.
	ApprovalMode string
	// Approval, when set, is the turn's approval policy instead.
	Approval *ApprovalPolicy
	// External are tools the client runs, offered besides the session's.
	External *ExternalTools
	// Run, when set, produces the turn's answer instead of the model (a
	// plugin command).
	Run func(ctx context.Context) (string, error)
}

// TurnInfo is a consistent snapshot of a turn's state.
type TurnInfo struct {
	ID              string
	SessionID       string
	Status          TurnStatus
	CancelRequested bool
	CreatedAt       time.Time
	StartedAt       time.Time // zero until running
	FinishedAt      time.Time // zero until terminal
	Err             *TurnError
	LastSeq         int64
}

// Turn is one user input and the model and tool work it causes. Its events
// are numbered, kept for replay and passed to the session's sink in order;
// exactly one finished event ends it.
type Turn struct {
	id        string
	sessionID string
	input     Input
	sink      func(Event)
	done      chan struct{}

	// mu guards the state and serializes emission, so sequence numbers and
	// the sink see events in one order.
	mu              sync.Mutex
	status          TurnStatus
	cancelRequested bool
	createdAt       time.Time
	startedAt       time.Time
	finishedAt      time.Time
	err             *TurnError
	seq             int64
	events          []Event // ring buffer of the last ReplayLimit events
	oldest          int     // index of the oldest event once the ring is full
	cancel          context.CancelFunc
	steering        []steered // input waiting for the next model step
	settled         bool      // the turn is finishing: no more steering
	questions       map[string]chan []Answer
	approvals       map[string]chan ApprovalDecision
}

func newTurn(id, sessionID string, in Input, sink func(Event)) *Turn {
	return &Turn{id: id, sessionID: sessionID, input: in, sink: sink, done: make(chan struct{}),
		status: StatusQueued, createdAt: time.Now().UTC()}
}

// ID returns the turn's id.
func (t *Turn) ID() string { return t.id }

// Done is closed once the turn's terminal event has been emitted.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Info returns a snapshot of the turn.
func (t *Turn) Info() TurnInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return TurnInfo{ID: t.id, SessionID: t.sessionID, Status: t.status, CancelRequested: t.cancelRequested,
		CreatedAt: t.createdAt, StartedAt: t.startedAt, FinishedAt: t.finishedAt, Err: t.err, LastSeq: t.seq}
}

// Events returns the kept events with a sequence number above after.
func (t *Turn) Events(after int64) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.eventsLocked(after)
}

// observe runs f with the kept events after after and whether the turn has
// ended, while no event can be emitted: a subscriber added by f misses no
// event and sees none twice.
func (t *Turn) observe(after int64, f func(events []Event, finished bool)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(t.eventsLocked(after), t.status.Terminal())
}

func (t *Turn) eventsLocked(after int64) []Event {
	var out []Event
	for i := range t.events {
		if ev := t.events[(t.oldest+i)%len(t.events)]; ev.Seq > after {
			out = append(out, ev)
		}
	}
	return out
}

// emit records and forwards ev. After a cancel request only the terminal
// event gets through, and nothing after it.
func (t *Turn) emit(ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.Terminal() || t.cancelRequested {
		return
	}
	t.emitLocked(ev)
}

func (t *Turn) emitLocked(ev Event) {
	t.seq++
	ev.Seq, ev.Time, ev.SessionID, ev.TurnID = t.seq, time.Now().UTC(), t.sessionID, t.id
	if len(t.events) < ReplayLimit {
		t.events = append(t.events, ev)
	} else {
		t.events[t.oldest] = ev
		t.oldest = (t.oldest + 1) % ReplayLimit
	}
	if t.sink != nil {
		t.sink(ev)
	}
}

// begin moves a queued turn to running; false if it was cancelled meanwhile.
func (t *Turn) begin(cancel context.CancelFunc) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status != StatusQueued || t.cancelRequested {
		return false
	}
	t.status, t.startedAt, t.cancel = StatusRunning, time.Now().UTC(), cancel
	text := t.input.Display
	if text == "" {
		text = t.input.Text
	}
	t.emitLocked(Event{Kind: EventStarted, Status: StatusRunning, Text: text})
	return true
}

// finish emits the terminal event (preceded by an error event for a failure)
// and resolves pending questions. Only the first call has an effect.
func (t *Turn) finish(status TurnStatus, err *TurnError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finishLocked(status, err)
}

func (t *Turn) finishLocked(status TurnStatus, err *TurnError) {
	if t.status.Terminal() {
		return
	}
	if t.cancelRequested {
		status, err = StatusCanceled, nil
	}
	if status == StatusFailed {
		t.emitLocked(Event{Kind: EventError, Err: err})
	}
	t.status, t.err, t.finishedAt = status, err, time.Now().UTC()
	t.emitLocked(Event{Kind: EventFinished, Status: status, Err: err})
	for id, ch := range t.questions {
		close(ch) // a closed channel reads as "no answer": cancelled
		delete(t.questions, id)
	}
	for id, ch := range t.approvals {
		close(ch) // reads as no decision: denied
		delete(t.approvals, id)
	}
	if t.cancel != nil {
		t.cancel()
	}
	close(t.done)
}

// requestCancel marks the turn cancelled: a queued turn ends at once, a
// running one has its context cancelled, which closes the provider stream and
// wakes pending questions.
func (t *Turn) requestCancel() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.Terminal() || t.cancelRequested {
		return
	}
	t.emitLocked(Event{Kind: EventCancelRequested})
	t.cancelRequested = true
	switch t.status {
	case StatusQueued:
		t.finishLocked(StatusCanceled, nil)
	case StatusRunning:
		t.cancel()
	}
}

// addQuestion registers a pending question; nil if the turn is ending.
func (t *Turn) addQuestion(id string) chan []Answer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.Terminal() || t.cancelRequested {
		return nil
	}
	if t.questions == nil {
		t.questions = map[string]chan []Answer{}
	}
	ch := make(chan []Answer, 1)
	t.questions[id] = ch
	return ch
}

// answer delivers answers to a pending question; false if none is pending.
func (t *Turn) answer(id string, answers []Answer) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch, ok := t.questions[id]
	if ok {
		delete(t.questions, id)
		ch <- answers
	}
	return ok
}

func (t *Turn) dropQuestion(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.questions, id)
}

// addApproval registers a pending approval; nil if the turn is ending.
func (t *Turn) addApproval(id string) chan ApprovalDecision {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.Terminal() || t.cancelRequested {
		return nil
	}
	if t.approvals == nil {
		t.approvals = map[string]chan ApprovalDecision{}
	}
	ch := make(chan ApprovalDecision, 1)
	t.approvals[id] = ch
	return ch
}

// decide answers a pending approval; false if none is pending.
func (t *Turn) decide(id string, d ApprovalDecision) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch, ok := t.approvals[id]
	if ok {
		delete(t.approvals, id)
		ch <- d
	}
	return ok
}

func (t *Turn) dropApproval(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.approvals, id)
}
