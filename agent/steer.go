package agent

import (
	"context"
	"time"
)

// Steering: input sent while a turn runs joins it between model steps.

// steers reports whether in goes to the running turn. A plugin command
// never does (it answers without the model); by default neither does a
// slash command, as Kward queues busy slash commands.
func steers(in Input, behavior Behavior) bool {
	switch {
	case in.Run != nil:
		return false
	case behavior == Steer:
		return true
	}
	return behavior == "" && in.Display == ""
}

// Pending is how many inputs wait: queued turns, and steering the running
// turn has not taken yet.
func (s *Session) Pending() int {
	s.mu.Lock()
	n, running := len(s.queue), s.running
	s.mu.Unlock()
	if running != nil {
		n += running.pendingSteering()
	}
	return n
}

// followUp queues the steering inputs t left as turns of their own, unless
// the session is closing. One sent without an approval mode keeps t's, so
// cancelling a turn that asks before each tool call never lets its
// steering run tools unasked.
func (s *Session) followUp(t *Turn, left []steered) {
	if len(left) == 0 {
		return
	}
	turns := make([]*Turn, len(left))
	for i, st := range left {
		if st.in.ApprovalMode == "" && st.in.Approval == nil {
			st.in.ApprovalMode, st.in.Approval = t.input.ApprovalMode, t.input.Approval
		}
		if st.in.External == nil {
			st.in.External = t.input.External
		}
		turns[i] = newTurn(NewID(), s.opts.ID, st.in, s.opts.Sink)
	}
	s.enqueue(turns, true)
}

// inject adds the steering waiting for this step to the conversation as
// user messages, persisted in order, and emits a steered event for each.
// It runs only between model steps, after the previous response's tool
// results, so no provider sees input inside a tool call and its result.
// Input not added because the turn was cancelled or the write failed goes
// back to the turn, to run as a follow-up.
func (s *Session) inject(ctx context.Context, t *Turn) *TurnError {
	pending := t.takeSteering()
	for i, st := range pending {
		if ctx.Err() != nil {
			t.putBackSteering(pending[i:])
			return nil
		}
		if err := s.recordNow(userMessage(st.in)); err != nil {
			t.putBackSteering(pending[i:])
			return err
		}
		text := st.in.Display
		if text == "" {
			text = st.in.Text
		}
		t.emit(Event{Kind: EventSteered, Text: text, Steered: st.at})
	}
	return nil
}

// steered is input sent to a running turn, waiting for its next model step.
type steered struct {
	in Input
	at time.Time // when it arrived
}

// steer queues in for the turn's next model step; false if the turn can no
// longer take it: it ended, is ending or cancelled, or runs a command
// rather than the model. The session calls it only on the turn its worker
// has taken, which may not have begun yet.
func (t *Turn) steer(in Input) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status.Terminal() || t.cancelRequested || t.settled || t.input.Run != nil {
		return false
	}
	t.steering = append(t.steering, steered{in: in, at: time.Now().UTC()})
	return true
}

// takeSteering returns and clears the queued steering inputs.
func (t *Turn) takeSteering() []steered {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := t.steering
	t.steering = nil
	return in
}

// putBackSteering returns inputs taken but not injected to the front of
// the queue, so they are neither lost nor reordered.
func (t *Turn) putBackSteering(in []steered) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steering = append(in[:len(in):len(in)], t.steering...)
}

// settle reports whether the turn may finish: true when no steering is
// waiting, and from then on steering is refused (the sender queues a new
// turn), so no input can arrive between this check and the finished event.
func (t *Turn) settle() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.steering) > 0 {
		return false
	}
	t.settled = true
	return true
}

// pendingSteering is how many steering inputs wait for the next step.
func (t *Turn) pendingSteering() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.steering)
}
