package workspace

import (
	"container/list"
	"sync"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// A reference pass resolves every file, and resolving one reads the
// declarations of many others: its package, the packages it imports, every
// file declaring a method of a name it calls. Profiled on the Go standard
// library, decoding those facts again and again (each worker's resolver
// keeps only a small budget of them, and is replaced as it reads) was half
// of the pass's CPU and three quarters of its allocations, and looking up
// the same names in the name tables another tenth. So the workers of one
// pass share one memo of decoded facts and one of name lookups, each within
// a budget: the files a package's resolution reads are mostly those the
// previous files of the package read. What they read of a Go file is its
// declarations table (storage's Decls), not its whole facts: decoding
// those was still 35% of the pass with the memos shared.

// passBudget bounds what a pass holds; a variable so that tests can shrink
// it until every memo evicts all the time.
var passBudget = struct {
	// facts bounds the decoded facts a pass's workers share (by
	// resolve.FactsSize). The resolvers' own memos point at the same
	// facts, so this is most of what the pass holds.
	facts int64
	// defs bounds the name-table entries a pass memoizes.
	defs int
	// resolver bounds the decoded facts one worker's resolver keeps (it
	// memoizes every file it reads, and a file's references can reach
	// hundreds of files): with a fresh resolver every 64 files, the
	// standard library's pass held over 400 MB of them.
	resolver int64
	// renewal is how much a worker's resolver reads before it is
	// replaced: its memo of facts is bounded, but its lookups (names,
	// types, chains) grow with the files it resolves.
	renewal int64
	// ordinals bounds the files whose ordinals a worker memoizes.
	ordinals int
}{
	// Measured on the Go standard library's cold open (kastbench -cold, 2
	// workers, queries running, one run each): 64 MB facts, 128k names, a
	// 24 MB resolver renewed after 128 MB peaked at 542 MB RSS (pass 3m21s);
	// 24/64k/16/64 at 446 MB (7m12s); 40/64k/16/96 at 409 MB (2m33s).
	// At 3 million lines (kastbench -pass) 40 MB of facts thrashed: the
	// pass decoded declarations tables again and again (1.9 GB in its
	// first 2,500 files, generated files of 1 MB most), and 96 MB took
	// its CPU from 60 s to 45 s.
	facts: 96 << 20, defs: 1 << 16, resolver: 16 << 20, renewal: 96 << 20, ordinals: 4096,
}

// A pass over a large workspace keeps more live than the process's soft
// memory limit (250 MiB) holds: on ten million lines of Go (23,436 files)
// about 240 MB, and the collector then ran without pause, over half of the
// pass's CPU. The budget there is 1 GB of RSS, against 500 MB on
// the standard library (6,500 files, whose pass stays near the floor), so a
// pass over a larger workspace lets the limit follow its live heap up by
// passHeapPerFile for each file beyond passFilesWithinFloor (memlimit's
// ceiling, 512 MiB, bounds it at ten million lines). At three million
// lines (8,298 files, 190 MB live) 16 KiB a file left the collector some
// 45 MB to allocate between collections; 48 KiB lets the limit reach 1.5
// times the live heap: `kast index --references` over a stored index made
// 148 collections instead of 285 and took 51 s of CPU instead of 72, its
// peak RSS 604 MB instead of 523 (anonymous memory 322 MB instead of 274).
const (
	passFilesWithinFloor = 6600
	passHeapPerFile      = 48 << 10
)

// passHeapAllowance is how far above its floor the memory limit may follow
// the live heap during a pass over a workspace of that many files.
func passHeapAllowance(files int) int64 {
	return int64(max(0, files-passFilesWithinFloor)) * passHeapPerFile
}

// passLeastRoom is how far above its floor any pass lets the limit follow
// its live heap, whatever the workspace's size. On the standard library
// (11 MB by passHeapAllowance) the pass's live heap of about 200 MB met a
// goal of 215–230 MB: a collection every 150 ms, marking 60–180 ms each,
// so queries ran inside a mark phase most of the time. With 64 MB the cold
// start's background work ended after 1 m 30 s instead of 1 m 58 s – 2 m
// 22 s, its peak RSS 445 MB against the 500 MB budget once the value log's
// readahead was off (see storage's releaseMappedPages); 96 MB reached 479
// MB. It does not raise the facts the pass keeps (passFactsBudget).
const passLeastRoom = 64 << 20

// passCache is what one pass's workers share. It is valid for one
// generation of the view: the facts of a changed file are not served.
type passCache struct {
	v   *view
	gen uint64

	mu    sync.Mutex
	facts map[string]*list.Element // of *cachedFacts
	lru   list.List                // most recently used first
	bytes int64
	// factsMax bounds bytes (passFactsBudget).
	factsMax int64
	// defs holds the names looked up since it last filled; older those
	// looked up before, which a lookup moves back into defs: the names
	// every package asks for (String, Error, New) stay.
	defs, older map[string][]resolve.DefEntry
	nDefs       int
	// r is the resolver the workers share (its lookups are made once for
	// all of them), read through pv.
	r  *resolve.Resolver
	pv *passView
	// names holds the name tables of the facts in the memo (see NamesOf).
	names map[*analysis.FileFacts]map[string][]int32
}

// resolver returns the workers' resolver, a fresh one once the current
// one has read more than the renewal budget: the facts it keeps are
// bounded, but its lookups grow with the files it resolves.
func (c *passCache) resolver() *resolve.Resolver {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.r == nil {
		c.pv = &passView{view: c.v, cache: c}
		c.r = resolve.NewWithBudget(c.pv, passBudget.resolver)
	} else if c.pv.kept.Load() > passBudget.renewal {
		c.pv = &passView{view: c.v, cache: c}
		c.r = c.r.Renewed(c.pv)
	}
	return c.r
}

func newPassCache(v *view, files int) *passCache {
	return &passCache{v: v, gen: v.gen.Load(), facts: map[string]*list.Element{}, defs: map[string][]resolve.DefEntry{},
		factsMax: passFactsBudget(files)}
}

// passFactsBudget is the facts a pass over that many files shares: 40 MB
// within the memory limit's floor (the standard library's cold start then
// ran its collector a quarter of the time at 96 MB), up to passBudget.facts
// as the limit is allowed to rise with the workspace (at three million
// lines, 40 MB thrashed).
func passFactsBudget(files int) int64 {
	return min(passBudget.facts, passLeanFacts+passHeapAllowance(files)/2)
}

const passLeanFacts = 40 << 20

// current reports whether the view is still at the cache's generation; when
// it is not, the cache is emptied and reads go to the view.
func (c *passCache) currentLocked() bool {
	if c.v.gen.Load() == c.gen {
		return true
	}
	if len(c.facts) > 0 || len(c.defs) > 0 || len(c.older) > 0 {
		c.facts, c.defs, c.older, c.nDefs, c.bytes = map[string]*list.Element{}, map[string][]resolve.DefEntry{}, nil, 0, 0
		c.names = nil
		c.lru.Init()
	}
	return false
}

// file returns path's declarations table (see storage.Index.Decls): what
// resolution reads of a file it crosses into, several times smaller and
// faster to decode than the whole facts, decoded once for every worker
// while they fit. The file a worker resolves is read whole apart.
func (c *passCache) file(path string) *analysis.FileFacts {
	c.mu.Lock()
	if e, ok := c.facts[path]; ok && c.currentLocked() {
		c.lru.MoveToFront(e)
		f := e.Value.(*cachedFacts).facts
		c.mu.Unlock()
		return f
	}
	c.mu.Unlock()
	f := c.v.peekDecls(path)
	if f == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.facts[path]; ok || !c.currentLocked() {
		return f
	}
	cf := &cachedFacts{path: path, facts: f, size: factsSize(f)}
	c.facts[path] = c.lru.PushFront(cf)
	c.bytes += cf.size
	for c.bytes > c.factsMax && c.lru.Len() > 1 {
		old := c.lru.Remove(c.lru.Back()).(*cachedFacts)
		delete(c.facts, old.path)
		delete(c.names, old.facts)
		c.bytes -= old.size
	}
	return f
}

// namesOf returns the name table of f while f is in the memo, built once
// for every worker and every resolver the pass renews (rebuilt by each,
// they were a fifth of the pass's allocations); nil otherwise.
func (c *passCache) namesOf(f *analysis.FileFacts) map[string][]int32 {
	c.mu.Lock()
	t, ok := c.names[f]
	held := c.holdsLocked(f)
	c.mu.Unlock()
	if ok || !held {
		return t
	}
	t = resolve.NameTable(f)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.holdsLocked(f) {
		return nil // evicted meanwhile: the caller builds its own
	}
	if c.names == nil {
		c.names = map[*analysis.FileFacts]map[string][]int32{}
	}
	c.names[f] = t
	return t
}

// holdsLocked reports whether f is in the memo, at the view's generation.
func (c *passCache) holdsLocked(f *analysis.FileFacts) bool {
	e, ok := c.facts[f.Path]
	return ok && e.Value.(*cachedFacts).facts == f && c.currentLocked()
}

// defsNamed returns the name table's definitions called name, looked up
// once for every worker while they fit.
func (c *passCache) defsNamed(name string) []resolve.DefEntry {
	c.mu.Lock()
	if d, ok := c.defs[name]; ok && c.currentLocked() {
		c.mu.Unlock()
		return d
	}
	if d, ok := c.older[name]; ok && c.currentLocked() {
		c.keepDefsLocked(name, d)
		c.mu.Unlock()
		return d
	}
	c.mu.Unlock()
	d := c.v.defsNamed(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.currentLocked() {
		c.keepDefsLocked(name, d)
	}
	return d
}

// keepDefsLocked memoizes name's definitions in defs; a full defs becomes
// older, and the older one is dropped.
func (c *passCache) keepDefsLocked(name string, d []resolve.DefEntry) {
	if c.nDefs+len(d) > passBudget.defs {
		c.older, c.defs, c.nDefs = c.defs, map[string][]resolve.DefEntry{}, 0
	}
	c.defs[name] = d
	c.nDefs += len(d) + 1
}

// peekDecls is peek for a declarations table: the whole facts when queries
// keep them decoded.
func (v *view) peekDecls(path string) *analysis.FileFacts { return v.peekWith(path, v.ix.Decls) }
