package complete

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// namespaceMembers adds, after `ns.` where `import * as ns from "m"`, the
// declarations of module m: values in an expression, as tsserver lists
// them, and types too where a type is written.
func (c *collector) namespaceMembers(qualifier string, offset int) {
	if !isIdentText(qualifier) {
		return
	}
	typePos := inTypePosition(c.text, offset-len(qualifier)-1)
	for _, id := range c.s.Resolver().NamespaceMembers(c.f.Path, qualifier) {
		if k := c.s.File(id.Path).Defs[id.Index].Kind; typePos || k != analysis.KindInterface && k != analysis.KindTypeAlias {
			c.addDef(id, RankLocal)
		}
	}
}

// inTypePosition reports whether the TypeScript expression ending at end
// is written where a type is: after a colon, in type arguments, in a union
// or intersection.
func inTypePosition(text []byte, end int) bool {
	i := min(end, len(text))
	for i > 0 && isIdent(text[i-1]) {
		i--
	}
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i > 0 && strings.IndexByte(":<|&", text[i-1]) >= 0
}

// isIdentText reports whether s is a single identifier.
func isIdentText(s string) bool {
	for i := range len(s) {
		if !isIdent(s[i]) {
			return false
		}
	}
	return s != ""
}
