package complete

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Python members after "x." are listed the way Python users know them
// from pyright and Pylance: alphabetically (upper case first, as byte
// order has it), with __dunder__ names last (see pythonMemberCategory).

// pythonLiteralBefore is the literal a member access ending at start is
// made on, normalized for the resolver ("" for a string, b"" for bytes),
// or "".
func pythonLiteralBefore(text []byte, start int) string {
	if start < 2 || text[start-1] != '.' {
		return ""
	}
	switch q := text[start-2]; q {
	case '"', '\'':
		// The string's prefix letters: b"" is bytes, the rest str.
		i := start - 3
		for i >= 0 && text[i] != q && text[i] != '\n' {
			i--
		}
		for i > 0 && text[i-1] == q { // """…""" and '''…'''
			i--
		}
		j := i
		for j > 0 && strings.ContainsRune("bBrRuUfF", rune(text[j-1])) {
			j--
		}
		if strings.ContainsAny(string(text[max(j, 0):max(i, 0)]), "bB") {
			return `b""`
		}
		return `""`
	}
	return ""
}

// pythonMemberCategory sorts a member label as pyright does: with a typed
// prefix, dunder names after all others; before anything is typed, the
// type's own public names, its own private ones, inherited public, then
// inherited private names, dunders last.
func pythonMemberCategory(it Item, prefix string) int {
	label := it.Label
	dunder := len(label) > 4 && strings.HasPrefix(label, "__") && strings.HasSuffix(label, "__")
	switch {
	case dunder && prefix != "":
		return 1
	case dunder:
		return 4
	case prefix != "":
		return 0
	}
	category := 0
	if it.Rank != RankLocal { // inherited
		category = 2
	}
	if strings.HasPrefix(label, "_") {
		category++
	}
	return category
}

// sortPythonMembers orders the members collected after "x." and gives them
// one rank, so that the order is the list's.
func (c *collector) sortPythonMembers() {
	lower := strings.ToLower(c.prefix)
	slices.SortStableFunc(c.items, func(a, b Item) int {
		return cmp.Or(boolOrder(a.Label, b.Label, lower),
			cmp.Compare(pythonMemberCategory(a, c.prefix), pythonMemberCategory(b, c.prefix)), cmp.Compare(a.Label, b.Label))
	})
	for i := range c.items {
		c.items[i].Rank = RankMember
	}
}

// pythonObjectMembers adds the members every Python class inherits from
// object (__class__, __dict__, __eq__…), from the interpreter's builtins
// stub, unless object was visited already.
func (c *collector) pythonObjectMembers(visit func(resolve.DefID, int)) {
	for _, o := range c.s.Resolver().PythonBuiltin("object") {
		if g := c.s.File(o.Def.Path); g != nil && g.Defs[o.Def.Index].Kind == analysis.KindClass {
			visit(o.Def, 1)
			return
		}
	}
}

// pythonModuleMembers adds the attributes of the module the qualifier
// names (click, os.path, an alias of either): what the module's file
// declares at its top level and the names its top-level imports bind, as
// pyright lists them (a stub's imports only when re-exported as themselves).
func (c *collector) pythonModuleMembers(qualifier string) {
	for _, p := range c.s.Resolver().PythonModuleFiles(c.f.Path, qualifier) {
		for _, d := range c.s.TopLevel(p) {
			if d.Receiver == "" && d.Kind != analysis.KindLambda {
				c.add(Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, Rank: RankMember})
			}
		}
		g := c.s.File(p)
		if g == nil {
			continue
		}
		stub := strings.HasSuffix(p, ".pyi")
		for _, imp := range g.Imports {
			if imp.Wildcard || !topLevelSpan(g, imp.Span) || stub && imp.Alias != imp.Name {
				continue
			}
			c.add(Item{Label: cmp.Or(imp.Alias, imp.Name), Kind: analysis.KindModule, Detail: imp.Path, Rank: RankMember})
		}
		return // the first file is the module; the rest are its shadows
	}
}

// topLevelSpan reports whether sp lies in no function or class of f.
func topLevelSpan(f *analysis.FileFacts, sp analysis.Span) bool {
	for _, d := range f.Defs {
		switch d.Kind {
		case analysis.KindFunction, analysis.KindMethod, analysis.KindClass:
			if d.FullSpan.Start <= sp.Start && sp.End <= d.FullSpan.End {
				return false
			}
		}
	}
	return true
}
