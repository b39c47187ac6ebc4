// Package navigate answers the editor's navigation questions about a
// snapshot: where a name is defined, where it is used, what it is, who calls
// it and how types relate. Everything is in byte offsets; only confident
// resolutions are answered, since a wrong jump is worse than none.
package navigate

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Snapshot is what navigation reads: a workspace view with one resolver.
type Snapshot interface {
	resolve.Workspace
	Resolver() *resolve.Resolver
}

// Loc is a span of a file.
type Loc struct {
	Path string
	Span analysis.Span
	// Ambiguous marks a use that ties as surely to another overload: it
	// is listed, but may not be a use of this one.
	Ambiguous bool
}

// Symbol is a definition with what features show about it. For a call at the
// top level of a file, Def.Index is analysis.None and the spans are the file's.
type Symbol struct {
	Def      resolve.DefID
	Name     string
	Kind     analysis.Kind
	NameSpan analysis.Span
	FullSpan analysis.Span
	Detail   string // signature or type
}

// SymbolOf describes a definition.
func SymbolOf(ws resolve.Workspace, id resolve.DefID) (Symbol, bool) {
	f := ws.File(id.Path)
	if f == nil || id.Index < 0 || int(id.Index) >= len(f.Defs) {
		return Symbol{}, false
	}
	d := f.Defs[id.Index]
	return Symbol{Def: id, Name: d.Name, Kind: d.Kind, NameSpan: d.NameSpan, FullSpan: d.FullSpan, Detail: cmp.Or(d.Signature, d.TypeName)}, true
}

// At is the definition the name at offset confidently resolves to (the
// definition itself when offset is on its name).
func At(s Snapshot, path string, offset int) (Symbol, bool) {
	for _, c := range s.Resolver().DefinitionAt(path, offset) {
		if !c.Uncertain {
			return SymbolOf(s, c.Def)
		}
	}
	return Symbol{}, false
}

// Definition lists the definitions the name at offset confidently resolves
// to, best first. A Go package name (fmt in fmt.Println) is declared by its
// file's import of the package: its Symbol is that import spec, with
// Def.Index analysis.None. So is a Python module, whose Symbol is its
// file's start, and a TypeScript module that tsserver answers for a
// namespace binding (resolve.NamespaceModuleAt).
func Definition(s Snapshot, path string, offset int) []Symbol {
	return DefinitionOf(s, path, offset, s.Resolver().DefinitionAt(path, offset))
}

// DefinitionOf is Definition for a caller that has DefinitionAt's
// candidates at offset already.
func DefinitionOf(s Snapshot, path string, offset int, cands []resolve.Candidate) []Symbol {
	r := s.Resolver()
	if file, ok := r.NamespaceModuleAt(path, offset, cands); ok {
		// A TypeScript namespace's module, as tsserver answers it: its file's start.
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		return []Symbol{{Def: resolve.DefID{Path: file, Index: analysis.None}, Name: name, Kind: analysis.KindModule, Detail: file}}
	}
	if out := symbols(s, cands); len(out) > 0 {
		return out
	}
	if imp, ok := r.PackageImport(path, offset); ok {
		return []Symbol{{Def: resolve.DefID{Path: path, Index: analysis.None}, Name: cmp.Or(imp.Alias, imp.Name),
			Kind: analysis.KindPackage, NameSpan: imp.Span, FullSpan: imp.Span, Detail: imp.Path}}
	}
	if file, ok := r.ModuleAt(path, offset); ok {
		// A Python module is its file: the target is the file's start.
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		if name == "__init__" {
			name = filepath.Base(filepath.Dir(file))
		}
		return []Symbol{{Def: resolve.DefID{Path: file, Index: analysis.None}, Name: name, Kind: analysis.KindModule, Detail: file}}
	}
	if file, ok := r.RequireAt(path, offset); ok {
		// A required gem file: its start.
		name := strings.TrimSuffix(filepath.Base(file), ".rb")
		return []Symbol{{Def: resolve.DefID{Path: file, Index: analysis.None}, Name: name, Kind: analysis.KindModule, Detail: file}}
	}
	return nil
}

func symbols(s Snapshot, cands []resolve.Candidate) []Symbol {
	var out []Symbol
	for _, c := range cands {
		if c.Uncertain {
			continue
		}
		if sym, ok := SymbolOf(s, c.Def); ok {
			out = append(out, sym)
		}
	}
	return out
}

// TypeDefinition lists the type of the name at offset: a variable's,
// parameter's or property's declared type, a function's return type.
func TypeDefinition(s Snapshot, path string, offset int) []Symbol {
	sym, ok := At(s, path, offset)
	if !ok {
		return nil
	}
	return symbols(s, s.Resolver().TypeOf(sym.Def))
}

