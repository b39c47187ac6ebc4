package workspace

import (
	"cmp"
	"hash/fnv"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// How a reference pass shares the process with queries: the files queries
// want first, the file table a stopped pass resumes on, and the view its
// workers read through.

// passYield is how one worker of a background pass gives way to queries,
// between files and between the references of a file: a query waits for
// a core while both run the pass, and one file can take seconds. After a
// wait that queries kept up for most, the worker runs for minPassRun
// before it waits again, so the pass still ends beside a busy editor.
type passYield struct {
	v      *view
	done   <-chan struct{}
	runTil time.Time
	// most is maxYield for the first worker and longer for the others:
	// while queries keep coming only the first takes its turns, and a
	// query never shares both cores with the pass (at 3 million lines,
	// those turns were most of the slow definitions).
	most time.Duration
}

// newPassYield returns the yield of the pass worker numbered worker.
func newPassYield(v *view, done <-chan struct{}, worker int) *passYield {
	most := maxYield
	if worker > 0 {
		most = maxYieldOthers
	}
	return &passYield{v: v, done: done, most: most}
}

// minPassRun is how long a worker runs after waiting maxYield.
const minPassRun = 100 * time.Millisecond

func (y *passYield) pause() {
	if !y.runTil.IsZero() && time.Now().Before(y.runTil) {
		return
	}
	start := time.Now()
	y.v.waitForQueries(y.done, queryQuiet, y.most)
	if now := time.Now(); now.Sub(start) >= y.most {
		y.runTil = now.Add(minPassRun)
	}
}

// maxWanted bounds the files queries ask a pass to take first.
const maxWanted = 4096

// want asks the pass under way (or the next) to resolve paths before the
// others: a reference query that found a name's candidates unresolved
// names their files, so the next queries about that code read stored uses.
func (u *usesTracker) want(paths []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	// The newest asks matter most, and are taken from the end.
	paths = paths[max(0, len(paths)-maxWanted):]
	if len(u.wanted)+len(paths) > maxWanted {
		u.wanted = u.wanted[:0]
	}
	u.wanted = append(u.wanted, paths...)
}

// takeWanted returns the most recently wanted file still in todo.
func (u *usesTracker) takeWanted(todo map[string]bool) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for len(u.wanted) > 0 {
		p := u.wanted[len(u.wanted)-1]
		u.wanted = u.wanted[:len(u.wanted)-1]
		if todo[p] {
			return p, true
		}
	}
	return "", false
}

// tableKey hashes the indexed file table (paths and content hashes): two
// generations of the view with the same key hold the same facts.
func (w *Workspace) tableKey() uint64 {
	u := &w.uses
	gen := w.view.gen.Load()
	u.mu.Lock()
	if u.tableGen == gen && u.table != 0 {
		defer u.mu.Unlock()
		return u.table
	}
	u.mu.Unlock()
	h := fnv.New64a()
	for _, p := range w.view.Files() {
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write([]byte(w.view.indexedHash(p)))
		h.Write([]byte{0})
	}
	key := h.Sum64() | 1 // never 0, which means not computed
	u.mu.Lock()
	defer u.mu.Unlock()
	if w.view.gen.Load() == gen {
		u.tableGen, u.table = gen, key
	}
	return key
}

// partialDone returns the files whose uses an unfinished full pass over the
// current file table has stored, or nil. The map must not be modified.
func (w *Workspace) partialDone() map[string]bool {
	key := w.tableKey()
	u := &w.uses
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.partial == nil || u.partial.table != key {
		return nil
	}
	return u.partial.done
}

// passView is the view as a pass worker's resolver reads it: its reads are
// not queries (the pass does not wait for itself), and it counts the
// decoded facts the resolver memoizes, so the pass can replace it.
type passView struct {
	*view
	cache *passCache
	kept  atomic.Int64
}

// File reads through the view's cache without filling it: the pass reads
// every file of the workspace, which would push out what queries come back
// to. The pass's workers share what they read (passCache).
func (p *passView) File(path string) *analysis.FileFacts {
	f := p.cache.file(path)
	if f != nil {
		p.kept.Add(factsSize(f))
	}
	return f
}

// NamesOf shares the name tables of the facts the workers share.
func (p *passView) NamesOf(f *analysis.FileFacts) map[string][]int32 { return p.cache.namesOf(f) }

func (p *passView) DefsNamed(name string) []resolve.DefEntry {
	return p.cache.defsNamed(name)
}
func (p *passView) RefsNamed(name string) []resolve.RefID { return p.view.refsNamed(name) }
func (p *passView) SupertypesNamed(name string) []resolve.SupertypeID {
	return p.view.supertypesNamed(name)
}

// byFolder orders paths folder by folder, each folder's files together: in
// path order a folder's files come apart around its subfolders' (net/http's
// around net/http/httptest's), and the pass's memos, filled with what one
// package's resolution reads, were emptied by the subfolders' between.
func byFolder(paths []string) {
	slices.SortFunc(paths, func(a, b string) int {
		da := a[:strings.LastIndexByte(a, filepath.Separator)+1]
		db := b[:strings.LastIndexByte(b, filepath.Separator)+1]
		return cmp.Or(strings.Compare(da, db), strings.Compare(a, b))
	})
}

// maxPrioritizedPackage bounds the files of one package Prioritize puts
// ahead of the rest (a generated package can hold thousands).
const maxPrioritizedPackage = 256

// Prioritize asks the refresh under way (the first index), or the next,
// to index the folders of paths first, and the reference pass under way,
// or the next, to resolve paths first, then the other files of their
// folders (their packages in Go, and mostly elsewhere): what an editor
// shows. It only reorders the files a refresh or a pass takes anyway.
func (w *Workspace) Prioritize(paths []string) {
	if len(paths) == 0 {
		return
	}
	// A refresh under way (the first index) takes their folders next.
	dirs := make([]string, len(paths))
	for i, p := range paths {
		dirs[i] = filepath.Dir(p)
	}
	w.indexFirst.Want(dirs...)
	files := w.view.Files() // sorted
	var near []string
	seen := map[string]bool{}
	for _, p := range paths {
		if dir := filepath.Dir(p); !seen[dir] {
			seen[dir] = true
			near = append(near, filesIn(files, dir, maxPrioritizedPackage)...)
		}
	}
	// The wanted list is taken newest first: the named files go last.
	want := make([]string, 0, len(near)+len(paths))
	for _, p := range near {
		if !slices.Contains(paths, p) {
			want = append(want, p)
		}
	}
	for i := len(paths) - 1; i >= 0; i-- {
		want = append(want, paths[i])
	}
	w.uses.want(want)
}

// filesIn lists up to limit files directly in dir among sorted paths,
// skipping its subfolders' files by search rather than one by one.
func filesIn(sorted []string, dir string, limit int) []string {
	prefix := dir + string(filepath.Separator)
	var out []string
	i, _ := slices.BinarySearch(sorted, prefix)
	for i < len(sorted) && len(out) < limit && strings.HasPrefix(sorted[i], prefix) {
		rest := sorted[i][len(prefix):]
		sub, _, nested := strings.Cut(rest, string(filepath.Separator))
		if !nested {
			out = append(out, sorted[i])
			i++
			continue
		}
		// Past every path under prefix+sub+"/": the separator's successor.
		i, _ = slices.BinarySearch(sorted, prefix+sub+string(filepath.Separator+1))
	}
	return out
}
