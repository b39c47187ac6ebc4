package java

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// maxArgText bounds the text of an argument kept for the resolver to type.
const maxArgText = 200

// setArgs gives the call reference of name, the last one recorded, the
// shape of its argument list (see analysis.Ref.Args).
func (w *walker) setArgs(name, list syntax.Node) {
	refs := w.b.Facts.Refs
	if !name.Valid() || !list.Valid() || len(refs) == 0 {
		return
	}
	last := &refs[len(refs)-1]
	if last.Span.Start != name.Start() || last.Role&analysis.RoleCall == 0 {
		return
	}
	var codes []string
	for _, a := range list.NamedChildren() {
		if !a.Is("line_comment", "block_comment") {
			codes = append(codes, argCode(a))
		}
	}
	last.Args = "(" + strings.Join(codes, ",") + ")"
}

// argCode is what an argument's syntax says of its type.
func argCode(a syntax.Node) string {
	switch a.Type() {
	case "string_literal", "text_block":
		return "s"
	case "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal":
		if strings.HasSuffix(strings.ToLower(a.Text()), "l") {
			return "L"
		}
		return "i"
	case "decimal_floating_point_literal", "hex_floating_point_literal":
		return "d"
	case "true", "false":
		return "b"
	case "character_literal":
		return "c"
	case "null_literal":
		return "n"
	case "class_literal":
		return "t:Class"
	case "lambda_expression", "method_reference":
		return "f"
	case "identifier", "field_access", "method_invocation", "object_creation_expression":
		if text := extract.Qualifier(a); len(text) <= maxArgText && !strings.ContainsAny(text, ",={}") {
			return "$" + text
		}
	}
	return "_"
}
