package kotlin

import (
	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// forStatement declares a for loop's variable, an element of what the
// loop iterates (`for (line in lines)`: the Value "lines[]" that the
// resolver types from lines' collection type), then walks the rest.
func (w *walker) forStatement(n syntax.Node) {
	w.b.Within(n, analysis.None, func() {
		parts := withoutComments(n.NamedChildren())
		var iterated string
		for i, c := range parts {
			if c.Type() == "variable_declaration" && i+1 < len(parts) {
				iterated = valueChain(parts[i+1 : i+2])
			}
		}
		for _, c := range parts {
			if c.Type() != "variable_declaration" {
				w.node(c)
				continue
			}
			d := w.declare(c, analysis.KindVariable, c)
			w.typeOf(c)
			if iterated != "" && w.b.D(d).TypeName == "" {
				w.b.D(d).Value = iterated + "[]"
			}
		}
	})
}
