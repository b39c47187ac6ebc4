package complete

import (
	"bytes"
	"os"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// A Python module's __all__ names what `from m import *` binds, and for
// the standard library it is close to what typeshed's stub of the module
// declares, which is what pyright lists after "m.": typing's users see
// Any and Callable, not the ABCMeta, T and CT_co that typing.py keeps for
// itself.

// pythonExports reads the names a module's __all__ lists from its source;
// ok is false when the module has no __all__ or builds it in a way a
// reading of string literals cannot follow (__all__ = x.__all__ + […],
// __all__.extend(names())): then nothing is left out by it.
func pythonExports(src []byte) (names map[string]bool, ok bool) {
	const dunder = "__all__"
	names = map[string]bool{}
	found := false
	for at := 0; ; {
		i := bytes.Index(src[at:], []byte(dunder))
		if i < 0 {
			break
		}
		i += at
		end := i + len(dunder)
		at = end
		if i > 0 && isIdent(src[i-1]) || end < len(src) && isIdent(src[end]) {
			continue // _all__x, __all__s: another name
		}
		lineStart := bytes.LastIndexByte(src[:i], '\n') + 1
		if strings.TrimLeft(string(src[lineStart:i]), " \t") != "" {
			continue // mentioned in a comment, a docstring or an expression
		}
		rest := strings.TrimLeft(string(src[end:min(len(src), end+16)]), " \t")
		if i > lineStart && (strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":")) {
			continue // an indented assignment: a class's own __all__ (typing.io's)
		}
		var open int
		switch {
		case strings.HasPrefix(rest, "+="), strings.HasPrefix(rest, "="), strings.HasPrefix(rest, ".extend("),
			strings.HasPrefix(rest, ".append("), strings.HasPrefix(rest, ":"):
			open = bytes.IndexAny(src[end:], "[(\n")
			if open < 0 {
				return nil, false
			}
			open += end
			if strings.HasPrefix(rest, ":") {
				// __all__: list[str] = […]: the value's bracket is past the "=".
				eq := bytes.IndexByte(src[end:], '=')
				if eq < 0 {
					return nil, false
				}
				if open = bytes.IndexAny(src[end+eq:], "[(\n"); open < 0 {
					return nil, false
				}
				open += end + eq
			}
			// `__all__ = __always_supported + (…)` (hashlib's) starts
			// with a name: not a literal this reads.
			if eq := bytes.IndexByte(src[end:open], '='); eq >= 0 && strings.TrimSpace(string(src[end+eq+1:open])) != "" {
				return nil, false
			}
		default:
			return nil, false
		}
		if strings.HasPrefix(rest, ".extend(") {
			// The list inside the call's parentheses.
			open = end + strings.Index(string(src[end:]), "(") + 1
			for open < len(src) && (src[open] == ' ' || src[open] == '\t' || src[open] == '\n') {
				open++
			}
		}
		close, ok := stringLiterals(src, open, names)
		if !ok {
			return nil, false
		}
		// Nothing but the end of the statement may follow the literal.
		tail := string(src[close:])
		if nl := strings.IndexByte(tail, '\n'); nl >= 0 {
			tail = tail[:nl]
		}
		if tail = strings.TrimSpace(tail); tail != "" && tail != ")" && !strings.HasPrefix(tail, "#") {
			return nil, false
		}
		found = true
		at = close
	}
	return names, found
}

// stringLiterals adds the string literals of the bracketed list or tuple
// opening at src[open] to names, and returns the offset after its closing
// bracket; ok is false when it holds anything else.
func stringLiterals(src []byte, open int, names map[string]bool) (int, bool) {
	if open >= len(src) || src[open] != '[' && src[open] != '(' {
		return 0, false
	}
	closing := byte(']')
	if src[open] == '(' {
		closing = ')'
	}
	for i := open + 1; i < len(src); {
		switch c := src[i]; {
		case c == closing:
			return i + 1, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\\':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				j++
			}
			if j >= len(src) || src[j] != c {
				return 0, false
			}
			names[string(src[i+1:j])] = true
			i = j + 1
		default:
			return 0, false
		}
	}
	return 0, false
}

// keepExported drops the items added since from whose labels the module's
// __all__ does not list, except the public classes module file p declares
// itself (see stubbedClass).
func (c *collector) keepExported(from int, exports map[string]bool, p string) {
	kept := c.items[:from]
	for _, it := range c.items[from:] {
		if exports[it.Label] || c.stubbedClass(it, p) {
			kept = append(kept, it)
		}
	}
	c.items = kept
	clear(c.seen)
	for i, it := range c.items {
		c.seen[it.Label] = i
	}
}

// stdlibExports is the __all__ of a standard library module file, read
// from disk; ok is false for other files, or for a module without one.
func (c *collector) stdlibExports(p string) (map[string]bool, bool) {
	lib, _ := c.s.(interface{ InLibrary(string) string })
	if lib == nil || !strings.HasPrefix(lib.InLibrary(p), "stdlib@") || !strings.HasSuffix(p, ".py") {
		return nil, false
	}
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	return pythonExports(src)
}

// stubbedClass reports whether an item is a public class that module file
// p declares at its top level: typeshed's stubs declare most of those that
// __all__ leaves out (warnings.WarningMessage, os.PathLike), but not
// metaclasses (typing.NamedTupleMeta) nor classes used as namespaces, with
// an __all__ of their own (typing.io).
func (c *collector) stubbedClass(it Item, p string) bool {
	if it.Kind != analysis.KindClass || it.Def.Path != p || strings.HasPrefix(it.Label, "_") {
		return false
	}
	g := c.s.File(p)
	if g == nil || int(it.Def.Index) >= len(g.Defs) {
		return false
	}
	for _, s := range g.Supertypes {
		if s.Def == it.Def.Index && s.Name == "type" {
			return false
		}
	}
	for _, d := range g.Defs {
		if d.Container == it.Def.Index && d.Name == "__all__" {
			return false
		}
	}
	return true
}
