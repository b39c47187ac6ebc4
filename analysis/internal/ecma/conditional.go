package ecma

import (
	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// conditionalType scopes the type parameters that `infer X` declares in a
// conditional type's extends clause to its true branch, as the checker
// does: `T extends A<infer U> ? U : T extends B<infer U> ? U : never`
// declares two U.
func (w *walker) conditionalType(n syntax.Node) {
	w.node(n.Field("left"))
	w.b.Within(n, analysis.None, func() {
		w.node(n.Field("right"))
		w.node(n.Field("consequence"))
	})
	w.node(n.Field("alternative"))
}

// inferType declares the type parameter of `infer X` (or `infer X extends
// C`), where tsserver answers for its uses.
func (w *walker) inferType(n syntax.Node) {
	name := n.Child("type_identifier")
	w.b.Def(analysis.KindTypeParameter, name, n)
	w.children(n, name)
}
