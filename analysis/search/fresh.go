package search

import (
	"errors"
	"fmt"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Without help, every search would walk the tree twice before reading a
// line: once to refresh the index (a stat per file) and once to list the
// files its filter lets through. A long-lived engine (Options.Watch: the
// host's, shared by the LSP, kast serve and kast mcp) watches every folder
// its walks enter instead, and while nothing there changed it reuses its
// last refresh and listings, so a warm search walks nothing.
//
// A result is reused only if every folder its walk entered was already
// watched when the walk began: a change in a folder between its reading and
// its watch would otherwise go unseen. So the first walk of a tree adds the
// watches, the second is cached, and later ones are free until a change.
// Where watching fails (no inotify, too many folders) nothing is cached.

// maxSearchWatches bounds the folders one engine watches.
const maxSearchWatches = 16384

type freshness struct {
	w *fsnotify.Watcher

	mu       sync.Mutex
	watched  map[string]bool
	full     bool   // a watch failed or the bound was reached: nothing is cached
	gen      uint64 // bumped by every change seen
	listings map[string]Listing
	indexed  bool   // the state matches the disk as of gen
	indexGen uint64 // gen when indexed was set
}

func newFreshness() *freshness {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	f := &freshness{w: w, watched: map[string]bool{}, listings: map[string]Listing{}}
	go f.run()
	return f
}

func (f *freshness) run() {
	for {
		select {
		case ev, ok := <-f.w.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue // times and permissions only: the content is the same
			}
			f.changed()
		case err, ok := <-f.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				f.changed() // events were lost
			}
		}
	}
}

func (f *freshness) changed() {
	f.mu.Lock()
	f.gen++
	f.indexed = false
	clear(f.listings)
	f.mu.Unlock()
}

func (f *freshness) close() {
	if f != nil {
		f.w.Close()
	}
}

// begin is called before a walk: the generation it starts at.
func (f *freshness) begin() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen
}

// watch adds watches for the folders a walk entered; it reports whether the
// walk's result may be cached (every folder was already watched, nothing
// changed since gen).
func (f *freshness) watch(dirs []string, gen uint64) bool {
	f.mu.Lock()
	var missing []string
	for _, d := range dirs {
		if !f.watched[d] {
			missing = append(missing, d)
		}
	}
	full := f.full
	f.mu.Unlock()
	if full {
		return false
	}
	for _, d := range missing {
		f.mu.Lock()
		over := len(f.watched) >= maxSearchWatches
		f.mu.Unlock()
		err := f.w.Add(d)
		f.mu.Lock()
		if over || err != nil {
			f.full = true
		} else {
			f.watched[d] = true
		}
		f.mu.Unlock()
		if over || err != nil {
			return false
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(missing) == 0 && f.gen == gen && !f.full
}

// fresh reports whether the last refresh still matches the disk.
func (f *freshness) fresh() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.indexed && f.indexGen == f.gen
}

func (f *freshness) setIndexed(gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gen == gen {
		f.indexed, f.indexGen = true, gen
	}
}

func (f *freshness) listing(key string) (Listing, bool) {
	if f == nil {
		return Listing{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.listings[key]
	return l, ok
}

func (f *freshness) keep(key string, l Listing, gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gen == gen {
		f.listings[key] = l
	}
}

// scopeKey identifies a listing: the scope's paths, globs and filter.
func scopeKey(sc Scope) string {
	return fmt.Sprintf("%q|%q|%q|%v,%v,%v|%v|%q", sc.Paths, sc.Include, sc.Exclude,
		sc.Filter.NoIgnore, sc.Filter.SkipHidden, sc.Filter.Ckignore, sc.Filter.Excludes == nil, sc.Filter.Excludes)
}
