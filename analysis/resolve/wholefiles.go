package resolve

import (
	"sync"

	"github.com/kast-dev/kast/analysis"
)

// A reference query before the background pass has stored a name's uses
// resolves the name's candidate references itself, and each one crosses
// into many files: the package of its receiver's type, the packages a call
// chain passes through, every file declaring a method of the name. Profiled
// on the Go standard library's cold open, decoding those files' whole facts
// was most of a slow query (Len, Pos, Signal: 0.5–6 s). Like the pass, such
// a query can read the files it crosses into as declarations tables
// (storage's Decls), several times smaller and faster to decode, and the
// whole facts only of the files whose references it resolves.

// WholeFile returns the facts of a file whose references are resolved, or
// nil: what a resolver reading declarations tables needs of the file it
// resolves (its bodies and locals, and of its references at least those at
// the indexes refs: the others may be zero Refs at their indexes, which
// resolving a Go reference does not read).
type WholeFile func(path string, refs []int32) *analysis.FileFacts

// ReferencesAmongWhole is ReferencesAmong for a resolver whose workspace
// serves declarations tables: the references of each candidate file are
// resolved with its whole facts from whole, memoized in place of its table
// while they are (and kept as any read file after). The answer is the
// same, as the stored uses of the pass, read the same way, are.
//
// memo, which may be nil, answers for the references an earlier query
// resolved, and keeps those this one resolves.
func (r *Resolver) ReferencesAmongWhole(def DefID, ids []RefID, certain bool, whole WholeFile, memo *ResolvedMemo) []Reference {
	found := make([]Reference, len(ids))
	ok := make([]bool, len(ids))
	settled, reps := r.settleReferences(def, ids, found, ok, whole)
	whole = reps.reading(whole)
	// Grouped by file, so that each file's whole facts are held by one
	// worker while its references are resolved.
	byFile := map[string][]int{}
	var paths []string
	for i, id := range ids {
		if settled != nil && settled[i] {
			continue
		}
		if x, known := memo.Resolved(id); known {
			found[i], ok[i] = x.To(id, def)
			continue
		}
		if byFile[id.Path] == nil {
			paths = append(paths, id.Path)
		}
		byFile[id.Path] = append(byFile[id.Path], i)
	}
	eachFile(r, len(paths), func(r *Resolver, j int) {
		refs := make([]int32, len(byFile[paths[j]]))
		for k, i := range byFile[paths[j]] {
			refs[k] = ids[i].Index
		}
		release := r.holdWhole(paths[j], refs, whole)
		defer release()
		for _, i := range byFile[paths[j]] {
			x := r.resolved(ids[i])
			memo.Remember(ids[i], x)
			found[i], ok[i] = x.To(ids[i], def)
		}
	})
	return answered(found, ok, certain)
}

// ResolvedMemo keeps what references resolved to while the workspace does
// not change. A common name's references are the candidates of each of
// its definitions (Pos: a field of obj.Prog, methods of syntax.Pos and
// ir.Node, ten thousand references in cmd/compile), and resolving them
// is most of a query before the pass: the next query about the name
// resolves only those no earlier one did. It is safe for concurrent use;
// a nil memo keeps nothing.
type ResolvedMemo struct {
	// Max bounds the references kept: past it, the memo starts over.
	// Zero keeps every one.
	Max int

	mu   sync.Mutex
	refs map[RefID]Resolved
}

// Resolved is what id resolved to, if remembered.
func (m *ResolvedMemo) Resolved(id RefID) (Resolved, bool) {
	if m == nil {
		return Resolved{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	x, ok := m.refs[id]
	return x, ok
}

// Remember keeps what id resolved to.
func (m *ResolvedMemo) Remember(id RefID, x Resolved) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refs == nil || (m.Max > 0 && len(m.refs) >= m.Max) {
		m.refs = map[RefID]Resolved{}
	}
	m.refs[id] = x
}

// eachFile is parallel for work counted in files, each worth many
// references: two files already pay for a goroutine.
func eachFile(r *Resolver, n int, fn func(v *Resolver, i int)) {
	if n < 2 {
		for i := range n {
			fn(r, i)
		}
		return
	}
	parallel(r, n*minPerWorker, func(v *Resolver, i int) {
		if i%minPerWorker == 0 {
			fn(v, i/minPerWorker)
		}
	})
}

// heldFile is a file's whole facts while holders resolve its references.
type heldFile struct {
	facts *analysis.FileFacts
	n     int
}

// holdWhole memoizes path's facts from whole, with at least the references
// at the indexes refs, in place of whatever was read for it, and keeps
// them until release is called. A path already held keeps the facts its
// first holder placed (another query resolving the same file), so that no
// holder's facts are swapped under it; a holder needing references those
// facts lack waits for their release. With a nil whole it does nothing:
// the resolver reads whole facts anyway.
func (r *Resolver) holdWhole(path string, refs []int32, whole WholeFile) (release func()) {
	if whole == nil {
		return func() {}
	}
	var h *heldFile
	for {
		r.mu.Lock()
		for h = r.held[path]; h != nil && !hasRefs(h.facts, refs); h = r.held[path] {
			if r.released == nil {
				r.released = sync.NewCond(&r.mu)
			}
			r.released.Wait()
		}
		r.mu.Unlock()
		var f *analysis.FileFacts
		if h == nil {
			if f = whole(path, refs); f == nil {
				return func() {}
			}
		}
		r.mu.Lock()
		if h = r.held[path]; h == nil && f != nil {
			h = &heldFile{facts: f}
			if r.held == nil {
				r.held = map[string]*heldFile{}
			}
			r.held[path] = h
			break // with the lock held
		}
		if h != nil && hasRefs(h.facts, refs) {
			break
		}
		r.mu.Unlock() // released meanwhile, or taken by another: again
	}
	defer r.mu.Unlock()
	h.n++
	c := &r.files
	if c.pinned == nil {
		c.pinned = map[string]int{}
	}
	c.pinned[path]++
	r.replaceLocked(h.facts)
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if c.pinned[path]--; c.pinned[path] <= 0 {
			delete(c.pinned, path)
		}
		if h.n--; h.n == 0 {
			delete(r.held, path)
			if r.released != nil {
				r.released.Broadcast()
			}
			// The whole facts go with the last holder: kept, they were
			// most of a cold open's heap (every candidate file of every
			// query), and what crosses into the file reads its table.
			if c.current(h.facts) && c.pinned[path] == 0 {
				r.dropLocked(c.byPath[path])
			}
		}
	}
}

// hasRefs reports whether f holds its references at the indexes refs: a
// reference read has a name, one passed over (see WholeFile) none. An
// index past f's references is no use waiting for.
func hasRefs(f *analysis.FileFacts, refs []int32) bool {
	for _, i := range refs {
		if i >= 0 && int(i) < len(f.Refs) && f.Refs[i].Name == "" {
			return false
		}
	}
	return true
}
