package resolve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript merges the declarations of one name in one scope (a const and
// a type alias, an interface and a const, a function and a type alias or a
// namespace) into one symbol, and tsserver's definition lists every
// declaration of it, whatever the use: `type t1 = z.infer<typeof t1>`
// after `const t1` answers the const in a type position, and
// `new $ZodCheckStartsWith()` the interface declared before the const. The
// order is the binder's: a scope's function declarations first (they are
// hoisted), then the other declarations in source order.

// tsMergedFirst puts first, when c's best candidate is one declaration of
// such a merged symbol, all of its declarations in the binder's order, as
// confident as the best candidate: they are one symbol (a rename or
// references from any of them reach every use). A call or a `new` of a
// name that merges a function or a class names the function or the
// class's constructor, which overload binding answers; c is left as it is.
func (r *Resolver) tsMergedFirst(ref analysis.Ref, c []Candidate) []Candidate {
	if len(c) == 0 {
		return c
	}
	top := c[0]
	g, d, ok := r.entry(top.Def)
	if !ok || !ecmaLang(g.Lang) || !tsMergeable(d.Kind) {
		return c
	}
	var merged []int32
	for i, e := range g.Defs {
		if e.Name == d.Name && e.Container == d.Container && e.Scope == d.Scope && tsMergeable(e.Kind) {
			if _, _, binding := r.namespaceImportOf(DefID{g.Path, int32(i)}); !binding {
				merged = append(merged, int32(i))
			}
		}
	}
	if len(merged) < 2 {
		return c
	}
	if ref.Role&analysis.RoleCall != 0 && slices.ContainsFunc(merged, func(i int32) bool {
		k := g.Defs[i].Kind
		return k == analysis.KindFunction || k == analysis.KindClass
	}) {
		return c
	}
	hoisted := func(i int32) int {
		if tsFunctionDeclaration(g.Defs[i]) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(merged, func(a, b int32) int {
		return cmp.Or(cmp.Compare(hoisted(a), hoisted(b)), cmp.Compare(g.Defs[a].NameSpan.Start, g.Defs[b].NameSpan.Start))
	})
	out := make([]Candidate, 0, len(c)+len(merged))
	for _, i := range merged {
		x := r.candidate(DefID{g.Path, i}, top.Confidence, top.Via)
		x.Uncertain = top.Uncertain
		out = append(out, x)
	}
	for _, x := range c {
		if x.Def.Path != g.Path || !slices.Contains(merged, x.Def.Index) {
			out = append(out, x)
		}
	}
	return out
}

// tsMergeable are the kinds of declaration TypeScript merges by name.
func tsMergeable(k analysis.Kind) bool {
	switch k {
	case analysis.KindFunction, analysis.KindClass, analysis.KindInterface, analysis.KindTypeAlias, analysis.KindEnum,
		analysis.KindModule, analysis.KindVariable, analysis.KindConstant:
		return true
	}
	return false
}

// tsFunctionDeclaration reports whether d is declared with the function
// keyword (`export function f`, `declare function f`), which the binder
// takes first; a variable holding an arrow function is bound in order.
func tsFunctionDeclaration(d analysis.Def) bool {
	if d.Kind != analysis.KindFunction {
		return false
	}
	head, _, ok := strings.Cut(d.Signature, d.Name)
	if !ok {
		return false
	}
	return slices.ContainsFunc(strings.Fields(head), func(w string) bool { return strings.HasPrefix(w, "function") })
}
