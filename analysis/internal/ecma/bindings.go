package ecma

// The names a declaration binds and the types they are written or
// inferred with: parameters, variables, destructuring patterns.

import (
	"cmp"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// signature declares type parameters and parameters, then visits the rest.
func (w *walker) signature(n syntax.Node) { w.signatureIn(n, "") }

// signatureIn is signature for a function passed where callback says.
func (w *walker) signatureIn(n syntax.Node, callback string) {
	for _, c := range n.NamedChildren() {
		switch {
		case c.Same(n.Field("name")):
		case c.Type() == "formal_parameters":
			w.parameters(c, callback)
		case c.Same(n.Field("body")) && n.Type() == "arrow_function":
			w.contextual(c, w.result) // `() => (issue) => …` returns its body
		case c.Type() == "identifier" && n.Type() == "arrow_function":
			// `x => ...` has a bare parameter.
			d := w.b.Def(analysis.KindParameter, c, c)
			if callback != "" {
				w.b.D(d).Value = callbackParam(callback, 0)
			}
		default:
			w.node(c)
		}
	}
}

func (w *walker) parameters(list syntax.Node, callback string) {
	class := w.enclosingClass()
	for i, p := range list.NamedChildren() {
		switch p.Type() {
		case "required_parameter", "optional_parameter":
			pattern := p.Field("pattern")
			typeName := annotation(p.Field("type"))
			// `constructor(private x: T)` declares a field of the class.
			if p.Child("accessibility_modifier").Valid() && pattern.Type() == "identifier" && class != analysis.None {
				d := w.b.Def(analysis.KindField, pattern, p)
				def := w.b.D(d)
				def.Container, def.Scope = class, w.b.Facts.Scopes[w.b.Scope()].Parent
				def.TypeName = typeName
				def.Visibility = p.Child("accessibility_modifier").Text()
			} else if callback != "" && typeName == "" && pattern.Type() == "identifier" {
				d := w.b.Def(analysis.KindParameter, pattern, pattern)
				w.b.D(d).Value = callbackParam(callback, i)
			} else if callback != "" && typeName == "" && pattern.Type() == "object_pattern" {
				// `({request, options}) => …`: each name is a member of the
				// parameter's type.
				w.bind(pattern, analysis.KindParameter, binding{callback: callbackParam(callback, i)})
			} else {
				w.declare(pattern, analysis.KindParameter, typeName)
			}
			w.node(p.Field("type"))
			w.node(p.Field("value"))
		default:
			w.declare(p, analysis.KindParameter, "")
		}
	}
}

func (w *walker) variables(n syntax.Node) {
	constant := n.Child("const").Valid()
	topLevel := w.b.Owner() == analysis.None || w.b.OwnerDef().Kind == analysis.KindModule
	for _, v := range n.ChildrenOf("variable_declarator") {
		name := v.Field("name")
		value := v.Field("value")
		if name.Type() != "identifier" {
			w.node(value)
			// `const {a} = v` binds v.a, `const {a}: T = v` T['a'].
			w.bind(name, analysis.KindVariable, binding{typeName: annotation(v.Field("type")), value: valueText(value)})
			continue
		}
		kind := analysis.KindVariable
		switch {
		case value.Is("arrow_function", "function_expression", "function", "generator_function"):
			kind = analysis.KindFunction
		case constant && topLevel:
			kind = analysis.KindConstant
		}
		d := w.b.Def(kind, name, v)
		at := cmpNode(exportStatement(n), n)
		def := w.b.D(d)
		def.Doc = w.b.Doc(at, extract.CStyle)
		def.Signature = extract.Header(v, value.Field("body"))
		def.TypeName = cmp.Or(annotation(v.Field("type")), constructedType(value))
		if kind == analysis.KindFunction {
			// A function's type, as for declared functions, is what it returns.
			def.TypeName = cmp.Or(annotation(value.Field("return_type")), def.TypeName)
			w.inferResult(d, value)
		} else if def.TypeName == "" {
			def.Value = valueText(value)
		}
		if topLevel {
			def.Visibility = exported(n)
		}
		w.node(v.Field("type"))
		switch obj := objectLiteral(value); {
		case kind == analysis.KindFunction:
			// Calls in the function's body belong to the variable naming
			// it; a typed variable types its parameters
			// (`const errorMap: ZodErrorMap = (issue, ctx) => …`).
			callback := ""
			if t := annotation(v.Field("type")); t != "" && len(t) <= 200 {
				callback = contextualPrefix + t + "#-1"
			}
			w.b.Owned(d, func() {
				w.returning(value, callback, func() { w.b.Within(value, analysis.None, func() { w.signatureIn(value, callback) }) })
			})
		case obj.Valid() && def.TypeName == "":
			w.objectMembers(d, obj)
		case obj.Valid() && annotation(v.Field("type")) != "":
			// `const options: Options = {hooks: {beforeRequest: [(request) => …]}}`
			w.contextualValue(value, contextualPrefix+annotation(v.Field("type"))+"#-1")
		case schemaShape(value).Valid() && def.TypeName == "":
			w.shapeMembers(d, value)
		default:
			w.node(value)
		}
	}
}

// declare records the names a parameter or destructuring pattern binds.
func (w *walker) declare(p syntax.Node, kind analysis.Kind, typeName string) {
	w.bind(p, kind, binding{typeName: typeName})
}

// binding is what a name in a pattern is bound from: the written type of
// the whole (the member's type is `T['name']`), or the value destructured
// (the member's value is `v.name`).
type binding struct {
	typeName, value string
	callback        string // a callback parameter's context, its keys after the index
}

// member is the binding of the property key of a destructured object.
func (b binding) member(key syntax.Node) binding {
	if !key.Is("property_identifier", "shorthand_property_identifier_pattern") {
		return binding{}
	}
	var out binding
	if b.typeName != "" {
		out.typeName = b.typeName + "['" + key.Text() + "']"
	}
	if b.value != "" {
		out.value = b.value + "." + key.Text()
	}
	if b.callback != "" {
		out.callback = b.callback + "/" + key.Text()
	}
	return out
}

func (w *walker) bind(p syntax.Node, kind analysis.Kind, from binding) {
	switch p.Type() {
	case "identifier", "shorthand_property_identifier_pattern":
		d := w.b.Def(kind, p, p)
		def := w.b.D(d)
		def.TypeName = from.typeName
		if from.typeName == "" {
			def.Value = cmp.Or(from.callback, from.value)
		}
	case "assignment_pattern":
		w.node(p.Field("right"))
		w.bind(p.Field("left"), kind, from)
	case "object_assignment_pattern": // `{a = 1}`
		w.node(p.Field("right"))
		left := p.Field("left")
		w.bind(left, kind, from.member(left))
	case "pair_pattern":
		w.bind(p.Field("value"), kind, from.member(p.Field("key")))
	case "object_pattern":
		for _, c := range p.NamedChildren() {
			if c.Type() == "shorthand_property_identifier_pattern" {
				w.bind(c, kind, from.member(c))
			} else {
				w.bind(c, kind, from)
			}
		}
	case "array_pattern", "rest_pattern":
		for _, c := range p.NamedChildren() {
			w.bind(c, kind, binding{})
		}
	default:
		w.node(p)
	}
}

// pattern records what an assignment's left side writes; with a kind it
// declares instead (for-of variables).
func (w *walker) pattern(p syntax.Node, role analysis.Role, kind analysis.Kind) {
	if kind != analysis.KindUnknown {
		w.declare(p, kind, "")
		return
	}
	switch p.Type() {
	case "identifier", "shorthand_property_identifier_pattern":
		w.b.Ref(p, role, "")
	case "member_expression":
		w.member(p, role)
	case "object_pattern", "array_pattern", "pair_pattern", "assignment_pattern", "rest_pattern", "parenthesized_expression":
		for _, c := range p.NamedChildren() {
			w.pattern(c, role, kind)
		}
	default:
		w.node(p)
	}
}

// annotation strips the colon of a type annotation.
func annotation(t syntax.Node) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t.Text()), ":"))
}

