package resolve

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	constructedRE = regexp.MustCompile(`^(?:new\s+)?&?([\p{L}_$][\p{L}\p{N}_$.:]*?)(?:::new)?(?:<[^()]*>)?(?:\(.*\)|\{.*\}|\.new(?:\(.*\))?)$`)
)

// isName reports whether q is a name or a dotted path of names (letters,
// digits, _ and $, not starting with a digit). It runs for most qualified
// references of a reference pass, where a regular expression took 5% of it.
func isName(q string) bool {
	start := true
	for _, c := range q {
		switch {
		case c == '.' && !start:
			start = true
		case unicode.IsLetter(c) || c == '_' || c == '$' || !start && unicode.IsNumber(c):
			start = false
		default:
			return false
		}
	}
	return !start
}

// constructedName returns Foo, or pkg.Foo as written, for `Foo(...)`,
// `new Foo(...)`, `Foo{...}`, `&Foo{...}`, `Foo.new` and `Foo::new(...)`: by
// convention in every supported language only type names start with an
// upper-case letter.
func constructedName(q string) string {
	// The pattern backtracks over long chains: rule out cheaply what
	// cannot match.
	if !strings.HasSuffix(q, ")") && !strings.HasSuffix(q, "}") && !strings.Contains(q, ".new") {
		return ""
	}
	m := constructedRE.FindStringSubmatch(q)
	if m == nil {
		return ""
	}
	name := m[1]
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || !strings.HasPrefix(q, "new") && (name[0] < 'A' || name[0] > 'Z') {
		return ""
	}
	return m[1]
}

// typeQualifier is the dotted package or type qualifier of a written type:
// "geo" for "*geo.Circle", "" for "Circle" or "a::b::C".
func typeQualifier(t string) string {
	t = strings.TrimLeft(strings.Trim(t, " \"'"), "*&")
	if i := strings.IndexAny(t, "<[({ "); i >= 0 {
		t = t[:i]
	}
	q, _ := splitQualifier(strings.TrimRight(t, "?!"))
	if !isName(q) {
		return ""
	}
	return q
}

func splitQualifier(q string) (qualifier, name string) {
	if i := strings.LastIndex(q, "."); i >= 0 {
		return q[:i], q[i+1:]
	}
	return "", q
}

// baseTypeName reduces a written type to the name of its type definition:
// "*pkg.Foo[T]" → "Foo", "List<String>?" → "List", "&mut Foo" → "Foo".
func baseTypeName(t string) string {
	t = strings.Trim(t, " \"'")
	t = strings.TrimLeft(t, "*&")
	t = strings.TrimPrefix(t, "mut ")
	t = strings.TrimPrefix(t, "dyn ")
	if i := strings.IndexAny(t, "<[({ "); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimRight(t, "?!")
	if i := strings.LastIndexAny(t, ".:"); i >= 0 {
		t = t[i+1:]
	}
	return t
}
