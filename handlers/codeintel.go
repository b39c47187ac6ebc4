package handlers

import (
	"context"

	"github.com/kast-dev/kast/analysis/workspace"
)

// codeIntel serves the agent's code-intelligence tools from the analysis
// core, as compiler-style text lines the model can act on.
type codeIntel struct {
	workspaces *workspaces
}

// maxSymbols bounds a workspace-symbol answer so it fits the tool output cap.
const maxSymbols = 100

func (c codeIntel) query(ctx context.Context, root string, q func(*workspace.Workspace) ([]workspace.Location, error)) (string, error) {
	ws, err := c.workspaces.fresh(ctx, root)
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

func (c codeIntel) Resolve(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Definition(path, line, column) })
}

func (c codeIntel) References(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.References(path, line, column) })
}

func (c codeIntel) Outline(ctx context.Context, root, path string) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Outline(path) })
}

func (c codeIntel) WorkspaceSymbols(ctx context.Context, root, query string) (string, error) {
	return c.query(ctx, root, func(ws *workspace.Workspace) ([]workspace.Location, error) { return ws.Symbols(query, maxSymbols) })
}

func (c codeIntel) Diagnostics(ctx context.Context, root, path string) (string, error) {
	ws, err := c.workspaces.fresh(ctx, root)
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
