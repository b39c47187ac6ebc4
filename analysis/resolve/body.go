package resolve

import (
	"cmp"
	"slices"

	"github.com/kast-dev/kast/analysis"
)

// BodyBindings reports, for each reference of f, whether it resolves by
// scope alone to definitions declared inside a function, method or lambda
// body (see DeclaredInBody). Such a reference can only mean something its
// own file declares, and References looks for the uses of body-declared
// definitions in their own file: the index need not list it under its name,
// and for names like err, i or ok those lists are most of its rows. The
// rules are inScope's; where inScope would look at other files (members of
// a receiver or an enclosing type), the answer is false.
func BodyBindings(f *analysis.FileFacts) []bool {
	out := make([]bool, len(f.Refs))
	// Only the definitions of local scopes can be found before the walk
	// stops, and only names some body declares can bind. Sorted by scope
	// and name, those definitions stand in for namedIn's map, which would
	// cost more than it saves for one pass over the file.
	var inLocal []int32
	names := map[string]bool{}
	for i, d := range f.Defs {
		if d.Scope >= 0 && int(d.Scope) < len(f.Scopes) && localScope(f, d.Scope, f.Scopes[d.Scope].Def) {
			inLocal = append(inLocal, int32(i))
		}
		if DeclaredInBody(f, int32(i)) {
			names[d.Name] = true
		}
	}
	if len(names) == 0 {
		return out
	}
	key := func(i int32) scopedName { return scopedName{f.Defs[i].Scope, f.Defs[i].Name} }
	compare := func(a, b scopedName) int {
		if c := cmp.Compare(a.scope, b.scope); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	}
	slices.SortFunc(inLocal, func(a, b int32) int { return compare(key(a), key(b)) })
	named := func(scope int32, name string) []int32 {
		k := scopedName{scope, name}
		lo, _ := slices.BinarySearchFunc(inLocal, k, func(i int32, k scopedName) int { return compare(key(i), k) })
		hi := lo
		for hi < len(inLocal) && key(inLocal[hi]) == k {
			hi++
		}
		return inLocal[lo:hi]
	}
	for i, ref := range f.Refs {
		out[i] = names[ref.Name] && bindsInBody(f, ref, named)
	}
	return out
}

func bindsInBody(f *analysis.FileFacts, ref analysis.Ref, named func(int32, string) []int32) bool {
	if ref.Qualifier != "" || ref.Role&analysis.RoleImport != 0 {
		return false
	}
	for s := ref.Scope; s != analysis.None && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		owner := f.Scopes[s].Def
		if !localScope(f, s, owner) {
			return false
		}
		found := false
		for _, i := range named(s, ref.Name) {
			d := f.Defs[i]
			if hiddenFrom(d, s, ref, true) || kindFit(ref.Role, d.Kind) == 0 {
				continue
			}
			if !DeclaredInBody(f, i) {
				return false
			}
			found = true
		}
		if found {
			return true
		}
		if owner != analysis.None && ref.Role&analysis.RoleInheritance == 0 && f.Defs[owner].Receiver != "" {
			return false // inScope would look at the receiver's members
		}
	}
	return false
}

// localScope reports whether scope s, owned by definition owner, is a body
// or block rather than a file or a type.
func localScope(f *analysis.FileFacts, s, owner int32) bool {
	return owner != analysis.None && !f.Defs[owner].Kind.IsType() || owner == analysis.None && s != 0
}

// hiddenFrom reports whether definition d, declared in scope s, is not yet
// visible at ref. Locals are visible after their declaration only, and a
// variable not in its own initializer (`let x = x + 1`). Local functions are
// visible in the whole block: JavaScript hoists them, Rust items are
// unordered, and elsewhere a use before the declaration is an error.
func hiddenFrom(d analysis.Def, s int32, ref analysis.Ref, local bool) bool {
	return local && (d.NameSpan.Start > ref.Span.Start && d.Kind != analysis.KindFunction ||
		s == ref.Scope && d.Kind == analysis.KindVariable && d.FullSpan.Contains(ref.Span.Start))
}
