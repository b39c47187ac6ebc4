package resolve

import (
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Python loop variables (see analysis/python's loopTarget): an element of
// what the loop iterates has the type its annotation's arguments name:
// `for u in users` with `users: list[User]` is a User, `for k, v in
// d.items()` with `d: dict[str, User]` gives v User.

// sequenceTypes iterate over their first type argument; mappingTypes over
// their keys, with values() and items() for the rest.
var (
	sequenceTypes = map[string]bool{"list": true, "List": true, "Sequence": true, "MutableSequence": true,
		"Iterable": true, "Iterator": true, "Collection": true, "set": true, "Set": true, "frozenset": true,
		"FrozenSet": true, "AbstractSet": true, "MutableSet": true, "Generator": true, "deque": true,
		"Deque": true, "tuple": true, "Tuple": true, "KeysView": true, "ValuesView": true, "AsyncIterator": true}
	mappingTypes = map[string]bool{"dict": true, "Dict": true, "Mapping": true, "MutableMapping": true,
		"OrderedDict": true, "defaultdict": true, "DefaultDict": true, "ChainMap": true, "Counter": true}
)

// pythonElementTypes types a Python loop variable; ok is false for a
// value that is no loop's.
func (r *Resolver) pythonElementTypes(g *analysis.FileFacts, d analysis.Def, depth int) ([]Candidate, bool) {
	if g.Lang != "python" || !strings.Contains(d.Value, "[]") {
		return nil, false
	}
	v, index := d.Value, -1
	if i := strings.LastIndex(v, "[]#"); i >= 0 {
		n, err := strconv.Atoi(v[i+3:])
		if err != nil {
			return nil, true
		}
		v, index = v[:i+2], n
	}
	base, ok := strings.CutSuffix(v, "[]")
	if !ok {
		return nil, false
	}
	method := ""
	for _, m := range []string{"items", "keys", "values"} {
		if rest, ok := strings.CutSuffix(base, "."+m+"()"); ok {
			base, method = rest, m
		}
	}
	vref := valueRef(d)
	vref.Qualifier = base
	var out []Candidate
	for _, t := range r.writtenTypes(g, vref, depth) {
		for _, arm := range pythonUnionArms(t) {
			if e := pythonElementType(arm, method, index); e != "" {
				out = append(out, r.typesNamed(g, e, d.Scope, d.NameSpan, depth+1)...)
			}
		}
	}
	return out, true
}

// pythonElementType is the type of the index-th part (-1: the whole) of
// an element of a value annotated t, iterated directly or through a
// mapping's method; "" when t does not say.
func pythonElementType(t, method string, index int) string {
	inner, ok := strings.CutSuffix(strings.TrimSpace(t), "]")
	open := strings.IndexByte(inner, '[')
	if !ok || open <= 0 {
		return ""
	}
	head := baseTypeName(inner[:open])
	args := pythonArgs(inner[open+1:])
	arg := func(i int) string {
		if i < len(args) && args[i] != "..." {
			return args[i]
		}
		return ""
	}
	switch {
	case mappingTypes[head] && len(args) == 2:
		switch {
		case method == "values":
			return arg(1)
		case method == "items" && index >= 0:
			return arg(index)
		case method == "" || method == "keys":
			if index < 0 {
				return arg(0)
			}
		}
	case sequenceTypes[head] && method == "" && index < 0:
		return arg(0)
	}
	return ""
}

// pythonArgs splits a subscript's arguments at top-level commas.
func pythonArgs(s string) []string {
	var out []string
	for _, a := range splitOutsideBrackets(s, ",") {
		out = append(out, strings.TrimSpace(a))
	}
	return out
}
