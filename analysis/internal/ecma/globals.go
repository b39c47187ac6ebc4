package ecma

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// GlobalVisibility marks a declaration of a module's `declare global { … }`
// block: a global every file sees, as @types/chai's namespace Chai is,
// though the file that declares it is a module.
const GlobalVisibility = "global"

// globalBlock walks a `declare global` block, marking the top-level
// declarations it makes global.
func (w *walker) globalBlock(n syntax.Node) {
	first := len(w.b.Facts.Defs)
	w.children(n)
	for i := first; i < len(w.b.Facts.Defs); i++ {
		if d := w.b.D(int32(i)); d.Container == analysis.None {
			d.Visibility = GlobalVisibility
		}
	}
}

// moduleGlobalBlock records `global { … }` inside `declare module "m" { … }`
// (which parses as the expression `global` before a block) as a global
// block: its declarations belong to no module (@types/node's
// `NodeJS.EventEmitter` in "node:events"). It reports whether n was one.
func (w *walker) moduleGlobalBlock(n syntax.Node) bool {
	prev := n.PrevSibling()
	if n.Type() != "statement_block" || prev.Type() != "expression_statement" || strings.TrimSpace(prev.Text()) != "global" {
		return false
	}
	if m := w.b.OwnerDef(); m == nil || m.Kind != analysis.KindModule || !strings.HasPrefix(m.Name, `"`) {
		return false
	}
	first := len(w.b.Facts.Defs)
	w.b.Owned(analysis.None, func() { w.b.Within(n, analysis.None, func() { w.scoped(n) }) })
	for i := first; i < len(w.b.Facts.Defs); i++ {
		if d := w.b.D(int32(i)); d.Container == analysis.None {
			d.Visibility = GlobalVisibility
		}
	}
	return true
}
