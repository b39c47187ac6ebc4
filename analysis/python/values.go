package python

import (
	"strings"

	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// The values of variables as chains the resolver follows to their types
// (analysis.Def.Value).

// callValue is a call's callee as a chain the resolver follows ("f()",
// "mod.f()", "obj.method()"), an attribute chain ("r.content"), or "" for
// other values.
func callValue(v syntax.Node) string {
	if lit := literalValue(v); lit != "" {
		return lit
	}
	switch v.Type() {
	case "identifier":
		return v.Text() // current = logger: what logger is
	case "attribute":
		if isChain(v) {
			// r.content, a.b().c: what the attribute is typed
			return extract.Qualifier(v)
		}
	case "subscript":
		return subscriptValue(v)
	case "boolean_operator":
		// `hooks or {}`: the literal's type, what the default gives.
		if right := v.Field("right"); v.Child("or").Valid() {
			return literalValue(right)
		}
	case "parenthesized_expression":
		if kids := v.NamedChildren(); len(kids) == 1 {
			return callValue(kids[0])
		}
	}
	if v.Type() != "call" || !isChain(v.Field("function")) {
		return ""
	}
	return extract.Qualifier(v.Field("function")) + "()"
}

// maxChain bounds the text of a chain kept as a value: a longer one (a
// call with a literal argument spanning lines) is not worth following.
const maxChain = 200

// isChain reports whether n is a name followed by attributes and calls
// (`app.test_client().get`), as a reference's qualifier records them, of
// a length worth following.
func isChain(n syntax.Node) bool {
	return n.End()-n.Start() <= maxChain && chainNode(n)
}

func chainNode(n syntax.Node) bool {
	switch n.Type() {
	case "identifier":
		return true
	case "attribute":
		return chainNode(n.Field("object"))
	case "call":
		return chainNode(n.Field("function"))
	}
	return false
}

// subscriptValue is an element of a sequence or mapping, "parts[]" for
// parts[0], or a slice, which has the sequence's type ("parts" for
// parts[1:]); "" when the subscripted value is no chain.
func subscriptValue(v syntax.Node) string {
	base := v.Field("value")
	chain := callValue(base)
	if chain == "" && isDotted(base) {
		chain = base.Text()
	}
	if chain == "" || strings.HasPrefix(chain, "[") || strings.HasPrefix(chain, "{") {
		return ""
	}
	if index := v.Field("subscript"); index.Type() == "slice" {
		return chain
	}
	return chain + "[]"
}

// literalValue is a literal's type as the resolver reads a literal
// qualifier (`""`, `b""`, `[]`, `{}`, `0`, `0.0`), or "": `v = "1.2"`
// has str's members after `v.`.
func literalValue(v syntax.Node) string {
	switch v.Type() {
	case "concatenated_string":
		if kids := v.NamedChildren(); len(kids) > 0 {
			return literalValue(kids[0])
		}
	case "string":
		text := v.Text()
		if strings.ContainsAny(text[:len(text)-len(strings.TrimLeft(text, "bBrRuUfF"))], "bB") {
			return `b""`
		}
		return `""`
	case "list", "list_comprehension":
		return "[]"
	case "dictionary", "dictionary_comprehension":
		return "{}"
	case "integer":
		return "0"
	case "float":
		return "0.0"
	}
	return ""
}

// chainHead is the first name of a value chain ("self" of
// "self.make_config()").
func chainHead(v string) string {
	end := strings.IndexAny(v, ".([")
	if end < 0 {
		return v
	}
	return v[:end]
}
