package handlers

import (
	"context"
	"log/slog"
	"sync"

	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/indexer"
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
	users   int  // editor connections holding it (acquire/release)
	pinned  bool // used through fresh, which keeps it for the process
}

func newWorkspaces(log *slog.Logger) *workspaces {
	return &workspaces{log: log, open: map[string]*openWorkspace{}}
}

// get returns the open workspace at root, opening it if needed; p.mu held.
func (p *workspaces) getLocked(root string) (*openWorkspace, error) {
	if ow, ok := p.open[root]; ok {
		return ow, nil
	}
	ws, err := workspace.Open(root, workspace.Options{Logger: p.log})
	if err != nil {
		return nil, err
	}
	if n := ws.Notice(); n != "" {
		p.log.Warn(n, "root", root)
	}
	ow := &openWorkspace{ws: ws}
	p.open[root] = ow
	return ow, nil
}

// fresh returns the workspace at root with its index brought up to date
// (only files changed since the last call are re-read).
func (p *workspaces) fresh(ctx context.Context, root string) (*workspace.Workspace, error) {
	p.mu.Lock()
	ow, err := p.getLocked(root)
	if err != nil {
		p.mu.Unlock()
		return nil, err
	}
	ow.pinned = true
	p.mu.Unlock()
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	if _, _, err := ow.ws.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	return ow.ws, nil
}

// acquire returns the workspace at root as it is, without refreshing it: an
// editor answers from what is indexed while it refreshes in the background.
// Call release when done; the last release closes the index.
func (p *workspaces) acquire(root string) (*workspace.Workspace, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ow, err := p.getLocked(root)
	if err != nil {
		return nil, err
	}
	ow.users++
	return ow.ws, nil
}

func (p *workspaces) release(root string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ow, ok := p.open[root]
	if !ok {
		return
	}
	if ow.users--; ow.users > 0 || ow.pinned {
		return
	}
	delete(p.open, root)
	// Wait for a refresh in progress, which the caller has cancelled.
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	if err := ow.ws.Close(); err != nil {
		p.log.Warn("closing the index failed", "root", root, "err", err)
	}
}

// resolveUses brings the stored uses at root up to date (see
// workspace.ResolveUses), one refresh or pass at a time.
func (p *workspaces) resolveUses(ctx context.Context, root string, workers int, progress func(done, total int)) (int, error) {
	p.mu.Lock()
	ow, ok := p.open[root]
	p.mu.Unlock()
	if !ok {
		return 0, context.Canceled
	}
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	return ow.ws.ResolveUses(ctx, workers, progress)
}

// refresh brings the index at root up to date, one refresh at a time.
func (p *workspaces) refresh(ctx context.Context, root string, progress func(indexer.Progress)) (indexer.Totals, error) {
	p.mu.Lock()
	ow, ok := p.open[root]
	p.mu.Unlock()
	if !ok {
		return indexer.Totals{}, context.Canceled
	}
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	totals, _, err := ow.ws.Refresh(ctx, progress)
	return totals, err
}
