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

// pythonElementTypes types a Python loop variable or subscript (`h =
// parts[0]`); ok is false for a value that is neither.
func (r *Resolver) pythonElementTypes(g *analysis.FileFacts, d analysis.Def, depth int) ([]Candidate, bool) {
	if g.Lang == "python" && d.Value == "[]" {
		// `calls = []`: the list literal itself, no element of anything.
		vref := valueRef(d)
		vref.Qualifier = d.Value
		return r.receiverTypes(g, vref, depth), true
	}
	texts, ok := r.pythonElementTexts(g, d, depth)
	if !ok {
		return nil, false
	}
	var out []Candidate
	for _, e := range texts {
		out = append(out, r.typesNamed(g, e, d.Scope, d.NameSpan, depth+1)...)
	}
	if len(out) == 0 {
		out = r.pythonIteratedElements(g, d, depth)
	}
	return out, true
}

// pythonIteratedElements types an element of a value whose type says
// nothing in brackets (`for cookie in jar` with jar a CookieJar, or `in
// iter(self)`) by what the class's __iter__ returns: typeshed declares
// `def __iter__(self) -> Iterator[Cookie]`.
func (r *Resolver) pythonIteratedElements(g *analysis.FileFacts, d analysis.Def, depth int) []Candidate {
	base, ok := strings.CutSuffix(d.Value, "[]")
	if !ok || base == "" || strings.HasSuffix(base, "()") || r.tooDeep(g.Lang, depth) {
		return nil
	}
	vref := valueRef(d)
	vref.Qualifier = base
	var out []Candidate
	for _, t := range r.receiverTypes(g, vref, depth+1) {
		for _, m := range r.members(t.Def, "__iter__", analysis.RoleCall, t.Confidence, depth+1) {
			mg := r.file(m.Def.Path)
			if mg == nil || int(m.Def.Index) >= len(mg.Defs) {
				continue
			}
			md := mg.Defs[m.Def.Index]
			if e := pythonElementType(md.TypeName, "", -1); e != "" {
				out = append(out, r.typesNamed(mg, e, md.Scope, md.NameSpan, depth+1)...)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// pythonElementTexts is the written types of the element d's value
// names ("parts[]", "d.items()[]#1"); ok is false for a value that is no
// element's.
func (r *Resolver) pythonElementTexts(g *analysis.FileFacts, d analysis.Def, depth int) ([]string, bool) {
	if g.Lang != "python" || !strings.Contains(d.Value, "[]") || d.Value == "[]" {
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
	var out []string
	for _, t := range r.writtenTypes(g, vref, depth) {
		for _, arm := range pythonUnionArms(t) {
			if e := pythonElementType(arm, method, index); e != "" {
				out = append(out, e)
			}
		}
	}
	return out, true
}

// pythonWrittenValue is the written types of a Python variable bound
// without an annotation to a value the resolver follows: an element, a
// call's result, an attribute, a literal.
func (r *Resolver) pythonWrittenValue(g *analysis.FileFacts, d analysis.Def, depth int) []string {
	if texts, ok := r.pythonElementTexts(g, d, depth); ok {
		return texts
	}
	vref := valueRef(d)
	vref.Qualifier = d.Value
	return r.writtenTypes(g, vref, depth)
}

// pythonSubscript reads a qualifier that ends in a subscript, parts[0] or
// parts[1:], as the value a variable bound to it would have ("parts[]",
// "parts"); ok is false for other qualifiers.
func pythonSubscript(q string) (string, bool) {
	if !strings.HasSuffix(q, "]") {
		return "", false
	}
	open := openingBefore(q, len(q)-1, '[', ']')
	if open <= 0 {
		return "", false
	}
	base, index := q[:open], q[open+1:len(q)-1]
	if strings.ContainsAny(base, " ([{") && !strings.HasSuffix(base, ")") {
		return "", false
	}
	if depthFree(index, ':') {
		return base, true // a slice has the sequence's type
	}
	return base + "[]", true
}

// depthFree reports whether c occurs in s outside brackets.
func depthFree(s string, c byte) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
		case c:
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// pythonElementType is the type of the index-th part (-1: the whole) of
// an element of a value annotated t, iterated directly or through a
// mapping's method; "" when t does not say.
func pythonElementType(t, method string, index int) string {
	inner, ok := strings.CutSuffix(strings.TrimSpace(t), "]")
	open := strings.IndexByte(inner, '[')
	if !ok || open <= 0 {
		if method == "" && index < 0 {
			return pythonPlainElement(strings.TrimSpace(t))
		}
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

// pythonPlainElement is the element of a value of a built-in type that
// takes no type arguments: a str's characters are str, a bytes' ints.
func pythonPlainElement(t string) string {
	switch t {
	case "str":
		return "str"
	case "bytes", "bytearray":
		return "int"
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

// mappingValueMethods give one of a mapping's values (or the default).
var mappingValueMethods = map[string]bool{"get": true, "setdefault": true, "pop": true}

// pythonMappingValue types `d.get(k)`, `d.setdefault(k, [])` and
// `d.pop(k)` on a chain annotated as a mapping, `dict[str, list[F]]`, as
// the mapping's value type, which the compiled dict's methods do not
// declare; ok is false for other qualifiers, or when the chain's type
// names no value type.
func (r *Resolver) pythonMappingValue(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) ([]Candidate, bool) {
	if f.Lang != "python" {
		return nil, false
	}
	callee, ok := calleeOf(q)
	dot := strings.LastIndexByte(callee, '.')
	if !ok || dot <= 0 || !mappingValueMethods[callee[dot+1:]] {
		return nil, false
	}
	vref := ref
	vref.Qualifier = callee[:dot]
	var out []Candidate
	for _, t := range r.writtenTypes(f, vref, depth+1) {
		for _, arm := range pythonUnionArms(t) {
			if v := pythonElementType(arm, "values", -1); v != "" {
				out = append(out, r.typesNamed(f, v, ref.Scope, ref.Span, depth+1)...)
			}
		}
	}
	return out, len(out) > 0
}
