package host

import (
	"context"
	"errors"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/kast-dev/kast/storage/indexer"
)

// Files change on disk behind kast's back: an editor saves, git checks out,
// an agent's shell writes. Each open root is watched (fsnotify on every
// folder its scan enters, so ignore rules and excluded folders apply) and a
// burst of changes, once settled, refreshes the index: the refresh re-reads
// only files whose size or time changed, drops deleted ones and finds new
// and renamed ones. Where watching is not possible (no inotify, or more
// folders than maxWatches) the root is swept by a refresh every
// sweepInterval instead.
const (
	settleDelay   = 100 * time.Millisecond
	sweepInterval = 5 * time.Second
	maxWatches    = 8192
)

// newWatcher starts watching root itself, before its first refresh, so no
// change after that refresh's scan can go unseen; nil when the system
// cannot watch (the root is swept instead).
func (h *Host) newWatcher(root string) *fsnotify.Watcher {
	watcher, err := fsnotify.NewWatcher()
	if err == nil {
		if err = watcher.Add(root); err == nil {
			return watcher
		}
		watcher.Close()
	}
	h.Log.Warn("cannot watch the workspace for changes; sweeping it instead", "root", root, "every", sweepInterval, "err", err)
	return nil
}

// watchFiles keeps the root's index current with the files on disk until
// the root closes.
func (h *Host) watchFiles(root string, ow *openWorkspace, p *passes, watcher *fsnotify.Watcher) {
	defer p.wg.Done()
	if watcher != nil {
		defer watcher.Close()
	}
	watched := map[string]bool{}
	// sync watches the folders the last scan entered, after a refresh.
	sync := func() (complete bool) {
		if watcher == nil {
			return false
		}
		dirs := ow.ws.Dirs()
		now := make(map[string]bool, len(dirs))
		complete = true
		for _, d := range dirs {
			now[d] = true
			if watched[d] {
				continue
			}
			if len(watched) >= maxWatches {
				complete = false
				continue
			}
			if err := watcher.Add(d); err != nil {
				complete = false
				continue
			}
			watched[d] = true
		}
		for d := range watched {
			if !now[d] {
				_ = watcher.Remove(d) // gone, or now ignored
				delete(watched, d)
			}
		}
		return complete
	}

	// The first refresh lists the folders to watch. A change in one of them
	// between its scan and the watch is caught by a refresh right after.
	var events <-chan fsnotify.Event
	var errs <-chan error
	if watcher != nil {
		events, errs = watcher.Events, watcher.Errors
		watched[root] = true
	}
	select {
	case <-p.ctx.Done():
		return
	case <-p.indexed:
	}
	complete := sync()
	p.changed()
	h.catchUp(root, ow, p)
	if !complete {
		h.Log.Warn("cannot watch every folder of the workspace; sweeping it for changes too", "root", root, "every", sweepInterval)
	}
	sweep := time.NewTicker(sweepInterval)
	defer sweep.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case ev := <-events:
			if ev.Op == fsnotify.Chmod {
				continue // permissions and times alone: the content is the same
			}
			p.changed()
			settle.Reset(settleDelay)
			continue
		case err := <-errs:
			if errors.Is(err, fsnotify.ErrEventOverflow) { // events were lost: look at everything
				p.changed()
				settle.Reset(settleDelay)
			}
			continue
		case <-sweep.C:
			if complete {
				continue
			}
			p.changed()
		case <-settle.C:
		}
		start := time.Now()
		h.catchUp(root, ow, p)
		complete = sync()
		// A tree so large that a refresh takes long is swept less often:
		// at most a tenth of the time goes to sweeping.
		sweep.Reset(max(sweepInterval, 10*time.Since(start)))
	}
}

// catchUp refreshes the root after changes on disk, then resolves its
// references again.
func (h *Host) catchUp(root string, ow *openWorkspace, p *passes) {
	seen := p.catchingUp()
	ow.refresh.Lock()
	totals, _, err := ow.ws.Refresh(p.ctx, func(pr indexer.Progress) {
		if pr.Total == 0 {
			return // nothing to read: the last figures stand
		}
		p.mu.Lock()
		p.progress = pr
		p.mu.Unlock()
	})
	ow.refresh.Unlock()
	p.caughtUp(seen)
	switch {
	case err != nil && p.ctx.Err() == nil:
		h.Log.Warn("refreshing after changes on disk failed", "root", root, "err", err)
	case err == nil && totals.Extracted+totals.Reused+totals.Removed+totals.Touched > 0:
		h.scheduleUses(p, usesDelay)
	}
}

// Settle waits, at most until ctx ends, until the changes seen on disk in
// the root so far are in its index, so an answer never shows text the file
// no longer has. A root not open or not watched returns at once.
func (h *Host) Settle(ctx context.Context, root string) error {
	ow, ok := h.lookup(root)
	if !ok {
		return nil
	}
	select {
	case <-ow.passes.settled():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
