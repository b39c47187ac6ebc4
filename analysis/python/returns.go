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
	// A returned module-level name (`return root`, with `root =
	// RootLogger(WARNING)` at the top of the module) has the class it is
	// constructed from, unless the function binds the name itself.
	for name, t := range moduleConstructed(fn) {
		if _, ok := annotated[name]; !ok && !assignsName(fn.Field("body"), name) {
			annotated[name] = t
		}
	}
	// A local bound once, to a constructed class (`app = Flask(...)` ...
	// `return app`), has that class.
	for name, t := range localConstructed(fn.Field("body")) {
		if _, ok := annotated[name]; !ok {
			annotated[name] = t
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

// moduleConstructed maps the names the top level of fn's module binds by
// `name = Class(...)` to the class, for a function at that top level.
func moduleConstructed(fn syntax.Node) map[string]string {
	out := map[string]string{}
	module := fn.Parent()
	if module.Type() == "decorated_definition" {
		module = module.Parent()
	}
	if module.Type() != "module" {
		return out
	}
	for _, st := range module.NamedChildren() {
		if st.Type() != "expression_statement" {
			continue
		}
		a := firstNamed(st)
		if a.Type() != "assignment" || a.Field("left").Type() != "identifier" || a.Field("type").Valid() {
			continue
		}
		name := a.Field("left").Text()
		if t := constructedType(a.Field("right")); t != "" && out[name] == "" {
			out[name] = t
		} else {
			out[name] = "-" // bound twice, or to something else: not guessed
		}
	}
	for name, t := range out {
		if t == "-" {
			delete(out, name)
		}
	}
	return out
}

// assignsName reports whether a function body binds name itself (an
// assignment, a loop, `global` aside): then its returns of name are its own.
func assignsName(body syntax.Node, name string) bool {
	found := false
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		for _, c := range n.NamedChildren() {
			if found {
				return
			}
			switch c.Type() {
			case "function_definition", "class_definition", "lambda":
				continue
			case "assignment", "augmented_assignment", "for_statement", "with_item", "named_expression":
				left := c.Field("left")
				if c.Type() == "with_item" {
					left = c.Field("value")
				}
				if c.Type() == "named_expression" {
					left = c.Field("name")
				}
				if bindsName(left, name) {
					found = true
					return
				}
			}
			visit(c)
		}
	}
	visit(body)
	return found
}

// bindsName reports whether an assignment's target names name: itself, or
// an element of a tuple or list of targets.
func bindsName(target syntax.Node, name string) bool {
	switch target.Type() {
	case "identifier":
		return target.Text() == name
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list", "list_splat_pattern", "as_pattern":
		for _, c := range target.NamedChildren() {
			if bindsName(c, name) {
				return true
			}
		}
	}
	return false
}

// localConstructed maps the names a function body binds exactly once, by
// `name = Class(...)`, to the class; a name bound again or otherwise (a
// loop, a with, +=) is left out.
func localConstructed(body syntax.Node) map[string]string {
	out := map[string]string{}
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "function_definition", "class_definition", "lambda", "decorated_definition":
				continue
			case "assignment":
				left := c.Field("left")
				if left.Type() == "identifier" && !c.Field("type").Valid() {
					name := left.Text()
					if t := constructedType(c.Field("right")); t != "" && out[name] == "" {
						out[name] = t
					} else {
						out[name] = "-"
					}
				} else {
					markBound(left, out)
				}
			case "augmented_assignment", "for_statement":
				markBound(c.Field("left"), out)
			case "with_item":
				markBound(c.Field("value"), out)
			case "named_expression":
				markBound(c.Field("name"), out)
			}
			visit(c)
		}
	}
	visit(body)
	for name, t := range out {
		if t == "-" {
			delete(out, name)
		}
	}
	return out
}

// markBound marks every name a binding target binds as not guessed;
// `app.config = x` and `d[k] = x` bind no name.
func markBound(target syntax.Node, out map[string]string) {
	switch target.Type() {
	case "identifier":
		out[target.Text()] = "-"
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list", "list_splat_pattern", "as_pattern":
		for _, c := range target.NamedChildren() {
			markBound(c, out)
		}
	}
}
