// Package host holds what one kast process shares between its connections
// and entry points: one open index per workspace root (the pool), one search
// engine per root with the configured embedder, and the code-intelligence
// adapter the agent's tools use. Every projection (LSP, Kast, Kward, ck, MCP)
// reaches the workspaces through a Host, so a root has one index.
package host

import (
	"cmp"
	"context"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/indexer"
)

// Host is the process's shared engine state.
type Host struct {
	Log     *slog.Logger
	Version string // kast's version, as the protocols report it
	// Libraries says whether connections index their roots' libraries.
	Libraries bool

	mu      sync.Mutex // guards open and engines
	open    map[string]*openWorkspace
	engines map[*workspace.Workspace]*search.Engine
	emb     search.Embedder // nil means search's default
	wsOpts  workspace.Options
	// spaceRetry is how often a root whose index left its full disk looks
	// for room to return (space.go).
	spaceRetry time.Duration

	libs      libraryState // library indexes (libraries.go)
	openTexts openTexts    // editors' open documents (opentexts.go)
	libCtx    context.Context
	libCancel context.CancelFunc
	// indexGate holds every root's first refresh until it is closed.
	indexGate <-chan struct{}
}

type openWorkspace struct {
	refresh sync.Mutex // one refresh or reference pass at a time; queries wait for it
	ws      *workspace.Workspace
	passes  *passes // background refresh and reference passes (passes.go)
	users   int     // holders through Acquire/Release
	pinned  bool    // used through Fresh, which keeps it for the process
}

// Options configures a Host.
type Options struct {
	Logger   *slog.Logger
	Embedder search.Embedder // for every root's search engine; nil: the built-in learned one
	Version  string          // "" reads the module's build info
	// InMemory keeps every index in memory (tests, throwaway runs).
	InMemory bool
	// SpaceRetry is how often an index that left its full disk for memory
	// checks whether it can return (default 30 s).
	SpaceRetry time.Duration
	// Libraries has editors' connections index the libraries their roots
	// depend on (the Go standard library, modules from the module cache).
	Libraries bool
	// IndexGate, when set, holds every root's first refresh until it is
	// closed: tests see what requests do while the first index runs.
	IndexGate <-chan struct{}
}

// New returns an empty host.
func New(opts Options) *Host {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Version == "" {
		opts.Version = buildVersion()
	}
	return &Host{Log: opts.Logger, Version: opts.Version, Libraries: opts.Libraries, emb: opts.Embedder, spaceRetry: cmp.Or(opts.SpaceRetry, 30*time.Second),
		wsOpts: workspace.Options{Logger: opts.Logger, InMemory: opts.InMemory}, open: map[string]*openWorkspace{},
		engines: map[*workspace.Workspace]*search.Engine{}, indexGate: opts.IndexGate}
}

// getLocked returns the open workspace at root, opening it if needed; h.mu held.
func (h *Host) getLocked(root string) (*openWorkspace, error) {
	if ow, ok := h.open[root]; ok {
		return ow, nil
	}
	ws, err := workspace.Open(root, h.wsOpts)
	if err != nil {
		return nil, err
	}
	if n := ws.Notice(); n != "" {
		h.Log.Warn(n, "root", root)
	}
	ow := &openWorkspace{ws: ws, passes: newPasses()}
	h.open[root] = ow
	return ow, nil
}

// Fresh returns the workspace at root with its index brought up to date
// (only files changed since the last call are re-read). It stays open for
// the life of the process.
func (h *Host) Fresh(ctx context.Context, root string) (*workspace.Workspace, error) {
	h.mu.Lock()
	ow, err := h.getLocked(root)
	if err != nil {
		h.mu.Unlock()
		return nil, err
	}
	ow.pinned = true
	h.mu.Unlock()
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	if _, _, err := ow.ws.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	return ow.ws, nil
}

