package kward

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

type exportParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Format    string `json:"format"`
}

// sessionsExport writes the transcript as markdown or html, to a path inside
// the workspace or the session's folder (next to the session file by default).
func (k *Service) sessionsExport(ctx context.Context, p exportParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	path, format, err := k.mgr.Export(p.SessionID, p.Path, p.Format)
	var bad *agent.ExportPathError
	if errors.As(err, &bad) {
		if bad.Outside {
			return nil, server.Error(jsonrpc2.InvalidParams, "EXPORT_PATH_OUTSIDE", bad.Error(), map[string]any{"path": bad.Path})
		}
		return nil, server.Error(jsonrpc2.InvalidParams, "EXPORT_PATH_INVALID", bad.Error(), nil)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "format": format}, nil
}
