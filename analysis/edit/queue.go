package edit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Queue runs workspace mutations one at a time, in submission order, so
// that each plans against the files the previous one left. A mutation is
// submitted under an idempotency key (the same key returns the same
// operation), can be looked up by id or key while it is retained, and can
// be cancelled: before it starts it never runs; while it runs its context
// is cancelled, and since plans are applied atomically (Apply) it either
// lands whole or not at all.
type Queue struct {
	mu      sync.Mutex
	ops     map[string]*Operation
	byKey   map[string]*Operation
	order   []*Operation // retained, oldest first
	pending chan *Operation
	retain  int
	seq     int
	once    sync.Once
}

// State is an operation's place in its life.
type State string

const (
	Queued    State = "QUEUED"
	Running   State = "RUNNING"
	Succeeded State = "SUCCEEDED"
	Failed    State = "FAILED"
	Cancelled State = "CANCELLED"
)

// Operation is one submitted mutation. Read it through Snapshot.
type Operation struct {
	ID, Key, Kind string
	run           func(ctx context.Context) (any, error)

	state                        State
	submitted, started, finished time.Time
	result                       any
	err                          error
	cancel                       context.CancelFunc
	cancelRequested              bool
}

// OperationSnapshot is an operation's state at one moment.
type OperationSnapshot struct {
	ID, Key, Kind                string
	State                        State
	Submitted, Started, Finished time.Time
	Result                       any
	Err                          error
	CancelRequested              bool
}

// NewQueue returns a queue keeping the last retain finished operations.
func NewQueue(retain int) *Queue {
	return &Queue{ops: map[string]*Operation{}, byKey: map[string]*Operation{}, pending: make(chan *Operation, 256), retain: retain}
}

// Submit queues run under key; a key seen before returns its operation
// (duplicate is true) and run is dropped.
func (q *Queue) Submit(key, kind string, run func(ctx context.Context) (any, error)) (snap OperationSnapshot, duplicate bool, err error) {
	q.once.Do(func() { go q.work() })
	q.mu.Lock()
	if op, ok := q.byKey[key]; ok {
		defer q.mu.Unlock()
		return op.snapshot(), true, nil
	}
	q.seq++
	op := &Operation{ID: fmt.Sprintf("op-%d-%d", time.Now().UnixNano(), q.seq), Key: key, Kind: kind, run: run, state: Queued, submitted: time.Now()}
	select {
	case q.pending <- op:
	default:
		q.mu.Unlock()
		return OperationSnapshot{}, false, &Error{Kind: Conflict, Msg: "too many mutations are queued; try again later", Details: map[string]string{"idempotencyKey": key}}
	}
	q.ops[op.ID], q.byKey[key] = op, op
	q.order = append(q.order, op)
	q.evict()
	snap = op.snapshot()
	q.mu.Unlock()
	return snap, false, nil
}

// Lookup finds a retained operation by id, or by key when id is "".
func (q *Queue) Lookup(id, key string) (OperationSnapshot, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	op := q.ops[id]
	if id == "" {
		op = q.byKey[key]
	}
	if op == nil {
		return OperationSnapshot{}, false
	}
	return op.snapshot(), true
}

// Cancel asks a retained operation to stop and returns its state: a queued
// one is cancelled at once, a running one when its work notices, a
// finished one stays as it ended.
func (q *Queue) Cancel(id, key string) (OperationSnapshot, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	op := q.ops[id]
	if id == "" {
		op = q.byKey[key]
	}
	if op == nil {
		return OperationSnapshot{}, false
	}
	switch op.state {
	case Queued:
		op.cancelRequested = true
		op.state, op.finished = Cancelled, time.Now()
	case Running:
		op.cancelRequested = true
		op.cancel()
	}
	return op.snapshot(), true
}

// work runs queued operations one after another.
func (q *Queue) work() {
	for op := range q.pending {
		q.mu.Lock()
		if op.state != Queued {
			q.mu.Unlock()
			continue
		}
		ctx, cancel := context.WithCancel(context.Background())
		op.state, op.started, op.cancel = Running, time.Now(), cancel
		q.mu.Unlock()
		result, err := op.run(ctx)
		q.mu.Lock()
		op.finished, op.result, op.err = time.Now(), result, err
		switch {
		case op.cancelRequested && ctx.Err() != nil && err != nil:
			op.state = Cancelled
		case err != nil:
			op.state = Failed
		default:
			op.state = Succeeded
		}
		cancel()
		q.mu.Unlock()
	}
}

// evict forgets the oldest finished operations beyond the retained count.
func (q *Queue) evict() {
	for len(q.order) > q.retain {
		op := q.order[0]
		if op.state == Queued || op.state == Running {
			return
		}
		delete(q.ops, op.ID)
		delete(q.byKey, op.Key)
		q.order = q.order[1:]
	}
}

func (op *Operation) snapshot() OperationSnapshot {
	return OperationSnapshot{ID: op.ID, Key: op.Key, Kind: op.Kind, State: op.state, Submitted: op.submitted, Started: op.started,
		Finished: op.finished, Result: op.result, Err: op.err, CancelRequested: op.cancelRequested}
}
