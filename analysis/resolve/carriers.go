package resolve

import (
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// maxCarriers bounds the types one member's search collects: each costs
// two postings lookups (testing.F's Add reached 180 types in 226 ms, more
// than the files it spared), and past a few dozen the hashes rule little
// out.
const maxCarriers = 32

// carrier is a type that may carry a member: its name and the folder
// declaring it.
type carrier struct{ name, dir string }

// memberCarriers returns the hashes of the names of every type whose
// members, as the resolver looks them up, may hold def, a Go field or
// method: its own type, the types embedding one of those (supertype
// edges, interfaces' too), and the types declared as one of those (`type
// A B`, `type A = B`). An embedding or declaration that names the type
// bare (`struct{ F }`, not `struct{ testing.F }`) in a file without dot
// imports names a type of its own folder (or the universe's), so it
// counts only in the folder of the type it would carry: testing.F's Add
// otherwise reached the test types named F, T or A of every package, past
// maxCarriers. ok is false for another definition, or when there are too
// many.
func (r *Resolver) memberCarriers(h RefHinter, f *analysis.FileFacts, def DefID) (map[uint64]bool, bool) {
	names, ok := r.memberCarrierNames(h, f, def)
	if !ok {
		return nil, false
	}
	out := make(map[uint64]bool, len(names))
	for n := range names {
		out[typeHash(n)] = true
	}
	return out, true
}

// memberCarrierNames is memberCarriers with the types' names.
func (r *Resolver) memberCarrierNames(h RefHinter, f *analysis.FileFacts, def DefID) (map[string]bool, bool) {
	d := f.Defs[def.Index]
	var owner string
	switch {
	case d.Kind == analysis.KindMethod && d.Receiver != "":
		owner = baseTypeName(d.Receiver)
	case (d.Kind == analysis.KindField || d.Kind == analysis.KindMethod) && d.Container != analysis.None &&
		int(d.Container) < len(f.Defs) && f.Defs[d.Container].Kind.IsType():
		owner = f.Defs[d.Container].Name
	default:
		return nil, false
	}
	names := map[string]bool{}
	seen := map[carrier]bool{}
	var queue []carrier
	add := func(name, dir string) {
		if c := (carrier{name, dir}); !seen[c] {
			seen[c], names[name] = true, true
			queue = append(queue, c)
		}
	}
	// Each name's edges and declarations, looked up once: a name is
	// reached from several folders.
	supers := map[string][]SupertypeID{}
	decls := map[string][]string{}
	add(owner, filepath.Dir(def.Path))
	for i := 0; i < len(queue); i++ {
		if len(names) > maxCarriers || len(queue) > 4*maxCarriers {
			return nil, false
		}
		c := queue[i]
		if _, ok := supers[c.name]; !ok {
			supers[c.name], decls[c.name] = r.ws.SupertypesNamed(c.name), typeDeclRefs(h, c.name)
		}
		for _, id := range supers[c.name] {
			g := r.file(id.Path)
			if g == nil || id.Index < 0 || int(id.Index) >= len(g.Supertypes) {
				return nil, false
			}
			sup := g.Supertypes[id.Index]
			if sup.Def < 0 || int(sup.Def) >= len(g.Defs) {
				return nil, false
			}
			dir := filepath.Dir(id.Path)
			if dir != c.dir && !embedsQualified(g, sup) && !dotImportsName(g, c.name) {
				continue // another folder's type of the name
			}
			add(g.Defs[sup.Def].Name, dir)
		}
		for _, path := range decls[c.name] {
			g := r.file(path)
			if g == nil {
				return nil, false
			}
			dir := filepath.Dir(path)
			anyDir := dir == c.dir || dotImportsName(g, c.name)
			for _, a := range g.Defs {
				if a.Kind != analysis.KindTypeAlias || !declaredAs(a.TypeName, c.name) {
					continue
				}
				if anyDir || strings.ContainsAny(a.TypeName, ".|") {
					add(a.Name, dir)
				}
			}
		}
	}
	return names, true
}

// typeDeclRefs lists the files that name a type in a type declaration
// (see hintTypeDecl), once each.
func typeDeclRefs(h RefHinter, name string) []string {
	var out []string
	read := map[string]bool{}
	for _, ref := range h.HintedRefsNamed(name) {
		if ref.Hint&hintTypeDecl != 0 && !read[ref.Path] {
			read[ref.Path] = true
			out = append(out, ref.Path)
		}
	}
	return out
}

// embedsQualified reports whether a supertype edge is written with a
// package (`testing.F`): its inheritance reference, kept in every table of
// the file, has a qualifier.
func embedsQualified(g *analysis.FileFacts, sup analysis.Supertype) bool {
	for _, ref := range g.Refs {
		if ref.Role&analysis.RoleInheritance != 0 && ref.Span == sup.Span {
			return ref.Qualifier != ""
		}
	}
	return true // not found: as if it might be
}

// dotImportsName reports whether a file imports a package's names
// unqualified and name may be one of them: only exported names are.
func dotImportsName(g *analysis.FileFacts, name string) bool {
	if !exported(name) {
		return false
	}
	for _, imp := range g.Imports {
		if imp.Wildcard {
			return true
		}
	}
	return false
}
