package ecma

// What functions return and what their parameters are given: a function
// written where a function of a known type is expected (a typed
// variable's value, what a function of known result returns) takes its
// parameters' types from that type; a function without a written result
// has the type its returns agree on.

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// returnedPrefix marks the Value of a function without a written result
// whose every return gives one member chain of this: "return:this.x()".
const returnedPrefix = "return:"

// inferResult gives function d (n), whose result is not written, the type
// its returns agree on: `this`, `new T(…)`'s T, a literal's type; else
// the member chain of `this` they all return (zod v3's unannotated
// `min(…) { return this._addCheck(…) }`), which the resolver types.
func (w *walker) inferResult(d int32, n syntax.Node) {
	def := w.b.D(d)
	if def.TypeName != "" || !n.Field("body").Is("statement_block") {
		return
	}
	typeName, value, agree := "", "", true
	var visit func(syntax.Node)
	visit = func(x syntax.Node) {
		for _, c := range x.NamedChildren() {
			switch {
			case !agree:
				return
			case c.Is("function_expression", "function", "arrow_function", "generator_function", "class", "function_declaration", "class_declaration"):
			case c.Type() == "return_statement":
				kids := c.NamedChildren()
				if len(kids) != 1 {
					agree = false
					return
				}
				t, v := constructedType(kids[0]), valueText(kids[0])
				if kids[0].Type() == "this" {
					t = "this"
				}
				if t == "" && !strings.HasPrefix(v, "this.") || t != "" && typeName != "" && t != typeName || t == "" && value != "" && v != value {
					agree = false
					return
				}
				if t != "" {
					typeName = t
				} else {
					value = v
				}
			default:
				visit(c)
			}
		}
	}
	visit(n.Field("body"))
	switch {
	case !agree || typeName != "" && value != "":
	case typeName != "":
		def.TypeName = typeName
	case value != "" && len(value) <= 200:
		def.Value = returnedPrefix + value
	}
}

// contextualPrefix starts a callback context that is a written function
// type rather than a callee: "=>:T#-1" for a function whose type is T.
const contextualPrefix = "=>:"

// contextual visits v, a function written where a function of type t is
// expected (a typed variable's value, what a function of known result
// returns): its untyped parameters take their types from t's.
func (w *walker) contextual(v syntax.Node, t string) {
	if t != "" && len(t) <= 200 && v.Is("arrow_function", "function_expression", "function") {
		w.callback = contextualPrefix + t + "#-1"
	}
	w.node(v)
	w.callback = ""
}

// returning runs visit with the result of function n known: its written
// return type, else the result of the function type its callback context
// names.
func (w *walker) returning(n syntax.Node, callback string, visit func()) {
	saved := w.result
	w.result = annotation(n.Field("return_type"))
	if t, ok := strings.CutPrefix(callback, contextualPrefix); w.result == "" && ok {
		w.result = resultType(strings.TrimSuffix(t, "#-1"))
	}
	visit()
	w.result = saved
}

// resultType is what a written function type `(a: A) => R` returns: R;
// "" for any other type.
func resultType(t string) string {
	s := strings.TrimSpace(t)
	for strings.HasPrefix(s, "(") && closingOf(s) == len(s)-1 {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	r, _ := analysis.FunctionTypeResult(s)
	return r
}

// closingOf is the index of the bracket closing s's first, or -1.
func closingOf(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i == 0 || s[i-1] != '=' {
				depth--
			}
		}
		if depth == 0 {
			return i
		}
	}
	return -1
}

// arrowType is the function type of a function-valued field whose result
// is written, `static create = (p?: P): ZodAny => …`: "(p?: P) => ZodAny",
// so that a call of the field, or of a constant bound to it, has that
// result; "" for any other value.
func arrowType(v syntax.Node) string {
	ret := annotation(v.Field("return_type"))
	params := v.Field("parameters")
	if !v.Is("arrow_function", "function_expression", "function") || ret == "" || !params.Valid() || len(params.Text()) > 200 {
		return ""
	}
	return withoutComments(v.Field("type_parameters").Text()+params.Text()) + " => " + ret
}
