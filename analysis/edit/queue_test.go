package edit

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitState polls a queued operation until it reaches want.
func waitState(t *testing.T, q *Queue, id string, want State) OperationSnapshot {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		op, ok := q.Lookup(id, "")
		if ok && op.State == want {
			return op
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %s: %+v, want %s", id, op, want)
		}
	}
}

// Operations run one at a time in order; a queued one cancelled never runs,
// a running one sees its context cancelled, and a key is one operation.
func TestQueueOrderCancelAndIdempotency(t *testing.T) {
	q := NewQueue(8)
	release := make(chan struct{})
	ran := make(chan string, 4)
	first, _, err := q.Submit("a", "TEST", func(ctx context.Context) (any, error) {
		ran <- "a"
		select {
		case <-release:
			return "a done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	second, _, _ := q.Submit("b", "TEST", func(ctx context.Context) (any, error) { ran <- "b"; return nil, nil })
	third, _, _ := q.Submit("c", "TEST", func(ctx context.Context) (any, error) { ran <- "c"; return "c done", nil })
	waitState(t, q, first.ID, Running)
	if op, _ := q.Cancel("", "b"); op.State != Cancelled || !op.CancelRequested {
		t.Fatalf("cancelling the queued b: %+v", op)
	}
	if dup, isDup, _ := q.Submit("a", "TEST", nil); !isDup || dup.ID != first.ID {
		t.Errorf("the same key gave %+v (duplicate %v)", dup, isDup)
	}
	close(release)
	if op := waitState(t, q, third.ID, Succeeded); op.Result != "c done" {
		t.Errorf("c: %+v", op)
	}
	if op, _ := q.Lookup(first.ID, ""); op.State != Succeeded || op.Result != "a done" {
		t.Errorf("a: %+v", op)
	}
	if got := []string{<-ran, <-ran}; got[0] != "a" || got[1] != "c" || len(ran) != 0 {
		t.Errorf("ran %v (and %d more), want a then c; b was cancelled", got, len(ran))
	}
	if op, _ := q.Lookup(second.ID, ""); op.State != Cancelled {
		t.Errorf("b: %+v", op)
	}

	// Cancelling a running operation cancels its context.
	running, _, _ := q.Submit("d", "TEST", func(ctx context.Context) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	waitState(t, q, running.ID, Running)
	q.Cancel(running.ID, "")
	if op := waitState(t, q, running.ID, Cancelled); !errors.Is(op.Err, context.Canceled) {
		t.Errorf("d: %+v", op)
	}
	if _, ok := q.Lookup("", "nothing"); ok {
		t.Error("an unknown key was found")
	}
}
