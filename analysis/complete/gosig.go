package complete

import (
	"strings"

	"github.com/kast-dev/kast/analysis/resolve"
)

// Reading Go declarations as the tables write them (a definition's
// signature or type): what a member's value is, so that completion can
// rank it against the type the cursor expects without decoding its file.

// goValue is what naming a Go declaration gives: a field's or variable's
// type, or a function's parameters and results.
type goValue struct {
	typ      string   // written type of a field, variable or typed constant
	untyped  string   // an untyped constant's kind: "int", "float", "string", "bool"
	isFunc   bool     // a function or method: params and results below
	params   []string // parameter types, in order ("...T" for a variadic one)
	results  []string // result types
	constVal string   // an untyped constant's value expression, "" when none
	implicit bool     // a constant that repeats the previous one's type and value
}

// goDeclValue reads the value of a declaration from its signature: "func
// (c *Command) Root() *Command", "Short string", "Second = 1000 *
// Millisecond", "March".
func goDeclValue(name, detail string, isFunc bool) goValue {
	if isFunc || strings.HasPrefix(detail, "func") {
		return goFuncValue(detail)
	}
	rest := strings.TrimSpace(strings.TrimPrefix(detail, name))
	if rest == "" {
		return goValue{implicit: true}
	}
	typ, val, hasVal := strings.Cut(rest, "=")
	typ, val = strings.TrimSpace(typ), strings.TrimSpace(val)
	if typ != "" || !hasVal {
		return goValue{typ: typ}
	}
	return goValue{untyped: literalKind(val), constVal: val}
}

// goFuncValue splits "func (r R) Name[T any](a, b int, c ...string) (x X, err error)".
func goFuncValue(sig string) goValue {
	s := strings.TrimSpace(strings.TrimPrefix(sig, "func"))
	if strings.HasPrefix(s, "(") { // the receiver
		s = strings.TrimSpace(s[closeOf(s, 0)+1:])
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return goValue{isFunc: true}
	}
	if br := strings.IndexByte(s[:open], '['); br >= 0 { // type parameters
		open = strings.IndexByte(s[closeOf(s, br)+1:], '(') + closeOf(s, br) + 1
	}
	end := closeOf(s, open)
	v := goValue{isFunc: true, params: fieldTypes(s[open+1 : end])}
	res := strings.TrimSpace(s[end+1:])
	if strings.HasPrefix(res, "(") {
		v.results = fieldTypes(res[1:closeOf(res, 0)])
	} else if res != "" {
		v.results = []string{res}
	}
	return v
}

// fieldTypes is the type of each name of a parameter or result list: "a,
// b int, c string" has three; "int, error" two unnamed ones.
func fieldTypes(list string) []string {
	parts := resolve.SplitTopLevel(list)
	if len(parts) == 0 {
		return nil
	}
	named := false // Go names all of a list's fields or none
	if name, _, ok := strings.Cut(strings.TrimSpace(parts[len(parts)-1]), " "); ok && isGoName(name) && !goTypeKeywords[name] {
		named = true
	}
	out := make([]string, len(parts))
	pending := 0 // names waiting for the type written after them
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if !named {
			out[i] = p
			continue
		}
		_, typ, ok := strings.Cut(p, " ")
		if !ok {
			pending++ // "a, b int": a takes b's type
			continue
		}
		for k := i - pending; k <= i; k++ {
			out[k] = strings.TrimSpace(typ)
		}
		pending = 0
	}
	return out
}

func isGoName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return s != ""
}

// closeOf is the index of the bracket closing the one at open, or
// len(s)-1 when it is unbalanced.
func closeOf(s string, open int) int {
	if end := resolve.MatchingForward(s, open); end >= 0 {
		return end
	}
	return len(s) - 1
}

// literalKind is the kind of an untyped constant expression's first
// literal: "1000 * Nanosecond" is an int, `"GET"` a string.
func literalKind(expr string) string {
	expr = strings.TrimLeft(expr, "-+(^ ")
	switch {
	case expr == "":
		return ""
	case expr[0] == '"' || expr[0] == '`':
		return "string"
	case expr[0] == '\'':
		return "rune"
	case expr[0] >= '0' && expr[0] <= '9':
		end := 0
		for end < len(expr) && (isIdent(expr[end]) || expr[end] == '.') {
			end++
		}
		if strings.ContainsAny(expr[:end], ".eE") && !strings.HasPrefix(expr, "0x") {
			return "float"
		}
		return "int"
	case strings.HasPrefix(expr, "true"), strings.HasPrefix(expr, "false"):
		return "bool"
	case strings.HasPrefix(expr, "iota"):
		return "int"
	}
	return ""
}