// valueText is a variable's value as the resolver infers types from it: a
// name, a call or a member chain (what `await` waits for, marked by a
// leading "await "); "" for anything else.
func valueText(v syntax.Node) string {
	prefix := ""
	for v.Is("await_expression", "parenthesized_expression", "satisfies_expression", "non_null_expression") ||
		v.Type() == "as_expression" && len(v.NamedChildren()) == 2 && v.NamedChildren()[1].Text() == "const" {
		if v.Type() == "await_expression" {
			prefix = "await "
		}
		kids := v.NamedChildren()
		if len(kids) == 0 || len(kids) > 1 && !v.Is("satisfies_expression", "as_expression") {
			return ""
		}
		v = kids[0]
	}
	if v.Type() == "ternary_expression" {
		v = typedArm(v)
	}
	switch v.Type() {
	case "identifier", "member_expression", "call_expression":
		if q := extract.Qualifier(v); len(q) <= 200 {
			return prefix + q
		}
	}
	return ""
}

// constructedType infers Foo from `new Foo(...)`, and the type of a
// literal: RegExp for /x/, string, number, boolean.
func constructedType(v syntax.Node) string {
	switch v.Type() {
	case "as_expression", "type_assertion":
		// `x as T`, `<T>x`: T, and `x as const` is x's.
		kids := v.NamedChildren()
		if len(kids) != 2 {
			return ""
		}
		expr, t := kids[0], kids[1]
		if v.Type() == "type_assertion" {
			expr, t = t, expr
		}
		if t.Text() == "const" {
			return constructedType(expr)
		}
		return strings.TrimSuffix(strings.TrimPrefix(t.Text(), "<"), ">")
	case "satisfies_expression", "non_null_expression", "parenthesized_expression":
		if kids := v.NamedChildren(); len(kids) > 0 {
			return constructedType(kids[0])
		}
	case "ternary_expression":
		return constructedType(typedArm(v))
	case "new_expression":
		return v.Field("constructor").Text()
	case "regex":
		return "RegExp"
	case "string", "template_string":
		return "string"
	case "number":
		return "number"
	case "true", "false":
		return "boolean"
	}
	return ""
}

