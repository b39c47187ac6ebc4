package golang

// How a declared name's value and type are written down for the resolver,
// which infers types from that text: values as expressions, the types of
// ranging and of composite literals.

import (
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis/syntax"
)

// maxValue bounds the value text kept: long chains are rare and not worth
// the index space.
const maxValue = 120

// valueOf is the value the i-th of n names is set from, for the resolver to
// infer its type from: the i-th value; of a single value, the first name
// is set from it (`v, ok := x.(T)`, `v, ok := m[k]`) and the others from a
// call's other results ("f()#1").
func valueOf(values []syntax.Node, i, n int) string {
	switch {
	case len(values) == n:
		return valueExpr(values[i])
	case len(values) == 1 && i == 0:
		return valueExpr(values[0])
	case len(values) == 1 && values[0].Type() == "call_expression":
		if v := valueExpr(values[0]); v != "" {
			return v + "#" + strconv.Itoa(i)
		}
	}
	return ""
}

// valueExpr renders an expression as the resolver infers types from it:
// names and selectors as written, call arguments dropped (`a.f()`), index
// expressions emptied (`m[]`), type assertions and new(T) kept; "" for any
// other expression.
func valueExpr(n syntax.Node) string {
	var b strings.Builder
	if !writeValue(&b, n) || b.Len() > maxValue {
		return ""
	}
	return b.String()
}

func writeValue(b *strings.Builder, n syntax.Node) bool {
	if b.Len() > maxValue {
		return false
	}
	switch n.Type() {
	case "identifier":
		b.WriteString(n.Text())
	case "selector_expression":
		if !writeValue(b, n.Field("operand")) {
			return false
		}
		b.WriteString(".")
		b.WriteString(n.Field("field").Text())
	case "call_expression":
		fn := n.Field("function")
		if args := n.Field("arguments").NamedChildren(); fn.Type() == "identifier" && fn.Text() == "new" && len(args) == 1 {
			return writeType(b, "new(", args[0], ")")
		}
		if !writeValue(b, fn) {
			return false
		}
		b.WriteString("()")
	case "index_expression":
		if !writeValue(b, n.Field("operand")) {
			return false
		}
		b.WriteString("[]")
	case "type_assertion_expression":
		if !writeValue(b, n.Field("operand")) {
			return false
		}
		return writeType(b, ".(", n.Field("type"), ")")
	case "unary_expression":
		op := n.Field("operator").Text()
		if op != "&" && op != "*" {
			return false
		}
		b.WriteString(op)
		return writeValue(b, n.Field("operand"))
	case "parenthesized_expression":
		list := n.NamedChildren()
		if len(list) != 1 {
			return false
		}
		b.WriteString("(")
		if !writeValue(b, list[0]) {
			return false
		}
		b.WriteString(")")
	default:
		return false
	}
	return true
}

// writeType writes a type written on one line between open and close.
func writeType(b *strings.Builder, open string, t syntax.Node, close string) bool {
	text := t.Text()
	if text == "" || strings.ContainsAny(text, "\n\t ") {
		return false
	}
	b.WriteString(open)
	b.WriteString(text)
	b.WriteString(close)
	return true
}

// rangeTypes are the key and element types of ranging over a value of type t.
func rangeTypes(t string) (key, elem string) {
	switch {
	case strings.HasPrefix(t, "map["):
		depth := 0
		for i, c := range t {
			switch c {
			case '[':
				depth++
			case ']':
				if depth--; depth == 0 {
					return t[len("map["):i], t[i+1:]
				}
			}
		}
	case strings.HasPrefix(t, "["):
		if i := strings.IndexByte(t, ']'); i >= 0 {
			return "int", t[i+1:]
		}
	}
	return "", ""
}

// literalType infers the type of the i-th of n names from a composite
// literal `T{...}` or `&T{...}` on the right.
func literalType(values syntax.Node, i, n int) string {
	list := values.NamedChildren()
	if values.Type() != "expression_list" {
		list = []syntax.Node{values}
	}
	if len(list) != n || i >= len(list) {
		return ""
	}
	v := list[i]
	if v.Type() == "unary_expression" && v.Child("&").Valid() {
		v = v.Field("operand")
	}
	if v.Type() == "composite_literal" {
		return v.Field("type").Text()
	}
	if v.Type() == "func_literal" {
		// A function value's type: calling the variable has its result
		// (`c := getCmd()` after `getCmd := func() *Command {…}`).
		t := "func" + v.Field("parameters").Text()
		if res := v.Field("result"); res.Valid() {
			t += " " + res.Text()
		}
		return t
	}
	return ""
}