// Implementation lists, for a type, every type below it; for a member of a
// type, the members of the same name that types below it declare.
func Implementation(s Snapshot, path string, offset int) []Symbol {
	sym, ok := At(s, path, offset)
	if !ok {
		return nil
	}
	if sym.Kind.IsType() {
		return descendants(s, sym.Def)
	}
	f := s.File(sym.Def.Path)
	owner := f.Defs[sym.Def.Index].Container
	if owner == analysis.None || !f.Defs[owner].Kind.IsType() {
		return nil
	}
	var out []Symbol
	for _, sub := range descendants(s, resolve.DefID{Path: sym.Def.Path, Index: owner}) {
		g := s.File(sub.Def.Path)
		if g.Lang == "go" { // Go methods are declared beside their type
			if id, ok := s.Resolver().GoMethodOf(sub.Def, sym.Name); ok {
				if m, ok := SymbolOf(s, id); ok {
					out = append(out, m)
				}
			}
			continue
		}
		for i, d := range g.Defs {
			if d.Container == sub.Def.Index && d.Name == sym.Name {
				if m, ok := SymbolOf(s, resolve.DefID{Path: sub.Def.Path, Index: int32(i)}); ok {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// maxHierarchy bounds walks of the type graph, which may have cycles in
// broken code.
const maxHierarchy = 1000

// descendants lists the types below t, nearest first.
func descendants(s Snapshot, t resolve.DefID) []Symbol {
	seen := map[resolve.DefID]bool{t: true}
	queue := []resolve.DefID{t}
	var out []Symbol
	for len(queue) > 0 && len(out) < maxHierarchy {
		next := queue[0]
		queue = queue[1:]
		for _, sub := range Subtypes(s, next) {
			if !seen[sub.Def] {
				seen[sub.Def] = true
				out = append(out, sub)
				queue = append(queue, sub.Def)
			}
		}
	}
	return out
}

// Supertypes lists the confidently resolved direct supertypes of a type.
func Supertypes(s Snapshot, t resolve.DefID) []Symbol {
	var out []Symbol
	for _, e := range s.Resolver().Supertypes(t) {
		if len(e.Targets) > 0 {
			out = append(out, symbols(s, e.Targets[:1])...)
		}
	}
	return out
}

// Subtypes lists the types that confidently name t as a direct supertype.
func Subtypes(s Snapshot, t resolve.DefID) []Symbol {
	return symbols(s, s.Resolver().Subtypes(t))
}

// References lists the confident uses of the definition the name at offset
// resolves to, with its declaration first when includeDecl is set. Go's
// predeclared identifiers have none: like gopls, which refuses them, kast
// does not list the tens of thousands of uses of string or int.
func References(s Snapshot, path string, offset int, includeDecl bool) []Loc {
	sym, ok := At(s, path, offset)
	if !ok || resolve.IsPredeclared(s, sym.Def) {
		return nil
	}
	var out []Loc
	if includeDecl {
		out = append(out, Loc{Path: sym.Def.Path, Span: sym.NameSpan})
	}
	for _, r := range certainReferences(s, sym.Def) {
		out = append(out, Loc{Path: r.Ref.Path, Span: r.Span, Ambiguous: r.Ambiguous})
	}
	sortLocs(out[min(len(out), btoi(includeDecl)):])
	return out
}

// referencer is a snapshot that finds references itself, faster than its
// resolver alone (reading files ahead, remembering answers); the result is
// not to be modified.
type referencer interface {
	References(def resolve.DefID) []resolve.Reference
}

// certainReferencer is a snapshot that finds the references without the
// guesses faster than by listing them all.
type certainReferencer interface {
	CertainReferences(def resolve.DefID) []resolve.Reference
}

// certainReferences lists the references that surely resolve to def.
func certainReferences(s Snapshot, def resolve.DefID) []resolve.Reference {
	if r, ok := s.(certainReferencer); ok {
		return r.CertainReferences(def)
	}
	return s.Resolver().CertainReferences(def)
}

// ReferencesOf lists the references, certain or not, that resolve to def,
// through the snapshot's own finder when it has one; empty for Go's
// predeclared identifiers, whose uses are everywhere (gopls refuses them).
// The result is not to be modified.
func ReferencesOf(s Snapshot, def resolve.DefID) []resolve.Reference {
	if resolve.IsPredeclared(s, def) {
		return nil
	}
	return references(s, def)
}

// references lists the references that resolve to def.
func references(s Snapshot, def resolve.DefID) []resolve.Reference {
	if r, ok := s.(referencer); ok {
		return r.References(def)
	}
	return s.Resolver().References(def)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sortLocs orders locations by path, then offset. Stored references come
// by path already, and sorting unsafe.Pointer's remembered answer (10,756)
// whole took 5 ms of each query: then only each file's run is sorted.
func sortLocs(l []Loc) {
	if !slices.IsSortedFunc(l, func(a, b Loc) int { return strings.Compare(a.Path, b.Path) }) {
		slices.SortFunc(l, func(a, b Loc) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Span.Start, b.Span.Start))
		})
		return
	}
	for i := 0; i < len(l); {
		j := i + 1
		for j < len(l) && l[j].Path == l[i].Path {
			j++
		}
		slices.SortFunc(l[i:j], func(a, b Loc) int { return cmp.Compare(a.Span.Start, b.Span.Start) })
		i = j
	}
}

// Highlight is a use of a name within one file.
type Highlight struct {
	Span  analysis.Span
	Write bool // a declaration or an assignment
}

// Highlights lists the uses in path of the definition at offset.
func Highlights(s Snapshot, path string, offset int) []Highlight {
	sym, ok := At(s, path, offset)
	if !ok {
		return nil
	}
	var out []Highlight
	if sym.Def.Path == path {
		out = append(out, Highlight{sym.NameSpan, true})
	}
	if resolve.IsPredeclared(s, sym.Def) {
		// Its uses across the workspace are far too many to list for one
		// file's: resolve the file's references of the name instead.
		return append(out, localHighlights(s, path, sym)...)
	}
	for _, r := range references(s, sym.Def) {
		if r.Ref.Path == path && !r.Uncertain {
			out = append(out, Highlight{r.Span, r.Role&analysis.RoleWrite != 0})
		}
	}
	slices.SortFunc(out, func(a, b Highlight) int { return cmp.Compare(a.Span.Start, b.Span.Start) })
	return out
}

// localHighlights resolves the references named like sym in one file and
// keeps those that confidently resolve to it.
func localHighlights(s Snapshot, path string, sym Symbol) []Highlight {
	f := s.File(path)
	if f == nil {
		return nil
	}
	var out []Highlight
	for i, ref := range f.Refs {
		if ref.Name != sym.Name {
			continue
		}
		if c := s.Resolver().Resolve(resolve.RefID{Path: path, Index: int32(i)}); len(c) > 0 && c[0].Def == sym.Def && !c[0].Uncertain {
			out = append(out, Highlight{ref.Span, ref.Role&analysis.RoleWrite != 0})
		}
	}
	slices.SortFunc(out, func(a, b Highlight) int { return cmp.Compare(a.Span.Start, b.Span.Start) })
	return out
}

// Call is one edge of the call graph: the other end and the call sites.
type Call struct {
	Symbol Symbol
	Sites  []Loc
}

// Callers lists who calls def, grouped by calling definition.
func Callers(s Snapshot, def resolve.DefID) []Call {
	var out []Call
	at := map[resolve.DefID]int{}
	// The snapshot's references: its stored uses, and the libraries' when
	// the session asks for them.
	for _, c := range s.Resolver().CallSites(references(s, def)) {
		if c.Uncertain {
			continue
		}
		i, ok := at[c.Caller]
		if !ok {
			sym, found := SymbolOf(s, c.Caller)
			if !found {
				sym = fileSymbol(s, c.Caller)
			}
			i = len(out)
			at[c.Caller] = i
			out = append(out, Call{Symbol: sym})
		}
		out[i].Sites = append(out[i].Sites, Loc{Path: c.Site.Path, Span: c.Span, Ambiguous: c.Ambiguous})
	}
	// By where each caller first calls: the same order whether the
	// references came from the stored uses or were resolved just now.
	slices.SortStableFunc(out, func(a, b Call) int {
		return cmp.Or(strings.Compare(a.Sites[0].Path, b.Sites[0].Path), cmp.Compare(a.Sites[0].Span.Start, b.Sites[0].Span.Start))
	})
	return out
}

// fileSymbol stands for the top level of a file as a caller.
func fileSymbol(s Snapshot, id resolve.DefID) Symbol {
	var span analysis.Span
	if f := s.File(id.Path); f != nil {
		span.End = f.Size
		span.EndPoint = analysis.Point{Line: max(0, f.Lines-1)}
	}
	return Symbol{Def: id, Name: filepath.Base(id.Path), Kind: analysis.KindModule, FullSpan: span}
}

// Callees lists what def calls, grouped by callee; calls that resolve to
// nothing confidently are left out.
func Callees(s Snapshot, def resolve.DefID) []Call {
	var out []Call
	at := map[resolve.DefID]int{}
	for _, c := range s.Resolver().Callees(def) {
		if len(c.Targets) == 0 || c.Targets[0].Uncertain {
			continue
		}
		t := c.Targets[0].Def
		i, ok := at[t]
		if !ok {
			sym, found := SymbolOf(s, t)
			if !found {
				continue
			}
			i = len(out)
			at[t] = i
			out = append(out, Call{Symbol: sym})
		}
		out[i].Sites = append(out[i].Sites, Loc{Path: c.Site.Path, Span: c.Span})
	}
	return out
}

// IsCallable reports whether a kind can appear in a call hierarchy.
func IsCallable(k analysis.Kind) bool {
	switch k {
	case analysis.KindFunction, analysis.KindMethod, analysis.KindConstructor, analysis.KindLambda:
		return true
	}
	return false
}
