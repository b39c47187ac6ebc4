package kast

// mutation/submit, mutation/status and mutation/cancel: semantic mutations
// queued on the edit engine's queue (edit.Queue), one at a time, each run
// through the same handler as its direct method (symbol/rename,
// symbol/add-*, symbol/replace-declaration), so through the hash-checked
// edit engine raw/apply-edits uses.

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/kast-dev/kast/analysis/edit"
)

// mutationQueue holds the process's mutations.
type mutationQueue struct{ q *edit.Queue }

func newMutationQueue() *mutationQueue { return &mutationQueue{edit.NewQueue(256)} }

type mutationSubmit struct {
	Type           string          `json:"type"`
	IdempotencyKey *string         `json:"idempotencyKey"`
	Request        json.RawMessage `json:"request"`
}

var mutationTypes = map[string]bool{"RENAME": true, "ADD_FILE": true, "ADD_DECLARATION": true, "ADD_IMPLEMENTATION": true,
	"ADD_STATEMENT": true, "REPLACE_DECLARATION": true}

func (q *mutationSubmit) check() error {
	if !mutationTypes[q.Type] {
		return validation("type must be RENAME, ADD_FILE, ADD_DECLARATION, ADD_IMPLEMENTATION, ADD_STATEMENT or REPLACE_DECLARATION", map[string]string{"type": q.Type})
	}
	if q.IdempotencyKey == nil || *q.IdempotencyKey == "" || len(bytes.TrimSpace(q.Request)) == 0 {
		return validation("idempotencyKey and request are required", nil)
	}
	return nil
}

type mutationReceipt struct {
	Type           string `json:"type"`
	OperationID    string `json:"operationId"`
	IdempotencyKey string `json:"idempotencyKey"`
	MutationType   string `json:"mutationType"`
	State          string `json:"state"`
	Duplicate      bool   `json:"duplicate"`
	SubmittedAt    string `json:"submittedAt"`
}

// runner decodes a mutation's request as its direct method would, so a bad
// request is refused at submission, and returns the work to queue.
func (k *Service) runner(typ string, raw json.RawMessage) (func(ctx context.Context) (any, error), error) {
	switch typ {
	case "RENAME":
		return queued(raw, k.symbolRename)
	case "ADD_FILE":
		return queued(raw, k.addFile)
	case "ADD_DECLARATION", "ADD_IMPLEMENTATION":
		return queued(raw, k.addDeclaration)
	case "ADD_STATEMENT":
		return queued(raw, k.addStatement)
	default: // "REPLACE_DECLARATION"
		return queued(raw, k.replaceDeclaration)
	}
}

func queued[P any](raw json.RawMessage, h func(ctx context.Context, p *P) (any, error)) (func(ctx context.Context) (any, error), error) {
	p := new(P)
	if err := decodeKast(raw, p); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) { return h(ctx, p) }, nil
}

func (k *Service) mutationSubmit(ctx context.Context, q *mutationSubmit) (mutationReceipt, error) {
	run, err := k.runner(q.Type, q.Request)
	if err != nil {
		return mutationReceipt{}, err
	}
	op, dup, err := k.mutations.q.Submit(*q.IdempotencyKey, q.Type, run)
	if err != nil {
		return mutationReceipt{}, err
	}
	if dup && op.Kind != q.Type {
		return mutationReceipt{}, &edit.Error{Kind: edit.Conflict, Msg: "The idempotency key was used for a " + op.Kind + " mutation",
			Details: map[string]string{"idempotencyKey": op.Key, "operationId": op.ID}}
	}
	return mutationReceipt{"SUBMITTED", op.ID, op.Key, op.Kind, string(op.State), dup, stamp(op.Submitted)}, nil
}

type mutationLookup struct {
	Type           string  `json:"type"`
	OperationID    *string `json:"operationId,omitempty"`
	IdempotencyKey *string `json:"idempotencyKey,omitempty"`
}

func (q *mutationLookup) check() error {
	switch {
	case q.Type == "BY_OPERATION_ID" && q.OperationID != nil && q.IdempotencyKey == nil:
	case q.Type == "BY_IDEMPOTENCY_KEY" && q.IdempotencyKey != nil && q.OperationID == nil:
	default:
		return validation("type BY_OPERATION_ID takes operationId, BY_IDEMPOTENCY_KEY takes idempotencyKey", map[string]string{"type": q.Type})
	}
	return nil
}

type operationSnapshot struct {
	Type            string        `json:"type"`
	OperationID     string        `json:"operationId"`
	IdempotencyKey  string        `json:"idempotencyKey"`
	MutationType    string        `json:"mutationType"`
	State           string        `json:"state"`
	CancelRequested bool          `json:"cancelRequested"`
	SubmittedAt     string        `json:"submittedAt"`
	StartedAt       *string       `json:"startedAt,omitempty"`
	FinishedAt      *string       `json:"finishedAt,omitempty"`
	Result          any           `json:"result,omitempty"`
	Error           *apiErrorBody `json:"error,omitempty"`
}

func (k *Service) mutationStatus(ctx context.Context, q *mutationLookup) (operationSnapshot, error) {
	op, ok := k.mutations.q.Lookup(valueOr(q.OperationID, ""), valueOr(q.IdempotencyKey, ""))
	return wireOperation(op, ok, q)
}

func (k *Service) mutationCancel(ctx context.Context, q *mutationLookup) (operationSnapshot, error) {
	op, ok := k.mutations.q.Cancel(valueOr(q.OperationID, ""), valueOr(q.IdempotencyKey, ""))
	return wireOperation(op, ok, q)
}

func wireOperation(op edit.OperationSnapshot, ok bool, q *mutationLookup) (operationSnapshot, error) {
	if !ok {
		return operationSnapshot{}, notFound("No retained mutation matches", map[string]string{"operationId": valueOr(q.OperationID, ""),
			"idempotencyKey": valueOr(q.IdempotencyKey, "")})
	}
	s := operationSnapshot{Type: "OPERATION", OperationID: op.ID, IdempotencyKey: op.Key, MutationType: op.Kind, State: string(op.State),
		CancelRequested: op.CancelRequested, SubmittedAt: stamp(op.Submitted), Result: op.Result}
	if !op.Started.IsZero() {
		s.StartedAt = ptr(stamp(op.Started))
	}
	if !op.Finished.IsZero() {
		s.FinishedAt = ptr(stamp(op.Finished))
	}
	if op.Err != nil {
		msg, code, details := op.Err.Error(), "INTERNAL_ERROR", map[string]string{}
		if ke, isKast := op.Err.(*edit.Error); isKast {
			code = map[edit.Kind]string{edit.Validation: "VALIDATION_ERROR", edit.NotFound: "NOT_FOUND", edit.Conflict: "CONFLICT",
				edit.PartialFailure: "APPLY_PARTIAL_FAILURE"}[ke.Kind]
			if ke.Details != nil {
				details = ke.Details
			}
		}
		if op.State == edit.Cancelled {
			code = "CANCELLED"
		}
		s.Error = &apiErrorBody{kastSchemaVersion, requestID(), code, msg, false, details}
	}
	return s, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
