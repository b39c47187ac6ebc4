package extract

import (
	"slices"

	"github.com/kast-dev/kast/analysis/syntax"
)

// Visit calls visit on each named child of n in order, leaving out the
// children that are one of skip: the walk every language's walker recurses by.
// It walks the siblings in place rather than through NamedChildren: this is
// the hottest loop of extraction, and a slice per visited node was a quarter
// of all the garbage of a cold index.
func Visit(n syntax.Node, visit func(syntax.Node), skip ...syntax.Node) {
	for c := n.FirstNamedChild(); c.Valid(); c = c.NextNamedSibling() {
		if len(skip) == 0 || !slices.ContainsFunc(skip, c.Same) {
			visit(c)
		}
	}
}
