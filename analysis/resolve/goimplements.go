package resolve

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Go interfaces are satisfied implicitly: a type implements one when its
// methods include every method the interface lists (its own and those of
// interfaces it embeds), by name and parameter types. No file names the
// interface, so its implementers are found by method names, across the
// workspace and its libraries.

// goMethodSig is an interface method: its name and parameter types.
type goMethodSig struct {
	name   string
	params []string
}

// goImplementers lists the types whose methods satisfy the interface def,
// at the confidence of a package member (parameter types are compared as
// written, without their package qualifiers).
func (r *Resolver) goImplementers(def DefID) []Candidate {
	methods := r.goInterfaceMethods(def, 0)
	if len(methods) == 0 {
		return nil // every type satisfies an empty interface: list none
	}
	seen := map[string]bool{}
	var out []Candidate
	for _, e := range r.defs(methods[0].name) {
		if e.Lang != "go" || e.Kind != analysis.KindMethod || len(out) >= maxImplementers {
			continue
		}
		g := r.file(e.Path)
		if g == nil {
			continue
		}
		recv := baseTypeName(g.Defs[e.Index].Receiver)
		dir := filepath.Dir(e.Path)
		if recv == "" || seen[dir+"\x00"+recv] {
			continue
		}
		seen[dir+"\x00"+recv] = true
		if !r.goHasMethods(dir, recv, methods) {
			continue
		}
		if t, ok := r.goTypeIn(dir, recv); ok {
			out = append(out, r.candidate(t, confPackage, ViaPackage))
		}
	}
	return out
}

// maxImplementers bounds the implementers of a common interface
// (fmt.Stringer has thousands in a large build list).
const maxImplementers = 1000

// goInterfaceMethods lists the methods of an interface, with those of the
// interfaces it embeds; depth bounds embedding cycles in broken code.
func (r *Resolver) goInterfaceMethods(def DefID, depth int) []goMethodSig {
	f := r.file(def.Path)
	if f == nil || depth > 8 || int(def.Index) >= len(f.Defs) || f.Defs[def.Index].Kind != analysis.KindInterface {
		return nil
	}
	var out []goMethodSig
	for i, d := range f.Defs {
		if d.Container == def.Index && d.Kind == analysis.KindMethod {
			out = append(out, goMethodSig{d.Name, goParams(f, int32(i))})
		}
	}
	for i, s := range f.Supertypes {
		if s.Def != def.Index {
			continue
		}
		if t := best(r.finish(def.Path, r.resolveSupertype(f, int32(i), 0))); len(t) > 0 {
			out = append(out, r.goInterfaceMethods(t[0].Def, depth+1)...)
		}
	}
	return out
}

// goParams lists the parameter types of function def, its receiver left
// out (the receiver is declared before the name).
func goParams(f *analysis.FileFacts, def int32) []string {
	name := f.Defs[def].NameSpan.Start
	var out []string
	for _, d := range f.Defs {
		if d.Container == def && d.Kind == analysis.KindParameter && d.NameSpan.Start > name {
			out = append(out, unqualified(d.TypeName))
		}
	}
	return out
}

// qualifier matches a package qualifier in a written type ("io." in
// "[]io.Reader").
var qualifier = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\.`)

func unqualified(t string) string {
	return qualifier.ReplaceAllString(strings.Join(strings.Fields(t), " "), "")
}

// goHasMethods reports whether the type named recv in package folder dir
// has every method of methods.
func (r *Resolver) goHasMethods(dir, recv string, methods []goMethodSig) bool {
	for _, m := range methods {
		found := false
		for _, e := range r.defs(m.name) {
			if found || e.Lang != "go" || e.Kind != analysis.KindMethod || filepath.Dir(e.Path) != dir {
				continue
			}
			g := r.file(e.Path)
			if g == nil || baseTypeName(g.Defs[e.Index].Receiver) != recv {
				continue
			}
			found = slices.Equal(goParams(g, e.Index), m.params)
		}
		if !found {
			return false
		}
	}
	return true
}

// goTypeIn finds the type named name declared at the top of package dir.
func (r *Resolver) goTypeIn(dir, name string) (DefID, bool) {
	for _, e := range r.defs(name) {
		if e.Lang == "go" && e.Kind.IsType() && !e.Nested && filepath.Dir(e.Path) == dir {
			if g := r.file(e.Path); g != nil && g.Defs[e.Index].Container == analysis.None {
				return e.DefID, true
			}
		}
	}
	return DefID{}, false
}

// GoMethodOf finds the method name declared on the Go type typ, in any
// file of its package.
func (r *Resolver) GoMethodOf(typ DefID, name string) (DefID, bool) {
	f := r.file(typ.Path)
	if f == nil || int(typ.Index) >= len(f.Defs) {
		return DefID{}, false
	}
	recv, dir := f.Defs[typ.Index].Name, filepath.Dir(typ.Path)
	for _, e := range r.defs(name) {
		if e.Lang != "go" || e.Kind != analysis.KindMethod || filepath.Dir(e.Path) != dir {
			continue
		}
		if g := r.file(e.Path); g != nil && baseTypeName(g.Defs[e.Index].Receiver) == recv {
			return e.DefID, true
		}
	}
	return DefID{}, false
}