// typedArm is the arm of a conditional `c ? x as T : undefined` that gives
// its value a type when the other is undefined or null (the value is then
// that arm's where it is checked), or an invalid node.
func typedArm(v syntax.Node) syntax.Node {
	yes, no := v.Field("consequence"), v.Field("alternative")
	switch {
	case nothing(no):
		return yes
	case nothing(yes):
		return no
	}
	return syntax.Node{}
}

// nothing reports whether an expression is undefined or null.
func nothing(v syntax.Node) bool {
	return v.Type() == "undefined" || v.Type() == "null" || v.Type() == "identifier" && v.Text() == "undefined"
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// ObjectValue is the Value of a variable or property initialized with an
// object literal, whose properties are declared as its members: the
// resolver takes the variable as its own type (`codes.NOT_FOUND`).
const ObjectValue = "{}"

// objectLiteral is the object literal v is, under `as const`,
// `satisfies T` and parentheses, or an invalid node.
func objectLiteral(v syntax.Node) syntax.Node {
	for v.Is("as_expression", "satisfies_expression", "parenthesized_expression") {
		kids := v.NamedChildren()
		if len(kids) == 0 {
			return syntax.Node{}
		}
		v = kids[0]
	}
	if v.Type() != "object" {
		return syntax.Node{}
	}
	return v
}

// objectMembers declares the properties of the object literal obj that
// initializes definition d as d's members, in a scope of their own (they
// are no names of the enclosing one).
func (w *walker) objectMembers(d int32, obj syntax.Node) {
	w.b.D(d).Value = ObjectValue
	w.properties(d, obj)
}

// properties declares the properties of object literal obj as members of
// definition d.
func (w *walker) properties(d int32, obj syntax.Node) {
	w.b.Within(obj, d, func() {
		for _, c := range obj.NamedChildren() {
			switch c.Type() {
			case "pair":
				key, value := c.Field("key"), c.Field("value")
				if key.Type() != "property_identifier" {
					w.node(c)
					continue
				}
				f := w.b.Def(analysis.KindField, key, c)
				def := w.b.D(f)
				def.Visibility = "public"
				def.Signature = extract.Header(c, value.Field("body"))
				def.TypeName = constructedType(value)
				if inner := objectLiteral(value); inner.Valid() {
					w.objectMembers(f, inner)
					continue
				}
				if def.TypeName == "" && !value.Is("identifier") {
					def.Value = valueText(value) // a shorthand or same-named value would name itself
				}
				w.b.Owned(f, func() { w.node(value) })
			case "shorthand_property_identifier":
				w.b.D(w.b.Def(analysis.KindField, c, c)).Visibility = "public"
				w.b.Ref(c, analysis.RoleRead, "")
			default:
				w.node(c)
			}
		}
	})
}
