package host

import (
	"context"

	"github.com/kast-dev/kast/analysis/workspace"
)

// CodeIntel serves the agent's code-intelligence tools (agent/tools.CodeIntel)
// from the host's indexes, as compiler-style text lines the model can act on.
type CodeIntel struct{ Host *Host }

// maxSymbols bounds a workspace-symbol answer so it fits the tool output cap.
const maxSymbols = 100

func (c CodeIntel) query(ctx context.Context, root string, q func(*workspace.Workspace) ([]workspace.Location, error)) (string, error) {
	ws, err := c.Host.Fresh(ctx, root)
	if err != nil {
		return "", err
	}
	locs, err := q(ws)
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return "No results.", nil
	}
	return workspace.Format(root, locs), nil
}

func (c CodeIntel) Resolve(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Definition(path, line, column) })
}

func (c CodeIntel) References(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.References(path, line, column) })
}

func (c CodeIntel) Outline(ctx context.Context, root, path string) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Outline(path) })
}

func (c CodeIntel) WorkspaceSymbols(ctx context.Context, root, query string) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Symbols(query, maxSymbols) })
}

func (c CodeIntel) Diagnostics(ctx context.Context, root, path string) (string, error) {
	ws, err := c.Host.Fresh(ctx, root)
	if err != nil {
		return "", err
	}
	locs, err := ws.Diagnostics(path)
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return "No syntax errors.", nil
	}
	return workspace.Format(root, locs), nil
}
