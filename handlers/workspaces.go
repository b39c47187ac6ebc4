package handlers

import (
	"context"
	"log/slog"
	"sync"

	"github.com/kast-dev/kast/analysis/workspace"
)

// workspaces opens each workspace root's index once per process and shares
// it between the protocol families that need it.
type workspaces struct {
	log  *slog.Logger
	mu   sync.Mutex
	open map[string]*openWorkspace
}

type openWorkspace struct {
	refresh sync.Mutex // one refresh at a time; queries wait for it
	ws      *workspace.Workspace
}

func newWorkspaces(log *slog.Logger) *workspaces {
	return &workspaces{log: log, open: map[string]*openWorkspace{}}
}

// fresh returns the workspace at root with its index brought up to date
// (only files changed since the last call are re-read).
func (p *workspaces) fresh(ctx context.Context, root string) (*workspace.Workspace, error) {
	p.mu.Lock()
	ow, ok := p.open[root]
	if !ok {
		ws, err := workspace.Open(root, workspace.Options{Logger: p.log})
		if err != nil {
			p.mu.Unlock()
			return nil, err
		}
		if n := ws.Notice(); n != "" {
			p.log.Warn(n, "root", root)
		}
		ow = &openWorkspace{ws: ws}
		p.open[root] = ow
	}
	p.mu.Unlock()
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	if _, _, err := ow.ws.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	return ow.ws, nil
}
