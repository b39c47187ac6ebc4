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
// the member chain they all return, which the resolver types: one of
// `this` (zod v3's unannotated `min(…) { return this._addCheck(…) }`) or
// a call of a name declared outside the function (zod v3's
// `instanceOfType = (cls) => custom<InstanceType<T>>(…)`). An arrow
// function's expression body is its one return.
func (w *walker) inferResult(d int32, n syntax.Node) {
	def := w.b.D(d)
	body := n.Field("body")
	if def.TypeName != "" || !body.Valid() {
		return
	}
	if !body.Is("statement_block") {
		if n.Type() != "arrow_function" {
			return
		}
		t, v := constructedType(body), valueText(body)
		switch {
		case t != "":
			def.TypeName = t
		case outerCall(v, n) && len(v) <= 200:
			def.Value = returnedPrefix + v
		}
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
				if t == "" && !strings.HasPrefix(v, "this.") && !outerCall(v, n) || t != "" && typeName != "" && t != typeName || t == "" && value != "" && withoutArgs(v) != withoutArgs(value) {
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

// withoutArgs is chain v with its calls' arguments left out: returns of
// one chain with other arguments agree (`return custom<number>()`, `return
// custom<number>(check)`).
func withoutArgs(v string) string {
	var b strings.Builder
	depth := 0
	for _, r := range v {
		switch {
		case r == '(':
			if depth == 0 {
				b.WriteRune(r)
			}
			depth++
		case r == ')':
			depth--
			if depth == 0 {
				b.WriteRune(r)
			}
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// outerCall reports whether chain v, returned by function n, is a call
// whose first name is declared outside n (not one of its parameters or
// locals): the resolver types it from where n is declared.
func outerCall(v string, n syntax.Node) bool {
	head, _, _ := strings.Cut(strings.TrimPrefix(v, "await "), ".")
	head, _, _ = strings.Cut(head, "(")
	if !strings.Contains(v, "(") || head == "" || head == "this" || head == "super" || strings.HasPrefix(v, "await ") {
		return false
	}
	declared := false
	var visit func(syntax.Node)
	visit = func(x syntax.Node) {
		for _, c := range x.NamedChildren() {
			if declared {
				return
			}
			switch {
			case c.Type() == "identifier" && c.Text() == head && declaresIdentifier(c):
				declared = true
			default:
				visit(c)
			}
		}
	}
	visit(n)
	return !declared
}

// declaresIdentifier reports whether identifier id is bound where it
// stands: a parameter, a variable, a function's or a class's name.
func declaresIdentifier(id syntax.Node) bool {
	for p := id.Parent(); p.Valid(); p = p.Parent() {
		switch p.Type() {
		case "formal_parameters", "required_parameter", "optional_parameter", "function_declaration", "class_declaration",
			"generator_function_declaration", "catch_clause":
			return true
		case "variable_declarator":
			v := p.Field("value")
			return !v.Valid() || id.Start() < v.Start() || id.End() > v.End()
		case "arrow_function":
			return p.Field("parameter").Same(id)
		case "statement_block", "expression_statement", "call_expression", "member_expression", "return_statement":
			return false
		}
	}
	return false
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
	if t, ok := strings.CutPrefix(callback, contextualPrefix); w.result == "" && ok && strings.HasSuffix(t, "#-1") {
		w.result = resultType(strings.TrimSuffix(t, "#-1")) // a function inside the typed value has no known result
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
