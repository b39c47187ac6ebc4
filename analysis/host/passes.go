package host

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/kast-dev/kast/storage/indexer"
)

// passes is the background work of one open root: its first refresh, then
// the reference passes that keep its stored uses current. It lives as long
// as the root stays open; closing the root cancels it and waits for it.
type passes struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	indexed chan struct{} // closed when the first refresh has ended
	kick    chan time.Duration

	mu       sync.Mutex
	started  bool
	preempt  context.CancelCauseFunc // stops the background reference pass running now, if any
	progress indexer.Progress
	err      error // of the first refresh
	watchers map[*Watcher]struct{}

	// Changes on disk (watch.go): seen by the watcher, and taken in by a
	// refresh; idle is closed while the two are equal.
	seen, applied uint64
	idle          chan struct{}
}

// Watcher receives a root's background progress, each callback from the
// goroutine doing the work; any may be nil. A watcher added while a pass
// runs sees it from its next report on.
type Watcher struct {
	// Indexing reports the first refresh, file by file (Total 0 until the
	// scan has counted the files).
	Indexing func(indexer.Progress)
	// Indexed reports the first refresh's end.
	Indexed func(indexer.Totals, error)
	// Resolving reports a reference pass, file by file.
	Resolving func(done, total int)
	// Resolved reports a reference pass's end: files resolved, or why not.
	Resolved func(files int, err error)
}

// ErrSuperseded ends a background reference pass that a pass asked for
// explicitly (Host.ResolveUses, with every core) replaced.
var ErrSuperseded = errors.New("superseded by a reference pass that was asked for")

// usesDelay lets a burst of saves settle before references are resolved
// again.
const usesDelay = time.Second

func newPasses() *passes {
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &passes{ctx: ctx, cancel: cancel, indexed: make(chan struct{}), kick: make(chan time.Duration, 1),
		watchers: map[*Watcher]struct{}{}, idle: idle}
}

// changed records a change seen on disk.
func (p *passes) changed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == p.applied {
		p.idle = make(chan struct{})
	}
	p.seen++
}

// catchingUp returns the changes seen so far, which a refresh starting now
// takes in.
func (p *passes) catchingUp() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen
}

// caughtUp records that the changes up to seen are in the index.
func (p *passes) caughtUp(seen uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seen > p.applied && p.applied < p.seen {
		p.applied = seen
		if p.applied == p.seen {
			close(p.idle)
		}
	}
}

// settled returns a channel closed while every change seen is indexed.
func (p *passes) settled() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.idle
}

// stop cancels the root's background work and waits for it.
func (p *passes) stop() {
	p.cancel()
	p.wg.Wait()
}

func (p *passes) each(fn func(*Watcher)) {
	p.mu.Lock()
	ws := make([]*Watcher, 0, len(p.watchers))
	for w := range p.watchers {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		fn(w)
	}
}

// Index starts the background refresh of the root once for the process (the
// first call opens the root if needed) and returns a channel closed when
// that first refresh has ended. When it has, the root's references are
// resolved and stored, and kept current by ScheduleUses. Queries meanwhile
// answer from what is indexed.
func (h *Host) Index(root string) (<-chan struct{}, error) {
	h.mu.Lock()
	ow, err := h.getLocked(root)
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	p := ow.passes
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		p.started = true
		p.wg.Add(5)
		go h.firstRefresh(root, ow, p)
		go releasePages(ow, p)
		go h.usesWorker(root, ow, p)
		go h.returnToDisk(root, ow, p)
		go h.watchFiles(root, ow, p, h.newWatcher(root))
	}
	return p.indexed, nil
}

func (h *Host) firstRefresh(root string, ow *openWorkspace, p *passes) {
	defer p.wg.Done()
	defer close(p.indexed)
	if h.indexGate != nil {
		select {
		case <-h.indexGate:
		case <-p.ctx.Done():
			return
		}
	}
	ow.refresh.Lock()
	totals, _, err := ow.ws.Refresh(p.ctx, func(pr indexer.Progress) {
		p.mu.Lock()
		p.progress = pr
		p.mu.Unlock()
		p.each(func(w *Watcher) {
			if w.Indexing != nil {
				w.Indexing(pr)
			}
		})
	})
	ow.refresh.Unlock()
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
	p.each(func(w *Watcher) {
		if w.Indexed != nil {
			w.Indexed(totals, err)
		}
	})
	if err != nil {
		if p.ctx.Err() == nil {
			h.Log.Warn("indexing failed", "root", root, "err", err)
		}
		return
	}
	// After the same pause as a change: a client that asked for a pass with
	// every core (kast.reindex) as indexing ended runs it first, instead of
	// waiting behind this one, which leaves a core for requests.
	h.scheduleUses(p, usesDelay)
}

