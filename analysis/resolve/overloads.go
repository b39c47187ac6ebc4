package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Overloads: a Kotlin or Java call whose name several functions of one
// scope share binds to the one its arguments fit, as the compiler would:
// by count, names, defaults, varargs, a trailing lambda and what literal
// arguments say of their types. An overload the arguments cannot fit is
// dropped; one that fits less well is kept as a guess; overloads that fit
// equally stay tied, and their references say the binding is ambiguous.

// overloadLangs are the languages whose calls carry argument shapes.
var overloadLangs = map[string]bool{"kotlin": true, "java": true}

// param is one declared parameter, as its signature writes it.
type param struct {
	name, typ       string
	deflt, variadic bool
}

// arg is one argument of a call's shape.
type arg struct {
	name, code string
}

// bindOverloads narrows a call's tied best candidates to the overloads its
// arguments fit best. c is sorted best first.
func (r *Resolver) bindOverloads(f *analysis.FileFacts, ref analysis.Ref, c []Candidate) []Candidate {
	if ref.Args == "" || !overloadLangs[f.Lang] || len(c) < 2 {
		return c
	}
	n := 0
	for n < len(c) && c[n].Confidence == c[0].Confidence {
		n++
	}
	if n < 2 {
		return c
	}
	args := parseArgs(ref.Args)
	scores := make([]int, n)
	bestScore, fits := -1, 0
	for i := range n {
		d := r.file(c[i].Def.Path).Defs[c[i].Def.Index]
		if !isCallable(d.Kind) {
			return c
		}
		params, ok := signatureParams(d)
		if !ok {
			scores[i] = 0 // unknown parameters fit anything, exactly nothing
		} else {
			scores[i] = fitScore(f.Lang, params, args)
		}
		switch {
		case scores[i] > bestScore:
			bestScore, fits = scores[i], 1
		case scores[i] == bestScore:
			fits++
		}
	}
	if bestScore < 0 || fits == n {
		// No overload fits (the shape or a signature is misread) or all
		// fit alike: the tie stands.
		return c
	}
	out := make([]Candidate, 0, len(c))
	for i, x := range c {
		if i < n {
			if scores[i] < 0 {
				continue
			}
			if scores[i] < bestScore {
				x.Confidence *= 0.4
			}
		}
		x.Uncertain = x.Confidence < r.threshold
		out = append(out, x)
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return 0
	})
	return out
}

func isCallable(k analysis.Kind) bool {
	return k == analysis.KindFunction || k == analysis.KindMethod || k == analysis.KindConstructor
}

// parseArgs splits "(s,x=i,^)" into its arguments.
func parseArgs(shape string) []arg {
	inner := strings.TrimSuffix(strings.TrimPrefix(shape, "("), ")")
	if inner == "" {
		return nil
	}
	var out []arg
	for _, a := range strings.Split(inner, ",") {
		name, code, ok := strings.Cut(a, "=")
		if !ok {
			name, code = "", a
		}
		out = append(out, arg{name, code})
	}
	return out
}

// fitScore is how well args fit params: -1 when they cannot, else the
// number of arguments whose literal type matches its parameter exactly,
// less a little for each default value used (Kotlin prefers the overload
// that needs none).
func fitScore(lang string, params []param, args []arg) int {
	assigned := make([]bool, len(params))
	score, pos := 0, 0
	for i, a := range args {
		var p int
		switch {
		case a.code == "^" && i == len(args)-1:
			p = len(params) - 1
			if p < 0 || assigned[p] || !mayBeFunction(params[p].typ) {
				return -1
			}
			assigned[p] = true
			continue
		case a.name != "":
			p = slices.IndexFunc(params, func(x param) bool { return x.name == a.name })
			if p < 0 || assigned[p] {
				return -1
			}
		default:
			if pos >= len(params) {
				return -1
			}
			p = pos
			if !params[p].variadic {
				pos++
			} else if !assigned[p] {
				score -= 2 // Kotlin and Java prefer an overload without varargs
			}
		}
		assigned[p] = true
		m := literalFit(lang, a.code, params[p])
		if m < 0 {
			return -1
		}
		score += 4 * m
	}
	for i, p := range params {
		if !assigned[i] {
			if !p.deflt && !p.variadic {
				return -1
			}
			if p.deflt {
				score--
			}
		}
	}
	return score + 4*len(params) // keep fitting scores non-negative
}

// valueTypes are the types whose literals are known: an argument of another
// literal kind cannot be passed to a parameter of one of them.
var valueTypes = map[string]bool{
	"String": true, "CharSequence": true, "Int": true, "Long": true, "Short": true, "Byte": true,
	"Double": true, "Float": true, "Boolean": true, "Char": true, "int": true, "long": true, "short": true,
	"byte": true, "double": true, "float": true, "boolean": true, "char": true, "Integer": true, "Character": true,
	"List": true, "Map": true, "Set": true, "Array": true, "ByteArray": true, "IntArray": true,
}

// accepts lists, per literal code, the value types a literal of it fits.
var accepts = map[string]map[string]bool{
	"s": {"String": true, "CharSequence": true},
	"i": {"Int": true, "Long": true, "Short": true, "Byte": true, "int": true, "long": true, "short": true, "byte": true, "Integer": true},
	"L": {"Long": true, "long": true},
	"d": {"Double": true, "Float": true, "double": true, "float": true},
	"b": {"Boolean": true, "boolean": true},
	"c": {"Char": true, "char": true, "Character": true},
}

