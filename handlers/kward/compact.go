package kward

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/server"
)

// Compaction, approvals and the per-turn context of Kward sessions.

type compactParams struct {
	SessionID          string `json:"sessionId"`
	CustomInstructions string `json:"customInstructions"`
}

func (k *Service) sessionsCompact(ctx context.Context, p compactParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	res, err := ks.rt.Compact(ctx, p.CustomInstructions)
	switch {
	case err == nil:
		return compactionResult(res), nil
	case errors.Is(err, agent.ErrSessionBusy):
		return nil, server.Error(jsonrpc2.InvalidRequest, "SESSION_BUSY", err.Error(), map[string]any{"sessionId": p.SessionID})
	case errors.Is(err, agent.ErrNothingToCompact):
		return nil, server.Error(jsonrpc2.InvalidRequest, "NOTHING_TO_COMPACT", "nothing to compact: the conversation is empty or already compacted", nil)
	case errors.Is(err, agent.ErrNoProvider):
		return nil, server.Error(jsonrpc2.InvalidRequest, "PROVIDER_NOT_CONFIGURED", err.Error(), nil)
	}
	return nil, server.Error(jsonrpc2.InternalError, "COMPACTION_FAILED", err.Error(), nil)
}

func compactionResult(r *agent.CompactionResult) map[string]any {
	return map[string]any{"summary": r.Summary, "firstKeptEntryId": r.FirstKeptEntryID, "tokensBefore": r.TokensBefore,
		"details": map[string]any{"read_files": r.Details.ReadFiles, "modified_files": r.Details.ModifiedFiles}}
}

// notifyCompaction projects compaction events onto session/event.
func (ks *kwardSession) notifyCompaction(ev agent.CompactionEvent) {
	typ, payload := "compactionStart", map[string]any{"reason": "manual"}
	if ev.Auto {
		payload["reason"] = "auto"
	}
	if ev.Done {
		typ = "compactionEnd"
		payload = map[string]any{"result": nil, "aborted": ev.Err != nil, "willRetry": false, "errorMessage": nil}
		if ev.Result != nil {
			payload["result"] = compactionResult(ev.Result)
		}
		if ev.Err != nil {
			payload["errorMessage"] = ev.Err.Error()
		}
	}
	ks.notify("session/event", map[string]any{"timestamp": kwardTime(time.Now()), "sessionId": ks.id, "type": typ, "payload": payload})
}

// compactionPolicy reads the automatic compaction settings and the current
// model's context window.
func (k *Service) compactionPolicy() agent.CompactionPolicy {
	cfg, err := k.config()
	if err != nil {
		return agent.CompactionPolicy{}
	}
	c := cfg.Compaction
	pol := agent.CompactionPolicy{Auto: !c.Disabled, ContextWindow: c.ContextWindow, ReserveTokens: c.ReserveTokens, KeepRecentTokens: c.KeepRecentTokens}
	if pol.ContextWindow == 0 {
		if r, err := cfg.Resolve(k.env, agent.ConfigPath(k.env)); err == nil {
			m, _ := agent.LookupModel(r.Name, r.Model)
			pol.ContextWindow = m.ContextWindow
		}
	}
	return pol
}

// turnContext adds the workspace's and user's AGENTS.md and, for
// interactive turns with memory enabled, the retrieved memories.
func (ks *kwardSession) turnContext(in agent.Input) string {
	k := ks.k
	text := agent.LoadResources(ks.workspace, k.configDir).ContextPrompt()
	if cfg, err := k.config(); err == nil && cfg.Memory.Enabled && in.Run == nil {
		if r, err := k.memory.Retrieve(in.Text, ks.workspace); err == nil {
			ks.retrieval.Store(&r)
			k.lastRetrieval.Store(&r)
			if m := r.Prompt(); m != "" {
				text += "\n\n" + m
			}
		}
	}
	return text
}

// notifyApproval asks the client to approve a tool call.
func (ks *kwardSession) notifyApproval(r agent.ApprovalRequest) {
	ks.notify("tool/approvalRequested", map[string]any{"sessionId": ks.id, "turnId": r.TurnID, "approvalRequestId": r.ID,
		"toolCallId": r.Call.ID, "toolName": tools.NormalizedName(r.Call.Name), "args": tools.NormalizedArgs(r.Call)})
}

type approvalParams struct {
	SessionID         string `json:"sessionId"`
	ApprovalRequestID string `json:"approvalRequestId"`
	Approved          *bool  `json:"approved"`
}

func (k *Service) answerApproval(ctx context.Context, p approvalParams) (okResult, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return okResult{}, err
	}
	if p.ApprovalRequestID == "" {
		return okResult{}, required("approvalRequestId")
	}
	if p.Approved == nil {
		return okResult{}, required("approved")
	}
	if !ks.rt.Approve(p.ApprovalRequestID, *p.Approved) {
		return okResult{}, server.Error(jsonrpc2.InvalidParams, "APPROVAL_NOT_PENDING",
			fmt.Sprintf("approval %q is not pending: it was answered, or its turn ended", p.ApprovalRequestID), nil)
	}
	return okResult{OK: true}, nil
}

// autoSummarize infers soft memories from a completed turn's input when
// memory and auto-summary are both on.
func (k *Service) autoSummarize(ks *kwardSession) {
	cfg, err := k.config()
	if err != nil || !cfg.Memory.Enabled || !cfg.Memory.AutoSummary {
		return
	}
	history := ks.rt.History()
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == agent.RoleUser {
			for _, text := range agent.Infer(history[i:]) {
				_, _ = k.memory.AddSoft(agent.MemoryInput{Text: text, Scope: "workspace:" + ks.workspace}, true)
			}
			return
		}
	}
}
