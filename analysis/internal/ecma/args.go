package ecma

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// callArgs gives the call reference that the visit of callee fn just
// recorded (the last reference, at fn's name) the shape of the call's
// arguments (analysis.Ref.Args), which tells TypeScript overloads apart.
func (w *walker) callArgs(fn, args syntax.Node) {
	refs := w.b.Facts.Refs
	if len(refs) == 0 || args.Type() != "arguments" {
		return
	}
	name := fn
	if fn.Type() == "member_expression" {
		name = fn.Field("property")
	}
	last := &refs[len(refs)-1]
	if !name.Valid() || last.Span.Start != name.Start() || last.Role&analysis.RoleCall == 0 {
		return
	}
	var codes []string
	for _, a := range args.NamedChildren() {
		if a.Type() != "comment" {
			codes = append(codes, argCode(a))
		}
	}
	last.Args = "(" + strings.Join(codes, ",") + ")"
}

// argCode is what an argument's syntax says of its type: s, i (a number),
// b, n (null or undefined), f (a function), p (a function whose written
// result is a type predicate), a (an array literal), o (an object
// literal), * (a spread) or _.
func argCode(a syntax.Node) string {
	for a.Type() == "parenthesized_expression" && len(a.NamedChildren()) == 1 {
		a = a.NamedChildren()[0]
	}
	switch a.Type() {
	case "string", "template_string":
		return "s"
	case "number":
		return "i"
	case "true", "false":
		return "b"
	case "null", "undefined":
		return "n"
	case "arrow_function", "function_expression", "function":
		if strings.Contains(a.Field("return_type").Text(), " is ") {
			return "p"
		}
		return "f"
	case "array":
		return "a"
	case "object":
		return "o"
	case "spread_element":
		return "*"
	}
	return "_"
}