// pageRelease is how often an open root's index gives back the pages of
// its value log that reads mapped (Workspace.ReleaseMappedPages): the
// reference pass and queries read every file's facts through them. Once
// the first index of the standard library took 13 s instead of 25, the
// queries of a cold start met the pass's first seconds, and together
// they read the whole value log (100 MB) within 2 s: sampled every half
// second, its pages stayed at 90–100 MB from the first index's end for
// 15 s, and the peak RSS went from 460 to 530–540 MB. Every second, it
// was 475–481 MB.
const pageRelease = time.Second

func releasePages(ow *openWorkspace, p *passes) {
	defer p.wg.Done()
	tick := time.NewTicker(pageRelease)
	defer tick.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
			ow.ws.ReleaseMappedPages()
		}
	}
}

// usesWorker runs the root's reference passes, one at a time, whenever
// kicked: a pass over a large workspace takes long, so it runs apart from
// the requests and refreshes, which it waits for.
func (h *Host) usesWorker(root string, ow *openWorkspace, p *passes) {
	defer p.wg.Done()
	for {
		var delay time.Duration
		select {
		case <-p.ctx.Done():
			return
		case delay = <-p.kick:
		}
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(delay):
		}
		select { // kicks during the delay are served by this pass
		case <-p.kick:
		default:
		}
		ctx, cancel := context.WithCancelCause(p.ctx)
		p.mu.Lock()
		p.preempt = cancel
		p.mu.Unlock()
		ow.refresh.Lock()
		n, err := ow.ws.ResolveUsesInBackground(ctx, 0, func(done, total int) {
			p.each(func(w *Watcher) {
				if w.Resolving != nil {
					w.Resolving(done, total)
				}
			})
		})
		ow.refresh.Unlock()
		p.mu.Lock()
		p.preempt = nil
		p.mu.Unlock()
		if errors.Is(context.Cause(ctx), ErrSuperseded) {
			err = ErrSuperseded
		}
		cancel(nil)
		p.each(func(w *Watcher) {
			if w.Resolved != nil {
				w.Resolved(n, err)
			}
		})
		if err != nil && p.ctx.Err() == nil && !errors.Is(err, ErrSuperseded) {
			h.Log.Warn("resolving references failed", "root", root, "err", err)
		}
	}
}

// supersede stops the root's background reference pass, if one runs.
func (h *Host) supersede(root string) {
	ow, ok := h.lookup(root)
	if !ok {
		return
	}
	ow.passes.mu.Lock()
	defer ow.passes.mu.Unlock()
	if ow.passes.preempt != nil {
		ow.passes.preempt(ErrSuperseded)
	}
}

// ScheduleUses asks for a reference pass over the root a second after the
// last request, once its first refresh has ended (files changed on disk).
// A root that is not open or not indexed in the background is left alone.
func (h *Host) ScheduleUses(root string) {
	ow, ok := h.lookup(root)
	if ok {
		select {
		case <-ow.passes.indexed:
			h.scheduleUses(ow.passes, usesDelay)
		default: // the first refresh schedules one when it ends
		}
	}
}

func (h *Host) scheduleUses(p *passes, delay time.Duration) {
	select {
	case p.kick <- delay:
	default: // one is pending already
	}
}

// Watch adds w to the root's background reports until the returned
// function is called.
func (h *Host) Watch(root string, w *Watcher) (unwatch func()) {
	ow, ok := h.lookup(root)
	if !ok {
		return func() {}
	}
	p := ow.passes
	p.mu.Lock()
	p.watchers[w] = struct{}{}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.watchers, w)
		p.mu.Unlock()
	}
}

// IndexState says how far the root's index has come: ready once the first
// background refresh has ended (err is its failure) and the changes seen on
// disk since are indexed; else the last progress.
func (h *Host) IndexState(root string) (progress indexer.Progress, ready bool, err error) {
	ow, ok := h.lookup(root)
	if !ok {
		return indexer.Progress{}, false, nil
	}
	p := ow.passes
	select {
	case <-p.indexed:
		ready = true
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.progress, ready && p.applied == p.seen, p.err
}

// Prioritize asks the root's first index to take the folders of paths
// before the rest, and its reference passes to resolve paths and their
// packages first (an editor's open documents). A root that is not open is
// left alone.
func (h *Host) Prioritize(root string, paths []string) {
	if ow, ok := h.lookup(root); ok {
		ow.ws.Prioritize(paths)
	}
}
