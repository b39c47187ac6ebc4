package resolve

import (
	"container/list"

	"github.com/kast-dev/kast/analysis"
)

// A resolver memoizes the facts it reads: resolving one name reads the same
// files many times over. Unbounded, that memo held everything a resolver
// ever touched, and one file's references in the Go standard library could
// reach 150–200 MB of facts (every file declaring a method of a common
// name, every package a chain passes through). With a budget, the least
// recently used files go first, with the name tables built from them;
// what is evicted is read again if asked for.

// FactsSize estimates the memory decoded facts hold: measured on the Go
// standard library, about 150 bytes per definition or reference with their
// strings, definitions (with signatures and doc comments) weighing more.
func FactsSize(f *analysis.FileFacts) int64 {
	if f == nil {
		return 64
	}
	return int64(512 + 320*len(f.Defs) + 128*len(f.Refs) + 64*len(f.Scopes) + 96*len(f.Calls) + 96*len(f.Imports))
}

// NewWithBudget returns a resolver over ws whose memo of decoded facts
// keeps about maxBytes of them (by FactsSize), evicting the least recently
// used; 0 keeps every file it reads, as New does.
func NewWithBudget(ws Workspace, maxBytes int64) *Resolver {
	r := New(ws)
	r.files.max = maxBytes
	return r
}

// fileCache is the resolver's memo of files, most recently used first.
// The resolver's mutex guards it.
type fileCache struct {
	max, bytes int64 // max 0: unbounded
	byPath     map[string]*list.Element
	lru        list.List // of *cachedFile
	// pinned counts the calls resolving references of each file: the
	// file stays while they run, though one reference's lookups can read
	// more than the budget (a file evicted between its own references was
	// decoded again, and its tables rebuilt, for each of them).
	pinned map[string]int
}

type cachedFile struct {
	path  string
	facts *analysis.FileFacts
	size  int64
}

// get returns the memoized facts of path (nil is a memoized absence).
func (c *fileCache) get(path string) (*analysis.FileFacts, bool) {
	e, ok := c.byPath[path]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cachedFile).facts, true
}

// current reports whether f is the memoized facts of its path: the tables
// built from f are kept only while it is, so that they go with it.
func (c *fileCache) current(f *analysis.FileFacts) bool {
	e, ok := c.byPath[f.Path]
	return ok && e.Value.(*cachedFile).facts == f
}

// file returns a file's facts, fetched from the workspace the first time
// and kept within the budget: the references of a common name touch
// thousands of files many times over, and the name tables are keyed by the
// facts they were built from.
func (r *Resolver) file(path string) *analysis.FileFacts {
	r.mu.Lock()
	f, ok := r.files.get(path)
	r.mu.Unlock()
	if ok {
		return f
	}
	f = r.ws.File(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if g, ok := r.files.get(path); ok {
		return g // fetched twice at once: one answer for both
	}
	r.keepLocked(path, f)
	return f
}

// keepLocked memoizes f as path's facts and evicts past the budget.
func (r *Resolver) keepLocked(path string, f *analysis.FileFacts) {
	c := &r.files
	if c.byPath == nil {
		c.byPath = map[string]*list.Element{}
	}
	cf := &cachedFile{path: path, facts: f, size: FactsSize(f)}
	admitted := c.lru.PushFront(cf)
	c.byPath[path] = admitted
	c.bytes += cf.size
	// Never the file just admitted: a caller builds tables from it next,
	// which would outlive it (pinned files moved to the front could leave
	// it at the back).
	for skipped := 0; c.max > 0 && c.bytes > c.max && c.lru.Len() > 1 && skipped < c.lru.Len(); {
		back := c.lru.Back()
		if back == admitted {
			break
		}
		if c.pinned[back.Value.(*cachedFile).path] > 0 {
			c.lru.MoveToFront(back)
			skipped++
			continue
		}
		r.dropLocked(back)
	}
}

// tableFor reports whether a table built from f may be kept: f is the
// memoized facts of its path, or is memoized again now (a file evicted
// while a caller still used it). Facts of a path memoized anew since are
// not: their tables would outlive them. The resolver's mutex is held.
func (r *Resolver) tableFor(f *analysis.FileFacts) bool {
	if r.files.current(f) || f.Path == "" {
		return true // facts without a path are not memoized: kept as before
	}
	if _, ok := r.files.byPath[f.Path]; ok {
		return false
	}
	r.keepLocked(f.Path, f)
	return r.files.current(f)
}

// pin keeps path's facts memoized until unpin is called.
func (r *Resolver) pin(path string) (unpin func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &r.files
	if c.pinned == nil {
		c.pinned = map[string]int{}
	}
	c.pinned[path]++
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if c.pinned[path]--; c.pinned[path] <= 0 {
			delete(c.pinned, path)
		}
	}
}
