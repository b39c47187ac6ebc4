package resolve

import (
	"github.com/kast-dev/kast/analysis"
)

// BodyBindings reports, for each definition of f, whether it is declared
// inside a function, method or lambda body (DeclaredInBody), and for each
// reference, whether it resolves by scope alone to such definitions. Such a
// reference can only mean something its own file declares, and References
// looks for the uses of body-declared definitions in their own file: the
// index need not list either under its name, and for names like err, i or
// ok those lists are most of its rows. The rules are inScope's; where
// inScope would look at other files (members of a receiver or an enclosing
// type), the answer is false.
func BodyBindings(f *analysis.FileFacts) (defs, refs []bool) {
	defs, refs = make([]bool, len(f.Defs)), make([]bool, len(f.Refs))
	// Only names some body declares can bind, and only the definitions of
	// local scopes can be found before the walk stops. Names get small ids
	// so that the walk up each reference's scopes looks up integers, not
	// strings.
	var ids map[string]int32
	for i, d := range f.Defs {
		if defs[i] = DeclaredInBody(f, int32(i)); defs[i] {
			if ids == nil {
				ids = map[string]int32{}
			}
			if _, ok := ids[d.Name]; !ok {
				ids[d.Name] = int32(len(ids))
			}
		}
	}
	if ids == nil {
		return defs, refs
	}
	l := localDefs{inBody: defs, first: make(map[uint64]int32, len(f.Defs)), next: make([]int32, len(f.Defs))}
	for i := len(f.Defs) - 1; i >= 0; i-- {
		d := f.Defs[i]
		if d.Scope < 0 || int(d.Scope) >= len(f.Scopes) || !localScope(f, d.Scope, f.Scopes[d.Scope].Def) {
			continue
		}
		id, ok := ids[d.Name]
		if !ok {
			continue // no reference that binds can reach it
		}
		k := scopedID(d.Scope, id)
		l.next[i] = analysis.None
		if j, ok := l.first[k]; ok {
			l.next[i] = j
		}
		l.first[k] = int32(i)
	}
	for i, ref := range f.Refs {
		if id, ok := ids[ref.Name]; ok {
			refs[i] = l.binds(f, ref, id)
		}
	}
	return defs, refs
}

// localDefs chains the definitions of a file's local scopes by scope and
// name id: first holds the first of each chain, next the one after each.
type localDefs struct {
	inBody []bool // by definition, DeclaredInBody
	first  map[uint64]int32
	next   []int32
}

func scopedID(scope, id int32) uint64 { return uint64(uint32(scope))<<32 | uint64(uint32(id)) }

// binds reports whether ref, whose name has id, binds to what a body of f
// declares.
func (l localDefs) binds(f *analysis.FileFacts, ref analysis.Ref, id int32) bool {
	if ref.Qualifier != "" || ref.Role&analysis.RoleImport != 0 {
		return false
	}
	for s := ref.Scope; s != analysis.None && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		owner := f.Scopes[s].Def
		if !localScope(f, s, owner) {
			return false
		}
		found := false
		i, ok := l.first[scopedID(s, id)]
		for ; ok && i != analysis.None; i = l.next[i] {
			d := f.Defs[i]
			if hiddenFrom(f.Lang, d, s, ref, true) || kindFit(ref.Role, d.Kind) == 0 {
				continue
			}
			if !l.inBody[i] {
				return false
			}
			found = true
		}
		if found {
			return true
		}
		if owner != analysis.None && ref.Role&analysis.RoleInheritance == 0 && (f.Defs[owner].Receiver != "" || f.Defs[owner].Kind == analysis.KindLambda) {
			return false // inScope would look at the receiver's members
		}
	}
	return false
}

// localScope reports whether scope s, owned by definition owner, is a body
// or block rather than a file or a type. A Python comprehension's scope
// (owned by no definition) is no block: `[x.a for x in xs]` uses x before
// the clause that binds it.
func localScope(f *analysis.FileFacts, s, owner int32) bool {
	return owner != analysis.None && !f.Defs[owner].Kind.IsType() || owner == analysis.None && s != 0 && f.Lang != "python"
}

// hiddenFrom reports whether definition d, declared in scope s, is not yet
// visible at ref. Locals are visible after their declaration only, and a
// variable not in its own initializer (`let x = x + 1`). Local functions are
// visible in the whole block: JavaScript hoists them, Rust items are
// unordered, and elsewhere a use before the declaration is an error.
// TypeScript's types are visible in the whole block or namespace too
// (@types/chai's Assertion extends LanguageChains, declared after it).
// A local type alias or interface is no value: `const v = z.void(); type v
// = z.infer<typeof v>` leaves v.parse the constant's.
func hiddenFrom(lang string, d analysis.Def, s int32, ref analysis.Ref, local bool) bool {
	if local && ecmaLang(lang) && ref.Role&(analysis.RoleType|analysis.RoleInheritance) == 0 &&
		(d.Kind == analysis.KindInterface || d.Kind == analysis.KindTypeAlias) {
		return true
	}
	return local && (d.NameSpan.Start > ref.Span.Start && d.Kind != analysis.KindFunction && !(ecmaLang(lang) && d.Kind.IsType()) ||
		(s == ref.Scope || wholeInitializer[lang]) && d.Kind == analysis.KindVariable && d.FullSpan.Contains(ref.Span.Start))
}

// wholeInitializer are the languages whose local variables are hidden in
// every block and lambda of their initializer, not only at its top level:
// `val s = if (k) { s.trim() } else s` trims the outer s. JavaScript and
// Python closures may use the variable they initialize (`const f = () =>
// f()`), and Java's and Go's loop variables span their loop's body.
var wholeInitializer = map[string]bool{"kotlin": true}