// javaWidening adds the primitive conversions Java applies to literals.
var javaWidening = map[string]map[string]bool{
	"i": {"float": true, "double": true},
	"L": {"float": true, "double": true},
	"c": {"int": true, "long": true, "float": true, "double": true},
}

// literalFit is 1 when a literal of code fits p's type exactly, 0 when it
// may fit, -1 when it cannot.
func literalFit(lang, code string, p param) int {
	t := strings.TrimSpace(p.typ)
	nullable := strings.HasSuffix(t, "?")
	base := baseTypeName(strings.TrimSuffix(t, "?"))
	switch code {
	case "*":
		if p.variadic {
			return 1
		}
		return -1
	case "n":
		if lang == "kotlin" && !nullable && valueTypes[base] || lang == "java" && isJavaPrimitive(base) {
			return -1
		}
		return 0
	case "f":
		if mayBeFunction(t) {
			return 0
		}
		return -1
	}
	ok, known := accepts[code]
	if !known || t == "" {
		return 0
	}
	if ok[base] || lang == "java" && javaWidening[code][base] {
		return 1
	}
	if valueTypes[base] || strings.Contains(t, "->") {
		return -1
	}
	return 0
}

func isJavaPrimitive(t string) bool {
	switch t {
	case "int", "long", "short", "byte", "double", "float", "boolean", "char":
		return true
	}
	return false
}

// mayBeFunction reports whether a parameter of type t may take a lambda.
func mayBeFunction(t string) bool {
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "?"))
	return t == "" || strings.Contains(t, "->") || !valueTypes[baseTypeName(t)]
}

// signatureParams reads the parameters of a function or constructor from
// its signature; false when the signature does not show them all.
func signatureParams(d analysis.Def) ([]param, bool) {
	sig := d.Signature
	if strings.HasSuffix(sig, "…") {
		return nil, false
	}
	open := -1
	if d.Kind == analysis.KindConstructor {
		open = strings.IndexByte(sig, '(')
	} else if i := strings.Index(sig, d.Name); i >= 0 {
		if j := strings.IndexByte(sig[i+len(d.Name):], '('); j >= 0 && strings.TrimSpace(sig[i+len(d.Name):i+len(d.Name)+j]) == "" {
			open = i + len(d.Name) + j
		}
	}
	if open < 0 {
		return nil, false
	}
	end := closing(sig, open)
	if end < 0 {
		return nil, false
	}
	var out []param
	for _, text := range splitParams(sig[open+1 : end]) {
		if p, ok := parseParam(text); ok {
			out = append(out, p)
		}
	}
	return out, true
}

// closing is the index of the parenthesis closing the one at open.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

// splitParams splits a parameter list at its top-level commas; an arrow's
// '>' closes no angle bracket.
func splitParams(list string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch c := list[i]; c {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i == 0 || list[i-1] != '-' {
				depth--
			}
		case '"':
			for i++; i < len(list) && list[i] != '"'; i++ {
				if list[i] == '\\' {
					i++
				}
			}
		case ',':
			if depth == 0 {
				out = append(out, list[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(list[start:]) != "" {
		out = append(out, list[start:])
	}
	return out
}

// parseParam reads `vararg name: Type = x` (Kotlin) or `final Type... name`
// (Java).
func parseParam(text string) (param, bool) {
	text = stripAnnotations(strings.TrimSpace(text))
	if text == "" {
		return param{}, false
	}
	if colon := topLevelIndex(text, ':'); colon >= 0 {
		left, right := text[:colon], text[colon+1:]
		words := strings.Fields(left)
		if len(words) == 0 {
			return param{}, false
		}
		p := param{name: words[len(words)-1], variadic: slices.Contains(words, "vararg")}
		if eq := topLevelIndex(right, '='); eq >= 0 {
			p.deflt = true
			right = right[:eq]
		}
		p.typ = strings.TrimSpace(right)
		return p, true
	}
	words := strings.Fields(text)
	if len(words) < 2 {
		return param{}, false
	}
	typ := strings.Join(words[:len(words)-1], " ")
	p := param{name: words[len(words)-1], variadic: strings.Contains(typ, "...")}
	typ = strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(typ, "...", "")), "final")
	for _, w := range strings.Fields(typ) {
		if w != "final" && !strings.HasPrefix(w, "@") {
			p.typ = strings.TrimSpace(p.typ + " " + w)
		}
	}
	return p, true
}

// topLevelIndex is the first c outside brackets and strings, or -1.
func topLevelIndex(s string, c byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i == 0 || s[i-1] != '-' {
				depth--
			}
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
			}
		default:
			if s[i] == c && depth == 0 {
				return i
			}
		}
	}
	return -1
}

// stripAnnotations drops the annotations before a parameter
// (`@field:Json(name = "x") val a: Int`), whose colons and parentheses would
// read as the parameter's.
func stripAnnotations(s string) string {
	for strings.HasPrefix(s, "@") {
		i := 1
		for i < len(s) && (s[i] == '_' || s[i] == '.' || s[i] == ':' || s[i] >= '0' && s[i] <= '9' ||
			s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') {
			i++
		}
		if i < len(s) && s[i] == '(' {
			if end := closing(s, i); end > 0 {
				i = end + 1
			}
		}
		s = strings.TrimSpace(s[i:])
	}
	return s
}
