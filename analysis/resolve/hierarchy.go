package resolve

import (
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kast-dev/kast/analysis"
)

// Reference is a use of a definition somewhere in the workspace.
type Reference struct {
	Ref        RefID
	Span       analysis.Span
	Role       analysis.Role
	Confidence float64
	Uncertain  bool
	// Ambiguous is set when the reference is bound as surely to another
	// definition (an overload its arguments do not tell apart): a rename
	// must not edit it.
	Ambiguous bool
}

// References finds the references that resolve to def: those where def is
// the best candidate. Guesses come back flagged Uncertain.
func (r *Resolver) References(def DefID) []Reference {
	return r.references(def, false)
}

// CertainReferences is References without the guesses, found faster: the
// files that cannot surely name def (see goReachers) are not resolved.
func (r *Resolver) CertainReferences(def DefID) []Reference {
	return r.references(def, true)
}

func (r *Resolver) references(def DefID, certain bool) []Reference {
	return r.ReferencesAmong(def, r.ReferenceCandidates(def, certain), certain)
}

// ReferencesAmong lists the references among ids that resolve to def,
// without the guesses if certain, resolving them on every core.
func (r *Resolver) ReferencesAmong(def DefID, ids []RefID, certain bool) []Reference {
	found := make([]Reference, len(ids))
	ok := make([]bool, len(ids))
	settled, _ := r.settleReferences(def, ids, found, ok, nil)
	parallel(r, len(ids), func(r *Resolver, i int) {
		if settled == nil || !settled[i] {
			found[i], ok[i] = r.ResolvesTo(ids[i], def)
		}
	})
	return answered(found, ok, certain)
}

// answered lists the references found, only the certain ones when asked.
func answered(found []Reference, ok []bool, certain bool) []Reference {
	var out []Reference
	for i := range found {
		if ok[i] && (!certain || !found[i].Uncertain) {
			out = append(out, found[i])
		}
	}
	return out
}

// ReferenceCandidates lists the references that may resolve to def: those
// named like it (in its own file only for a parameter or local). With
// certain, only those that may surely resolve to it.
func (r *Resolver) ReferenceCandidates(def DefID, certain bool) []RefID {
	f := r.file(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return nil
	}
	name := f.Defs[def.Index].Name
	var out []RefID
	if DeclaredInBody(f, def.Index) {
		// A parameter, local or local function is visible only in its
		// own file: skip the workspace-wide list of the name, which for
		// names like err or i holds tens of thousands of references.
		for i, ref := range f.Refs {
			if ref.Name == name {
				out = append(out, RefID{def.Path, int32(i)})
			}
		}
		return out
	}
	if certain && topLevelGo(f, def) {
		if out, ok := r.hintedTopLevel(def, f); ok {
			return out
		}
	}
	if certain && f.Lang == "go" {
		if out, ok := r.hintedMember(def, f); ok {
			return out
		}
	}
	for _, n := range r.UseNames(def) {
		out = append(out, r.ws.RefsNamed(n)...)
	}
	if !certain {
		return out
	}
	dirs := map[string]bool{}
	for _, id := range out {
		dirs[filepath.Dir(id.Path)] = true
	}
	reach := r.goReachers(def, f, dirs)
	if reach == nil {
		return out
	}
	kept := out[:0:0]
	for _, id := range out {
		if reach[filepath.Dir(id.Path)] {
			kept = append(kept, id)
		}
	}
	return kept
}

// parallel calls fn(v, i) for i in [0, n) on every core, each worker with
// its own view v of r; fn must be safe for concurrent use.
func parallel(r *Resolver, n int, fn func(v *Resolver, i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/minPerWorker)
	if workers < 2 {
		for i := range n {
			fn(r, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			v := r.View()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(v, i)
			}
		})
	}
	wg.Wait()
}

// minPerWorker is the least work that pays for a goroutine.
const minPerWorker = 32

// DeclaredInBody reports whether def i is declared inside a function, method
// or lambda body (a parameter, a local, a local function or class): its
// references are in its own file only.
func DeclaredInBody(f *analysis.FileFacts, i int32) bool {
	for c := f.Defs[i].Container; c >= 0 && int(c) < len(f.Defs); c = f.Defs[c].Container {
		switch f.Defs[c].Kind {
		case analysis.KindFunction, analysis.KindMethod, analysis.KindConstructor, analysis.KindLambda:
			return true
		}
	}
	return false
}

// CallSite is one call of a definition.
type CallSite struct {
	// Caller is the calling definition; its Index is analysis.None for a call
	// at the top level of a file.
	Caller     DefID
	Site       RefID
	Span       analysis.Span
	Confidence float64
	Uncertain  bool
	// Ambiguous is set when the call ties as surely to another overload.
	Ambiguous bool
}

// Callers lists the call sites of def with their calling definitions.
func (r *Resolver) Callers(def DefID) []CallSite { return r.CallSites(r.References(def)) }

