package resolve

import (
	"slices"

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
	f := r.file(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return nil
	}
	name := f.Defs[def.Index].Name
	candidates := func(yield func(RefID) bool) {
		if DeclaredInBody(f, def.Index) {
			// A parameter, local or local function is visible only in its
			// own file: skip the workspace-wide list of the name, which for
			// names like err or i holds tens of thousands of references.
			for i, ref := range f.Refs {
				if ref.Name == name && !yield(RefID{def.Path, int32(i)}) {
					return
				}
			}
			return
		}
		for _, n := range r.UseNames(def) {
			for _, id := range r.ws.RefsNamed(n) {
				if !yield(id) {
					return
				}
			}
		}
	}
	var out []Reference
	for id := range candidates {
		if ref, ok := r.ResolvesTo(id, def); ok {
			out = append(out, ref)
		}
	}
	return out
}

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
func (r *Resolver) Callers(def DefID) []CallSite {
	var out []CallSite
	for _, ref := range r.References(def) {
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
	if overloadLangs[f.Lang] {
		// Kotlin and Java look inherited overloads up at every call of a
		// member: a type's supertypes are resolved once per resolver.
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
