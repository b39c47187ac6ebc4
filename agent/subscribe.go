package agent

import (
	"sync"
)

// Update is one thing a session's subscribers are told, in the order it
// happened. Exactly one field besides SessionID is set.
type Update struct {
	SessionID string
	// Event is a turn's event. Per turn, sequence numbers rise by one from 1
	// and the finished event comes after every other event of the turn.
	Event *Event
	// Question is a tool's question to the user; Manager.Answer answers it.
	Question *QuestionRequest
	// Approval is a tool call waiting for the user; Manager.Approve answers it.
	Approval *ApprovalRequest
	// Compaction is a compaction's start or end; it belongs to no turn.
	Compaction *CompactionEvent
	// ApprovalResolved says how an approval request ended.
	ApprovalResolved *ApprovalResolution
	// Step is the start of a turn's model request.
	Step *StepEvent
	// ToolCallPart is a piece of a tool call the model is streaming.
	ToolCallPart *ToolCallPart
}

// TurnID returns the turn the update belongs to, or "" for a session-level
// update.
func (u Update) TurnID() string {
	switch {
	case u.Event != nil:
		return u.Event.TurnID
	case u.Question != nil:
		return u.Question.TurnID
	case u.Approval != nil:
		return u.Approval.TurnID
	case u.ToolCallPart != nil:
		return u.ToolCallPart.TurnID
	case u.ApprovalResolved != nil:
		return u.ApprovalResolved.TurnID
	case u.Step != nil:
		return u.Step.TurnID
	}
	return ""
}

// terminal reports whether u is a turn's finished event.
func (u Update) terminal() bool { return u.Event != nil && u.Event.Kind == EventFinished }

// SubscribeOptions says which updates a subscription receives.
type SubscribeOptions struct {
	// TurnID limits the subscription to one turn's updates; it ends after
	// delivering the turn's finished event (at once for a finished turn
	// without Replay).
	TurnID string
	// Replay, with TurnID, first delivers the turn's kept events whose
	// sequence number is above After, then the live ones: none is missed and
	// none is delivered twice. Only events replay: a question or approval
	// is never asked again.
	Replay bool
	After  int64
	// Slot, when set, makes the subscription replace (and end) the session's
	// earlier subscription in the same slot. A projection whose protocol
	// sends a session's updates to one client at a time uses one slot.
	Slot string
}

// Subscription is one subscriber's registration with a session.
//
// Its deliver function is called on the goroutine that produced the update,
// one update at a time, before that goroutine goes on: a turn's updates are
// all delivered before its finished event, and that before the call that
// ended the turn (such as Manager.CancelTurn) returns. deliver must not
// block for long and must not call back into the Manager or the turn, nor
// subscribe; it may close subscriptions.
type Subscription struct {
	opts    SubscribeOptions
	deliver func(Update)
	once    sync.Once
	done    chan struct{}
}

// Close ends the subscription: no delivery starts after it returns. It is
// safe to call more than once, and from deliver.
func (s *Subscription) Close() { s.once.Do(func() { close(s.done) }) }

// Done is closed when the subscription ends: closed, replaced in its slot,
// past its turn's finished event, or its session closed.
func (s *Subscription) Done() <-chan struct{} { return s.done }

func (s *Subscription) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *Subscription) wants(u Update) bool {
	return s.opts.TurnID == "" || s.opts.TurnID == u.TurnID()
}

// hub fans one session's updates out to its subscriptions. Delivery holds
// mu, so each subscriber sees one update at a time, and adding a
// subscription (or replacing a slot's) neither loses nor repeats an update.
// Lock order: a turn's mutex, then mu (a turn's events are published while
// the turn holds its mutex).
type hub struct {
	mu     sync.Mutex
	subs   []*Subscription
	closed bool
}

// publish delivers u to the subscriptions that want it and drops the ended
// ones.
func (h *hub) publish(u Update) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	live := h.subs[:0]
	for _, s := range h.subs {
		if !s.ended() && s.wants(u) {
			s.deliver(u)
			if s.opts.TurnID != "" && u.terminal() {
				s.Close()
			}
		}
		if !s.ended() {
			live = append(live, s)
		}
	}
	clear(h.subs[len(live):])
	h.subs = live
}

// add registers s after delivering replay to it; finished says the turn of
// a turn subscription has already ended, so s ends once replayed. It fails
// once the session is closed.
func (h *hub) add(s *Subscription, replay []Event, finished bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errSessionClosed
	}
	if s.opts.Slot != "" {
		for _, o := range h.subs {
			if o.opts.Slot == s.opts.Slot {
				o.Close()
			}
		}
	}
	for _, ev := range replay {
		if s.ended() {
			break
		}
		s.deliver(Update{SessionID: ev.SessionID, Event: &ev})
	}
	if finished {
		s.Close()
	}
	if !s.ended() {
		h.subs = append(h.subs, s)
	}
	return nil
}

// close ends every subscription; later updates go nowhere.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, s := range h.subs {
		s.Close()
	}
	h.subs = nil
}
