package resolve

import (
	"regexp"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Kotlin's smart casts and explicit casts: a name checked by `is` (see
// analysis.Cast) or cast by `as` has the members of the type it was
// narrowed to.

// castAt is the type the innermost smart cast of f gives name at offset,
// or "".
func castAt(f *analysis.FileFacts, name string, offset int) string {
	best := -1
	for i, c := range f.Casts {
		if c.Name == name && c.Span.Contains(offset) && !strings.HasPrefix(c.Type, "#") && !strings.HasPrefix(c.Type, analysis.InKeyPrefix) &&
			!strings.HasPrefix(c.Type, analysis.PredicatePrefix) &&
			(best < 0 || c.Span.End-c.Span.Start < f.Casts[best].Span.End-f.Casts[best].Span.Start) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return f.Casts[best].Type
}

// asCast matches a parenthesized cast qualifier, `(x as T)` or `(x as? T)`.
var asCast = regexp.MustCompile(`^\((?s:.+)\s+as\??\s+([\w.]+(?:<.*>)?\??)\)$`)

// asCastType is the type a cast qualifier casts to, or "".
func asCastType(q string) string {
	if !strings.HasPrefix(q, "(") {
		return ""
	}
	if m := asCast.FindStringSubmatch(q); m != nil {
		return m[1]
	}
	return ""
}

// narrowedType is the type a Kotlin, TypeScript or Python qualifier is
// narrowed to where ref is, by a cast or a smart cast, or a Java one by a
// cast (javalang.go), or "".
func narrowedType(f *analysis.FileFacts, ref analysis.Ref, q string) string {
	if f.Lang == "java" {
		return javaQualifierType(q)
	}
	if f.Lang != "kotlin" && f.Lang != "python" && !ecmaLang(f.Lang) {
		return ""
	}
	if t := asCastType(q); t != "" {
		return t
	}
	if isName(q) && !strings.Contains(q, ".") && len(f.Casts) > 0 {
		return castAt(f, q, ref.Span.Start)
	}
	return ""
}
