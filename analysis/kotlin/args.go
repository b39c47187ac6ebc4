package kotlin

import (
	"strings"

	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// callArgs is the shape of a call's arguments (see analysis.Ref.Args): the
// value arguments of its call suffix, then ^ for a trailing lambda. The
// grammar parses `f(a) { }` as a call of `f(a)`'s result, so the lambda of
// an outer suffix is passed in as trailing.
func callArgs(suffix syntax.Node, trailing bool) string {
	var codes []string
	for _, a := range suffix.Child("value_arguments").ChildrenOf("value_argument") {
		codes = append(codes, argCode(a))
	}
	if suffix.Child("annotated_lambda").Valid() || trailing {
		codes = append(codes, "^")
	}
	return "(" + strings.Join(codes, ",") + ")"
}

// argCode is one argument's code: its label, if named, and what its value's
// syntax says of its type.
func argCode(a syntax.Node) string {
	parts := a.NamedChildren()
	label := ""
	if a.Child("=").Valid() && len(parts) > 1 && parts[0].Type() == "simple_identifier" {
		label = parts[0].Text() + "="
		parts = parts[1:]
	}
	if len(parts) == 0 {
		if strings.TrimSpace(strings.TrimPrefix(a.Text(), label)) == "null" || strings.HasSuffix(a.Text(), "null") {
			return label + "n"
		}
		return label + "_"
	}
	return label + valueCode(parts[len(parts)-1])
}

func valueCode(v syntax.Node) string {
	switch v.Type() {
	case "string_literal", "line_string_literal", "multi_line_string_literal":
		return "s"
	case "integer_literal", "hex_literal", "bin_literal":
		return "i"
	case "long_literal":
		return "L"
	case "real_literal":
		return "d"
	case "boolean_literal":
		return "b"
	case "character_literal":
		return "c"
	case "callable_reference":
		if strings.HasSuffix(v.Text(), "::class") {
			return "t:KClass"
		}
		return "f"
	case "lambda_literal", "anonymous_function":
		return "f"
	case "spread_expression":
		return "*"
	case "simple_identifier", "navigation_expression", "call_expression":
		// A variable, a property chain or a call: the resolver may know its
		// type. Text that would break the shape's syntax is left out.
		if text := extract.Qualifier(v); len(text) <= maxValue && !strings.ContainsAny(text, ",={}") {
			return "$" + text
		}
	case "prefix_expression":
		// -1 is an integer still.
		if parts := v.NamedChildren(); len(parts) == 1 && strings.HasPrefix(v.Text(), "-") {
			return valueCode(parts[0])
		}
	}
	return "_"
}
