package ecma

import (
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
