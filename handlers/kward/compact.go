package kward

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// Compaction and approvals of Kward sessions.

type compactParams struct {
	SessionID          string `json:"sessionId"`
	CustomInstructions string `json:"customInstructions"`
}

func (k *Service) sessionsCompact(ctx context.Context, p compactParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	res, err := k.mgr.Compact(ctx, p.SessionID, p.CustomInstructions)
	var notFound *agent.NotFoundError
	switch {
	case err == nil:
		return compactionResult(res), nil
	case errors.As(err, &notFound):
		return nil, err
	case errors.Is(err, agent.ErrSessionBusy):
		return nil, stateError("SESSION_BUSY", err.Error(), map[string]any{"sessionId": p.SessionID})
	case errors.Is(err, agent.ErrNothingToCompact):
		return nil, stateError("NOTHING_TO_COMPACT", "nothing to compact: the conversation is empty or already compacted", nil)
	case errors.Is(err, agent.ErrNoProvider):
		return nil, stateError("PROVIDER_NOT_CONFIGURED", err.Error(), nil)
	}
	return nil, server.Error(jsonrpc2.InternalError, "COMPACTION_FAILED", err.Error(), nil)
}

func compactionResult(r *agent.CompactionResult) map[string]any {
	return map[string]any{"summary": r.Summary, "firstKeptEntryId": r.FirstKeptEntryID, "tokensBefore": r.TokensBefore,
		"details": map[string]any{"read_files": orEmpty(r.Details.ReadFiles), "modified_files": orEmpty(r.Details.ModifiedFiles)}}
}

// orEmpty keeps a list a list on the wire: Kward clients iterate, not check
// for null.
func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

type approvalParams struct {
	SessionID         string `json:"sessionId"`
	ApprovalRequestID string `json:"approvalRequestId"`
	Approved          *bool  `json:"approved"`
}

func (k *Service) answerApproval(ctx context.Context, p approvalParams) (okResult, error) {
	if _, err := k.session(p.SessionID); err != nil {
		return okResult{}, err
	}
	if p.ApprovalRequestID == "" {
		return okResult{}, required("approvalRequestId")
	}
	if p.Approved == nil {
		return okResult{}, required("approved")
	}
	err := k.mgr.Approve(p.SessionID, p.ApprovalRequestID, *p.Approved)
	if errors.Is(err, agent.ErrApprovalNotPending) {
		return okResult{}, server.Error(jsonrpc2.InvalidParams, "APPROVAL_NOT_PENDING",
			fmt.Sprintf("approval %q is not pending: it was answered, or its turn ended", p.ApprovalRequestID), nil)
	}
	if err != nil {
		return okResult{}, err
	}
	return okResult{OK: true}, nil
}
