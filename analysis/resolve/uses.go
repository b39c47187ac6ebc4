package resolve

import (
	"container/list"

	"github.com/kast-dev/kast/analysis"
)

// maxTied bounds the definitions a reference can be a use of. A reference
// that resolution leaves tied between more (x.String() with x of unknown
// type, among thousands of String methods) tells nothing about any of them,
// and listing it under each would multiply the uses to store.
const maxTied = 8

// topTies is how many of c, best first, share the first one's confidence.
func topTies(c []Candidate) int {
	n := 0
	for n < len(c) && c[n].Confidence == c[0].Confidence {
		n++
	}
	return n
}

// usesOf returns the definitions a reference is counted as a use of: its
// best candidates, unless too many tie. c is sorted best first, as Resolve
// returns it.
func usesOf(c []Candidate) []Candidate {
	n := topTies(c)
	if n > maxTied {
		return nil
	}
	return c[:n]
}

// FileUses resolves every reference of the file at path and calls use for
// each definition it is a use of that is visible beyond a body and has the
// reference's name: what References would find in this file. Uses of Go's
// predeclared identifiers are left out, as references to them are not
// listed; so are uses of parameters and locals, which References finds in
// their own file.
func (r *Resolver) FileUses(path string, use func(def DefID, ref Reference)) {
	defer r.pin(path)()
	if f := r.file(path); f != nil {
		r.fileUses(f, use)
	}
}

// FileUsesOf is FileUses of the whole facts f, which replace any the
// resolver memoized for f.Path: a reference pass's workspace serves the
// files resolution crosses into as declarations tables (storage's Decls),
// which lack the references and bodies the file resolved needs. pause,
// which may be nil, is called between references every pauseEvery: a
// background pass gives way to queries inside a large file too.
func (r *Resolver) FileUsesOf(f *analysis.FileFacts, pause func(), use func(def DefID, ref Reference)) {
	defer r.pin(f.Path)()
	r.mu.Lock()
	r.replaceLocked(f)
	r.mu.Unlock()
	r.fileUsesPausing(f, pause, use)
}

// pauseEvery is how many references FileUsesOf resolves between pauses: a
// fraction of a millisecond's work, though a reference of a common name
// at millions of lines can take a millisecond.
const pauseEvery = 8

// replaceLocked memoizes f as its path's facts in place of any other. The
// caller has pinned the path, so f stays while the pin holds.
func (r *Resolver) replaceLocked(f *analysis.FileFacts) {
	c := &r.files
	if e, ok := c.byPath[f.Path]; ok {
		if e.Value.(*cachedFile).facts == f {
			return
		}
		r.dropLocked(e)
	}
	r.keepLocked(f.Path, f)
}

// dropLocked removes a memoized file, with the tables built from it.
func (r *Resolver) dropLocked(e *list.Element) {
	c := &r.files
	old := e.Value.(*cachedFile)
	c.lru.Remove(e)
	delete(c.byPath, old.path)
	c.bytes -= old.size
	if old.facts != nil {
		delete(r.names, old.facts)
		delete(r.scoped, old.facts)
		delete(r.inheritances, old.facts)
	}
}

func (r *Resolver) fileUses(f *analysis.FileFacts, use func(def DefID, ref Reference)) {
	r.fileUsesPausing(f, nil, use)
}

func (r *Resolver) fileUsesPausing(f *analysis.FileFacts, pause func(), use func(def DefID, ref Reference)) {
	path := f.Path
	skip := map[DefID]bool{}
	for i, ref := range f.Refs {
		if pause != nil && i%pauseEvery == pauseEvery-1 {
			pause()
		}
		id := RefID{path, int32(i)}
		uses := r.resolveUses(f, id)
		ambiguous := overloadLangs[f.Lang] && r.ambiguous(uses)
		for _, c := range uses {
			s, ok := skip[c.Def]
			if !ok {
				g := r.file(c.Def.Path)
				s = g == nil || c.Def.Index < 0 || int(c.Def.Index) >= len(g.Defs) ||
					DeclaredInBody(g, c.Def.Index) || IsPredeclared(r.ws, c.Def)
				skip[c.Def] = s
			}
			// Like References, only uses by the definition's own name (or
			// the other JVM language's name for it): a use through an
			// import alias is not renamed with it.
			if !s && r.namedBy(c.Def, r.file(c.Def.Path).Defs[c.Def.Index].Name, f.Lang, ref.Name) {
				use(c.Def, Reference{Ref: id, Span: ref.Span, Role: ref.Role, Confidence: c.Confidence, Uncertain: c.Uncertain,
					Ambiguous: ambiguous})
			}
		}
	}
}

// ResolvesTo reports whether a reference is a use of def, as References
// counts it.
func (r *Resolver) ResolvesTo(id RefID, def DefID) (Reference, bool) {
	return r.resolved(id).To(id, def)
}

// Resolved is what a reference is a use of, as References counts it, for
// any definition: a query remembers it (see ResolvedMemo) to answer the
// next query about another definition of the name without resolving the
// reference again.
type Resolved struct {
	span      analysis.Span
	role      analysis.Role
	uses      []resolvedUse
	ambiguous bool
}

// resolvedUse is one definition a reference is a use of.
type resolvedUse struct {
	def        DefID
	confidence float64
	uncertain  bool
}

// sure reports whether the reference was resolved to something and to
// nothing uncertain: not a guess, whose ranking may depend on the file.
func (x Resolved) sure() bool {
	for _, u := range x.uses {
		if u.uncertain {
			return false
		}
	}
	return len(x.uses) > 0
}

// resolved resolves a reference for Resolved.To.
func (r *Resolver) resolved(id RefID) Resolved {
	uses := usesOf(r.Resolve(id))
	if len(uses) == 0 {
		return Resolved{}
	}
	f := r.file(id.Path)
	ref := f.Refs[id.Index]
	x := Resolved{span: ref.Span, role: ref.Role, uses: make([]resolvedUse, len(uses)),
		ambiguous: overloadLangs[f.Lang] && r.ambiguous(uses)}
	for i, c := range uses {
		x.uses[i] = resolvedUse{c.Def, c.Confidence, c.Uncertain}
	}
	return x
}

// To reports whether the reference id, resolved to x, is a use of def.
func (x Resolved) To(id RefID, def DefID) (Reference, bool) {
	for _, u := range x.uses {
		if u.def == def {
			return Reference{Ref: id, Span: x.span, Role: x.role, Confidence: u.confidence, Uncertain: u.uncertain,
				Ambiguous: x.ambiguous}, true
		}
	}
	return Reference{}, false
}