// CallSites lists the calls among refs, references of one definition, with
// the definitions they are made from.
func (r *Resolver) CallSites(refs []Reference) []CallSite {
	var out []CallSite
	for _, ref := range refs {
		if ref.Role&analysis.RoleCall == 0 {
			continue
		}
		f := r.file(ref.Ref.Path)
		for _, c := range f.Calls {
			if c.Ref == ref.Ref.Index {
				out = append(out, CallSite{
					Caller: DefID{ref.Ref.Path, c.Caller}, Site: ref.Ref, Span: ref.Span,
					Confidence: ref.Confidence, Uncertain: ref.Uncertain, Ambiguous: ref.Ambiguous,
				})
			}
		}
	}
	return out
}

// Callee is a call made by a definition and what it may call.
type Callee struct {
	Name    string
	Site    RefID
	Span    analysis.Span
	Targets []Candidate // best first; empty when nothing in the workspace matches
}

// Callees lists the calls made directly in def's body.
func (r *Resolver) Callees(def DefID) []Callee {
	f := r.file(def.Path)
	if f == nil {
		return nil
	}
	var out []Callee
	for _, c := range f.Calls {
		if c.Caller == def.Index {
			id := RefID{def.Path, c.Ref}
			out = append(out, Callee{Name: c.Callee, Site: id, Span: c.Site, Targets: r.Resolve(id)})
		}
	}
	return out
}

// TypeEdge is a declared supertype and what it resolves to.
type TypeEdge struct {
	Name    string
	Span    analysis.Span
	Targets []Candidate // best first; empty for types outside the workspace
}

// Supertypes lists the direct supertypes of a type definition.
func (r *Resolver) Supertypes(def DefID) []TypeEdge {
	edges := r.supertypes(def, 0)
	for i := range edges {
		edges[i].Targets = r.finish(def.Path, edges[i].Targets)
	}
	return edges
}

func (r *Resolver) supertypes(def DefID, depth int) []TypeEdge {
	f := r.file(def.Path)
	if f == nil {
		return nil
	}
	if overloadLangs[f.Lang] || ecmaLang(f.Lang) {
		// Kotlin and Java look inherited overloads up at every call of a
		// member, and TypeScript's supertypes are reached through imports
		// and re-exports (zod's `extends core.$ZodType`): a type's
		// supertypes are resolved once per resolver.
		r.mu.Lock()
		edges, ok := r.supers[superKey{def, depth}]
		r.mu.Unlock()
		if !ok {
			edges = r.supertypesOf(f, def, depth)
			r.mu.Lock()
			r.supers[superKey{def, depth}] = edges
			r.mu.Unlock()
		}
		out := slices.Clone(edges)
		for i := range out {
			out[i].Targets = slices.Clone(out[i].Targets)
		}
		return out
	}
	return r.supertypesOf(f, def, depth)
}

// superKey is what a type's resolved supertypes depend on.
type superKey struct {
	def   DefID
	depth int
}

func (r *Resolver) supertypesOf(f *analysis.FileFacts, def DefID, depth int) []TypeEdge {
	var out []TypeEdge
	for i, s := range f.Supertypes {
		if s.Def == def.Index {
			out = append(out, TypeEdge{Name: s.Name, Span: s.Span, Targets: r.resolveSupertype(f, int32(i), depth)})
		}
	}
	return out
}

// resolveSupertype resolves an inheritance edge through the inheritance
// reference recorded at the same place, which carries scope and qualifier.
func (r *Resolver) resolveSupertype(f *analysis.FileFacts, edge int32, depth int) []Candidate {
	s := f.Supertypes[edge]
	d := f.Defs[s.Def]
	ref := analysis.Ref{Name: baseTypeName(s.Name), Span: s.Span, Role: analysis.RoleInheritance, Scope: d.Scope, Enclosing: d.Container}
	if i := r.inheritanceRef(f, s.Span); i != analysis.None {
		ref = f.Refs[i]
	}
	if f.Lang == "python" {
		return r.pythonClassAlias(r.resolve(f, ref, depth+1), depth)
	}
	if ecmaLang(f.Lang) {
		return r.withoutNamespaces(r.resolve(f, ref, depth+1))
	}
	return r.resolve(f, ref, depth+1)
}

// Subtypes lists the definitions that name def as a direct supertype.
func (r *Resolver) Subtypes(def DefID) []Candidate {
	f := r.file(def.Path)
	if f == nil {
		return nil
	}
	var out []Candidate
	for _, id := range r.ws.SupertypesNamed(f.Defs[def.Index].Name) {
		g := r.file(id.Path)
		for _, c := range best(r.finish(id.Path, r.resolveSupertype(g, id.Index, 0))) {
			if c.Def == def {
				sub := DefID{id.Path, g.Supertypes[id.Index].Def}
				out = append(out, r.candidate(sub, c.Confidence, c.Via))
			}
		}
	}
	if f.Lang == "go" {
		out = append(out, r.goImplementers(def)...)
	}
	return r.finish(def.Path, out)
}
