package extract

import (
	"slices"

	"github.com/kast-dev/kast/analysis/syntax"
)

// Visit calls visit on each named child of n in order, leaving out the
// children that are one of skip: the walk every language's walker recurses by.
func Visit(n syntax.Node, visit func(syntax.Node), skip ...syntax.Node) {
	for _, c := range n.NamedChildren() {
		if !slices.ContainsFunc(skip, c.Same) {
			visit(c)
		}
	}
}