// Acquire returns the workspace at root as it is, without refreshing it: an
// editor answers from what is indexed while it refreshes in the background.
// Call Release when done; the last release closes the index.
func (h *Host) Acquire(root string) (*workspace.Workspace, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ow, err := h.getLocked(root)
	if err != nil {
		return nil, err
	}
	ow.users++
	if ow.users == 1 && ow.ws.Lib == nil {
		// Workspace symbols read every name: start reading them now, while
		// the editor is still initializing (read once, later calls return).
		go ow.ws.Index.PreloadNames()
	}
	return ow.ws, nil
}

// Release gives back a workspace taken with Acquire.
func (h *Host) Release(root string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ow, ok := h.open[root]
	if !ok {
		return
	}
	if ow.users--; ow.users > 0 || ow.pinned {
		return
	}
	delete(h.open, root)
	if e := h.engines[ow.ws]; e != nil {
		e.Close()
	}
	delete(h.engines, ow.ws)
	ow.passes.stop()
	// Wait for a refresh in progress, which the caller has cancelled.
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	if err := ow.ws.Close(); err != nil {
		h.Log.Warn("closing the index failed", "root", root, "err", err)
	}
}

// Roots lists the open workspace roots, sorted.
func (h *Host) Roots() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	roots := make([]string, 0, len(h.open))
	for r := range h.open {
		roots = append(roots, r)
	}
	slices.Sort(roots)
	return roots
}

// lookup returns the open workspace at root, if any.
func (h *Host) lookup(root string) (*openWorkspace, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ow, ok := h.open[root]
	return ow, ok
}

// Open returns the workspace open at root, or nil.
func (h *Host) Open(root string) *workspace.Workspace {
	if ow, ok := h.lookup(root); ok {
		return ow.ws
	}
	return nil
}

// serialized runs fn with root's refresh lock held, so refreshes and
// reference passes of one root never overlap. A root not open is
// context.Canceled: its holder released it.
func serialized[T any](h *Host, root string, fn func(*workspace.Workspace) (T, error)) (T, error) {
	ow, ok := h.lookup(root)
	if !ok {
		var zero T
		return zero, context.Canceled
	}
	ow.refresh.Lock()
	defer ow.refresh.Unlock()
	return fn(ow.ws)
}

// Update runs fn, which changes the index at root (a file reindexed or
// removed), between its refreshes and reference passes: a refresh that read
// the file before the change would otherwise write its old content back.
func (h *Host) Update(root string, fn func(*workspace.Workspace) error) error {
	_, err := serialized(h, root, func(ws *workspace.Workspace) (struct{}, error) { return struct{}{}, fn(ws) })
	return err
}

// ResolveUses brings the stored uses at root up to date (see
// workspace.ResolveUses), one refresh or pass at a time. A background pass
// running meanwhile (with fewer cores, leaving one for requests) stops, with
// ErrSuperseded: this one does its work.
func (h *Host) ResolveUses(ctx context.Context, root string, workers int, progress func(done, total int)) (int, error) {
	h.supersede(root)
	return serialized(h, root, func(ws *workspace.Workspace) (int, error) {
		return ws.ResolveUses(ctx, workers, progress)
	})
}

// Refresh brings the index at root up to date, one refresh at a time.
func (h *Host) Refresh(ctx context.Context, root string, progress func(indexer.Progress)) (indexer.Totals, error) {
	return serialized(h, root, func(ws *workspace.Workspace) (indexer.Totals, error) {
		totals, _, err := ws.Refresh(ctx, progress)
		return totals, err
	})
}

// Close closes every open index, for the end of the process.
func (h *Host) Close() {
	h.closeLibraries()
	h.mu.Lock()
	defer h.mu.Unlock()
	for root, ow := range h.open {
		ow.passes.stop()
		ow.refresh.Lock()
		if err := ow.ws.Close(); err != nil {
			h.Log.Warn("closing the index failed", "root", root, "err", err)
		}
		ow.refresh.Unlock()
		delete(h.open, root)
	}
	for _, e := range h.engines {
		e.Close()
	}
	clear(h.engines)
}

func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
