package python

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/syntax"
)

// returnedType infers what a function without a return annotation returns
// from its return statements, as a type the resolver reads like an
// annotation: a class constructed (`return Foo(...)`), a literal's
// built-in class, the method's own class for `return self` or
// `return cls(...)`, or a parameter's annotation; several are a union
// ("A | B"). Returns it cannot type are left out; "" when none is typed,
// and for generators and coroutines, which return something else.
func returnedType(fn syntax.Node, className string) string {
	if fn.Child("async").Valid() || strings.HasPrefix(fn.Text(), "async") {
		return ""
	}
	params := fn.Field("parameters").NamedChildren()
	first := ""
	if className != "" && len(params) > 0 && params[0].Type() == "identifier" {
		first = params[0].Text()
	}
	annotated := map[string]string{}
	for _, p := range params {
		if p.Type() == "typed_parameter" || p.Type() == "typed_default_parameter" {
			name := p.Child("identifier")
			if p.Type() == "typed_default_parameter" {
				name = p.Field("name")
			}
			if t := strings.TrimSpace(p.Field("type").Text()); name.Valid() && t != "" {
				annotated[name.Text()] = t
			}
		}
	}
	var arms []string
	generator := false
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "function_definition", "class_definition", "lambda", "decorated_definition":
				continue // their returns are theirs
			case "yield":
				generator = true
			case "return_statement":
				if v := firstNamed(c); v.Valid() {
					if t := valueType(v, className, first, annotated); t != "" && !slices.Contains(arms, t) {
						arms = append(arms, t)
					}
				}
			}
			visit(c)
		}
	}
	visit(fn.Field("body"))
	if generator {
		return ""
	}
	return strings.Join(arms, " | ")
}

// valueType is the type of a returned expression as returnedType reads it.
func valueType(v syntax.Node, className, self string, annotated map[string]string) string {
	switch v.Type() {
	case "identifier":
		if self != "" && v.Text() == self {
			return className
		}
		return annotated[v.Text()]
	case "call":
		if f := v.Field("function"); self != "" && f.Type() == "identifier" && f.Text() == self {
			return className // cls(...) in a class method
		}
		if t := constructedType(v); t != "" {
			return t
		}
		// A private class: _Environ(...).
		f := v.Field("function")
		if f.Type() == "identifier" {
			if name := strings.TrimLeft(f.Text(), "_"); name != "" && name != f.Text() && name[0] >= 'A' && name[0] <= 'Z' {
				return f.Text()
			}
		}
	case "parenthesized_expression":
		if kids := v.NamedChildren(); len(kids) == 1 {
			return valueType(kids[0], className, self, annotated)
		}
	case "true", "false":
		return "bool"
	case "tuple":
		return "tuple"
	case "set", "set_comprehension":
		return "set"
	case "string", "concatenated_string":
		if literalValue(v) == `b""` {
			return "bytes"
		}
		return "str"
	}
	switch literalValue(v) {
	case "[]":
		return "list"
	case "{}":
		return "dict"
	case "0":
		return "int"
	case "0.0":
		return "float"
	}
	return ""
}
