package kimi

import (
	"context"
	"errors"
	"strings"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// kast's additions to the IDE wire for the VS Code extension: a new or
// resumed session, a key check and ghost-text completion. They are
// advertised apart from the spec's methods, as "extensions".

type newSessionParams struct {
	// ResumeID is a stored session's id (Kward's sessions/list); "" starts afresh.
	ResumeID      string `json:"resume_id,omitempty"`
	WorkspaceRoot string `json:"workspace_root,omitempty"`
}

// newSession closes the connection's session (its running turn ends
// interrupted) and opens a new one, or continues a stored one.
func (k *IDE) newSession(ctx context.Context, p *newSessionParams) (map[string]any, error) {
	conn := server.ConnOf(ctx)
	if conn == nil {
		return nil, serverError(CodeServerError, "NO_CONNECTION", "no connection")
	}
	k.closeConn(conn)
	if p.ResumeID == "" {
		c, err := k.connOf(ctx, p.WorkspaceRoot)
		if err != nil {
			return nil, err
		}
		return map[string]any{"session_id": c.sessionID}, nil
	}
	ms, err := k.mgr.ResumeID(p.ResumeID, p.WorkspaceRoot)
	if err != nil {
		var we *agent.WorkspaceError
		if errors.As(err, &we) {
			return nil, server.InvalidParams("workspace_root: %s", we.Error())
		}
		return nil, serverError(CodeServerError, "SESSION_NOT_FOUND", err.Error())
	}
	c, err := k.adopt(conn, ms)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session_id": c.sessionID}, nil
}

// validateApiKey makes a real request to the configured provider; a key or
// endpoint that fails is a result (valid: false), not an error.
func (k *IDE) validateApiKey(ctx context.Context, _ *struct{}) (map[string]any, error) {
	info, err := k.mgr.ProbeProvider(ctx)
	if err != nil {
		return map[string]any{"valid": false, "provider": nilIfEmpty(info.Name), "model": nilIfEmpty(info.Model), "message": err.Error()}, nil
	}
	return map[string]any{"valid": true, "provider": info.Name, "model": info.Model,
		"message": "The API key works: " + info.Name + " answered with model " + info.Model + "."}, nil
}

type inlineParams struct {
	Path     string `json:"path"`
	Language string `json:"language"`
	Prefix   string `json:"prefix"`
	Suffix   string `json:"suffix"`
}

// inlineCompletion is ghost text at the cursor from the configured model.
// The path only names the file to the model: nothing is read from it.
func (k *IDE) inlineCompletion(ctx context.Context, p *inlineParams) (map[string]any, error) {
	if strings.TrimSpace(p.Prefix) == "" && strings.TrimSpace(p.Suffix) == "" {
		return nil, server.InvalidParams("prefix and suffix are empty")
	}
	text, err := k.mgr.CompleteInline(ctx, agent.InlineRequest{Path: p.Path, Language: p.Language,
		Prefix: clip(p.Prefix, contextBytes), Suffix: clip(p.Suffix, contextBytes)})
	if errors.Is(err, agent.ErrNoProvider) {
		return nil, serverError(CodeConnectionFailed, "PROVIDER_NOT_CONFIGURED", err.Error())
	}
	if err != nil {
		return nil, serverError(CodeServerError, "COMPLETION_FAILED", err.Error())
	}
	items := []map[string]any{}
	if text != "" {
		items = append(items, map[string]any{"text": text})
	}
	return map[string]any{"items": items}, nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
