package complete

import (
	"cmp"
	"strings"
)

// Rust paths into library crates: after `serde::` or `serde::de::` the
// module's public items and re-exports, as rust-analyzer lists them.

// rustPathMembers adds what follows the path ending at start with `::`
// when the path names a library crate module, and reports whether it did.
func (c *collector) rustPathMembers(text []byte, start int) bool {
	path := rustPathBefore(text, start)
	if c.f.Lang != "rust" || path == "" {
		return false
	}
	members, ok := c.s.Resolver().RustPathMembers(c.f, path)
	if !ok {
		return false
	}
	for _, m := range members {
		g := c.s.File(m.Def.Path)
		if g == nil || int(m.Def.Index) >= len(g.Defs) {
			continue
		}
		d := g.Defs[m.Def.Index]
		c.add(Item{Label: m.Name, Kind: d.Kind, Detail: cmp.Or(d.Signature, d.TypeName), Def: m.Def, Rank: RankMember})
	}
	return true
}

// rustPathBefore is the path before `::` ending at start ("serde::de"
// for "serde::de::"), or "".
func rustPathBefore(text []byte, start int) string {
	if start < 2 || string(text[start-2:start]) != "::" {
		return ""
	}
	end, i := start-2, start-2
	for i > 0 {
		switch {
		case isIdent(text[i-1]):
			i--
		case i >= 2 && string(text[i-2:i]) == "::":
			i -= 2
		default:
			return strings.TrimPrefix(string(text[i:end]), "::")
		}
	}
	return strings.TrimPrefix(string(text[i:end]), "::")
}
