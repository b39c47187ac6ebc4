package resolve

import (
	"maps"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// What a reference pass stores of a reference is only its best candidates
// (usesOf): a reference left to the last-resort guesses of its name has
// thousands of them at ten million lines, and ordering them all (finish)
// for each such reference was a fifth of the pass, growing with the
// workspace. For a Go file whose candidates are all Go definitions no step
// after finish adds, drops or re-ranks one (they are Python's, Kotlin's and
// Java's), so the best ones are found in one scan instead.

// resolveUses is usesOf(r.Resolve(id)) for a reference of f, the facts
// memoized for id.Path, pinned by the caller.
func (r *Resolver) resolveUses(f *analysis.FileFacts, id RefID) []Candidate {
	if f.Lang != "go" || id.Index < 0 || int(id.Index) >= len(f.Refs) {
		return usesOf(r.Resolve(id))
	}
	c := r.resolve(f, f.Refs[id.Index], 0)
	if len(c) <= maxConstrained || slices.ContainsFunc(c, func(x Candidate) bool { return !strings.HasSuffix(x.Def.Path, ".go") }) {
		// Few enough to order as Resolve does (finish reads build
		// constraints of up to maxConstrained of them).
		return usesOf(r.preferActual(r.bindOverloads(f, f.Refs[id.Index], r.javaConstructors(f, f.Refs[id.Index], r.finish(id.Path, c)))))
	}
	return r.bestOf(id.Path, c)
}

// bestOf is usesOf(r.finish(from, c)) for Go candidates, more than
// maxConstrained of them: the distinct definitions at the greatest
// confidence, those built for from's platform first, or none when more
// than maxTied tie.
func (r *Resolver) bestOf(from string, c []Candidate) []Candidate {
	top := c[0].Confidence
	for _, x := range c[1:] {
		top = max(top, x.Confidence)
	}
	var out []Candidate
	for _, x := range c {
		if x.Confidence != top || slices.ContainsFunc(out, func(y Candidate) bool { return y.Def == x.Def }) {
			continue
		}
		if len(out) == maxTied {
			return nil
		}
		x.Uncertain = x.Confidence < r.threshold
		out = append(out, x)
	}
	slices.SortStableFunc(out, func(a, b Candidate) int { return goBuildFit(from, b.Def.Path) - goBuildFit(from, a.Def.Path) })
	return out
}

// NameTables is what a workspace sharing its facts between resolvers (a
// reference pass's workers and their successive resolvers) may offer: a
// file's definitions by name, built once for all of them while the facts
// are shared; nil when it keeps no table for f.
type NameTables interface {
	NamesOf(f *analysis.FileFacts) map[string][]int32
}

// NameTable returns f's definitions by name, as the resolver's name tables
// hold them.
func NameTable(f *analysis.FileFacts) map[string][]int32 {
	table := map[string][]int32{}
	for i, d := range f.Defs {
		table[d.Name] = append(table[d.Name], int32(i))
	}
	return table
}

// maxCarriedDefs bounds the name-table entries Renewed carries over with
// their groupings by folder.
const maxCarriedDefs = 1 << 17

// Renewed returns a resolver over ws, with r's threshold and budget, that
// starts with the files r memoizes and the name tables built from them: a
// reference pass replaces its resolver as its other lookups grow, and
// rebuilding the name tables of the files the next package reads again
// was a fifth of the pass's allocations. What r memoizes is bounded by its
// budget, and so is what is carried over: the workspace's definitions of
// the names r looked up, with their groupings by folder (Go methods,
// top-level definitions), only while they are few. ws must answer as r's
// workspace does.
func (r *Resolver) Renewed(ws Workspace) *Resolver {
	n := NewWithBudget(ws, r.files.max)
	n.threshold = r.threshold
	r.mu.Lock()
	defer r.mu.Unlock()
	entries := 0
	for _, d := range r.defsNamed {
		entries += len(d) + 1
	}
	if entries <= maxCarriedDefs {
		// Cloned, not copied into n's empty maps: growing those entry by
		// entry was 4% of a pass's CPU at three million lines.
		n.defsNamed, n.goMethods = maps.Clone(r.defsNamed), maps.Clone(r.goMethods)
		if r.byDir.top != nil {
			n.byDir.top = maps.Clone(r.byDir.top)
		}
	}
	for e := r.files.lru.Back(); e != nil; e = e.Prev() {
		cf := e.Value.(*cachedFile)
		if cf.facts == nil {
			continue
		}
		n.keepLocked(cf.path, cf.facts)
		if t, ok := r.names[cf.facts]; ok {
			n.names[cf.facts] = t
		}
		if t, ok := r.scoped[cf.facts]; ok {
			n.scoped[cf.facts] = t
		}
		if t, ok := r.inheritances[cf.facts]; ok {
			n.inheritances[cf.facts] = t
		}
	}
	return n
}
