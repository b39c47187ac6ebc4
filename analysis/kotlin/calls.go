package kotlin

// Calls: the callee reference with its argument shape, and the labels of
// named arguments.

import (
	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

func (w *walker) call(n syntax.Node) { w.callWith(n, false) }

// callWith records a call; trailing says that the call's result is called
// with a lambda only, which the grammar's `f(a) { }` means.
func (w *walker) callWith(n syntax.Node, trailing bool) {
	callee := withoutComments(n.NamedChildren())
	if len(callee) == 0 {
		return
	}
	var suffix syntax.Node
	if len(callee) > 1 && callee[1].Type() == "call_suffix" {
		suffix = callee[1]
	}
	before := len(w.b.Facts.Refs)
	switch f := callee[0]; f.Type() {
	case "simple_identifier":
		w.b.Call(f, "")
		w.setArgs(before, f, suffix, trailing)
	case "navigation_expression":
		w.navigation(f, analysis.RoleCall)
		if parts := withoutComments(f.NamedChildren()); len(parts) == 2 {
			w.setArgs(before, parts[1].Child("simple_identifier"), suffix, trailing)
		}
	case "call_expression":
		lambdaOnly := suffix.Valid() && !suffix.Child("value_arguments").Valid() && suffix.Child("annotated_lambda").Valid()
		if inner := f.NamedChildren(); lambdaOnly && len(inner) > 1 && inner[1].Child("value_arguments").Valid() &&
			!inner[1].Child("annotated_lambda").Valid() {
			w.callWith(f, true)
		} else {
			w.node(f)
		}
	default:
		w.node(f)
	}
	for _, c := range callee[1:] {
		w.node(c)
	}
}

// setArgs gives the call reference of name, recorded after index before,
// the shape of its arguments.
func (w *walker) setArgs(before int, name, suffix syntax.Node, trailing bool) {
	refs := w.b.Facts.Refs
	if !name.Valid() || !suffix.Valid() || len(refs) <= before {
		return
	}
	if last := &refs[len(refs)-1]; last.Span.Start == name.Start() && last.Role&analysis.RoleCall != 0 {
		last.Args = callArgs(suffix, trailing)
	}
}

// withoutComments drops the comments among a chain's parts: a comment
// between `a.b()` and `.c()` is a named child of the navigation.
func withoutComments(parts []syntax.Node) []syntax.Node {
	out := parts[:0:0]
	for _, p := range parts {
		if !p.Is("line_comment", "multiline_comment") {
			out = append(out, p)
		}
	}
	return out
}

// valueArgument skips the label of a named argument: `name = x` refers to a
// parameter of the callee, not to anything in scope.
func (w *walker) valueArgument(n syntax.Node) {
	parts := n.NamedChildren()
	if n.Child("=").Valid() && len(parts) > 1 && parts[0].Type() == "simple_identifier" {
		// The label names a parameter of the callee: a reference qualified
		// by the callee in parentheses, which the resolver looks in.
		if callee := calleeOfArgument(n); callee != "" {
			w.b.Ref(parts[0], analysis.RoleRead, "("+callee+")")
		}
		parts = parts[1:]
	}
	for _, c := range parts {
		w.node(c)
	}
}
