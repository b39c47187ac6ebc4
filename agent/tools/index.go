package tools

import (
	"context"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Index serves the code-intelligence tools (CodeIntel) from the process's
// indexes, the ones the editor navigates with, as compiler-style text lines
// the model can act on.
type Index struct{ Host *host.Host }

// maxSymbols bounds a workspace-symbol answer so it fits the tool output cap.
const maxSymbols = 100

func (c Index) query(ctx context.Context, root string, q func(*workspace.Workspace) ([]workspace.Location, error)) (string, error) {
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

func (c Index) Resolve(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Definition(path, line, column) })
}

func (c Index) References(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.References(path, line, column) })
}

func (c Index) Outline(ctx context.Context, root, path string) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Outline(path) })
}

func (c Index) WorkspaceSymbols(ctx context.Context, root, query string) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Symbols(query, maxSymbols) })
}

func (c Index) Diagnostics(ctx context.Context, root, path string) (string, error) {
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
