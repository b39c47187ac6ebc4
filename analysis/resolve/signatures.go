package resolve

// Parameter lists read from a function's or constructor's signature, as
// Kotlin and Java write them: what tells overloads apart.

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// OverloadShape is what tells a function or constructor apart from its
// overloads: its parameter types, "(String,Int...)", or "" when its
// signature does not show them. An expect function and its actuals share it.
func OverloadShape(d analysis.Def) string {
	if !isCallable(d.Kind) {
		return ""
	}
	params, ok := signatureParams(d)
	if !ok {
		return ""
	}
	if d.Receiver != "" {
		return baseTypeName(d.Receiver) + "." + paramShape(params)
	}
	return paramShape(params)
}

// paramShape is a parameter list's types, which identify an overload.
func paramShape(params []param) string {
	types := make([]string, len(params))
	for i, p := range params {
		types[i] = strings.ReplaceAll(p.typ, " ", "")
		if p.variadic {
			types[i] += "..."
		}
	}
	return "(" + strings.Join(types, ",") + ")"
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
	} else {
		// The name followed by its parameter list; an annotation before it
		// may hold the name too (@JvmName("nameFromX")).
		for from := 0; open < 0; {
			i := strings.Index(sig[from:], d.Name)
			if i < 0 {
				break
			}
			at := from + i + len(d.Name)
			if j := strings.IndexByte(sig[at:], '('); j >= 0 && strings.TrimSpace(sig[at:at+j]) == "" {
				open = at + j
			}
			from = at
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

// javaConstructors replaces, for a Java `new Doc(…)` whose best candidate
// is the class, the class with the constructors it declares, as sure as
// it: the arguments then choose one (bindOverloads). A class without a
// declared constructor stays the answer.
func (r *Resolver) javaConstructors(f *analysis.FileFacts, ref analysis.Ref, c []Candidate) []Candidate {
	if f.Lang != "java" || ref.Role&analysis.RoleCall == 0 || len(c) == 0 || !c[0].Kind.IsType() {
		return c
	}
	g := r.file(c[0].Def.Path)
	var ctors []Candidate
	for _, i := range r.named(g, c[0].Name) {
		if d := g.Defs[i]; d.Kind == analysis.KindConstructor && d.Container == c[0].Def.Index {
			x := r.candidate(DefID{c[0].Def.Path, i}, c[0].Confidence, c[0].Via)
			x.Uncertain = c[0].Uncertain
			ctors = append(ctors, x)
		}
	}
	if len(ctors) == 0 {
		return c
	}
	return append(ctors, c[1:]...)
}
