// Package kotlin extracts facts from Kotlin sources (fwcd grammar 0.3.8).
package kotlin

import (
	"context"
	"strings"

	"github.com/smacker/go-tree-sitter/kotlin"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the Kotlin grammar. Its automatic semicolons show up as MISSING
// nodes in valid one-line bodies, so they are not errors.
var Syntax = syntax.NewLanguage("kotlin", kotlin.GetLanguage(), "_automatic_semicolon")

// Extensions are the file extensions of Kotlin sources.
var Extensions = []string{".kt", ".kts"}

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// Walk records the facts of a Kotlin tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b}
	w.children(root)
}

type walker struct {
	b *extract.Builder
	// lambdas are the enclosing lambda literals, innermost last, so an `it`
	// can be bound to the implicit parameter of the right one.
	lambdas []lambda
}

type lambda struct {
	node     syntax.Node
	implicit bool // no declared parameters: `it` is the parameter
	scope    int32
	owner    int32
	it       int32  // the implicit parameter's def once seen, or None
	value    string // what the first parameter is, as a Def.Value, or ""
}

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

func (w *walker) node(n syntax.Node) {
	switch n.Type() {
	case "package_header":
		w.b.Facts.Package = n.Child("identifier").Text()
	case "import_header":
		w.importHeader(n)
	case "class_declaration":
		w.class(n, classKind(n), n.Child("type_identifier"))
	case "object_declaration":
		w.class(n, analysis.KindObject, n.Child("type_identifier"))
	case "companion_object":
		w.class(n, analysis.KindObject, n.Child("type_identifier"))
	case "function_declaration":
		w.function(n)
	case "property_declaration":
		w.property(n)
	case "secondary_constructor":
		w.secondaryConstructor(n)
	case "for_statement":
		w.forStatement(n)
	case "anonymous_initializer", "control_structure_body", "catch_block", "when_expression":
		if n.Type() == "when_expression" {
			w.whenCasts(n)
		}
		w.b.Within(n, analysis.None, func() { w.children(n) })
	case "if_expression":
		w.ifCasts(n)
		w.children(n)
	case "type_alias":
		name := n.Child("type_identifier")
		d := w.b.Def(analysis.KindTypeAlias, name, n)
		w.decorate(d, n, syntax.Node{})
		for _, c := range n.NamedChildren() {
			if isType(c) {
				w.b.D(d).TypeName = typeText(c) // what the alias stands for
			}
		}
		for _, c := range n.NamedChildren() {
			if !c.Same(name) {
				w.node(c)
			}
		}
	case "enum_entry":
		d := w.b.Def(analysis.KindEnumEntry, n.Child("simple_identifier"), n)
		w.b.D(d).Doc = w.b.Doc(n, extract.CStyle)
		w.b.Owned(d, func() {
			for _, c := range n.NamedChildren() {
				if c.Type() != "simple_identifier" {
					w.node(c)
				}
			}
		})
	case "type_parameter":
		d := w.b.Def(analysis.KindTypeParameter, n.Child("type_identifier"), n)
		// Its upper bound (`T : Base<T>`): what a value of type T has.
		w.b.D(d).TypeName = typeText(n.Child("user_type", "nullable_type"))
		w.children(n, n.Child("type_identifier"))
	case "variable_declaration":
		// for-loop variables, lambda parameters and when subjects.
		w.variable(n, analysis.KindVariable, n)
	case "lambda_literal":
		w.lambda(n)
	case "call_expression":
		w.call(n)
	case "navigation_expression":
		w.navigation(n, analysis.RoleRead)
	case "assignment":
		w.assignment(n)
	case "value_argument":
		w.valueArgument(n)
	case "check_expression":
		if !w.containsCall(n) {
			w.children(n)
		}
	case "range_test":
		w.rangeTest(n)
	case "infix_expression":
		// `a to b`: the middle identifier is a function call.
		parts := n.NamedChildren()
		for i, c := range parts {
			if i == 1 && len(parts) == 3 && c.Type() == "simple_identifier" {
				w.b.Call(c, "")
			} else {
				w.node(c)
			}
		}
	case "callable_reference":
		qualifier := ""
		for _, c := range n.NamedChildren() {
			if c.Type() == "simple_identifier" {
				w.b.Ref(c, analysis.RoleRead, qualifier)
			} else {
				w.node(c)
				qualifier = c.Text()
			}
		}
	case "user_type":
		w.userType(n, analysis.RoleType)
	case "type_identifier":
		w.b.Ref(n, analysis.RoleType, "")
	case "simple_identifier", "interpolated_identifier":
		w.read(n, "")
	case "this_expression", "super_expression", "line_comment", "multiline_comment", "string_content":
	default:
		w.children(n)
	}
}

// read records a read of n, binding `it` to the innermost implicit lambda parameter.
func (w *walker) read(n syntax.Node, qualifier string) {
	if qualifier == "" && n.Text() == "it" {
		w.bindIt()
	}
	w.b.Ref(n, analysis.RoleRead, qualifier)
}

func (w *walker) bindIt() {
	if len(w.lambdas) == 0 {
		return
	}
	l := &w.lambdas[len(w.lambdas)-1]
	if !l.implicit || l.it != analysis.None {
		return
	}
	open := l.node.Span()
	open.End, open.EndPoint = open.Start, open.StartPoint
	l.it = w.b.DefNamed(analysis.KindParameter, "it", open, l.node.Span())
	d := w.b.D(l.it)
	d.Scope, d.Container, d.Value = l.scope, l.owner, l.value
}

func (w *walker) function(n syntax.Node) {
	name := n.Child("simple_identifier")
	kind := analysis.KindFunction
	if owner := w.b.OwnerDef(); owner != nil && owner.Kind.IsType() {
		kind = analysis.KindMethod
	}
	d := w.b.Def(kind, name, n)
	body := n.Child("function_body")
	w.decorate(d, n, body)
	def := w.b.D(d)
	// The receiver type comes before the name, the return type after the parameters.
	for _, c := range n.NamedChildren() {
		if c.Start() < name.Start() && isType(c) {
			def.Receiver = typeText(c)
		}
		if c.Start() > name.Start() && isType(c) {
			def.TypeName = typeText(c)
		}
	}
	if def.TypeName == "" && body.Valid() {
		def.TypeName = constructedType(body.NamedChildren())
	}
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Type() == "function_value_parameters":
				w.parameters(c)
			default:
				w.node(c)
			}
		}
	})
}

func isType(n syntax.Node) bool {
	return n.Is("user_type", "nullable_type", "function_type", "parenthesized_type")
}

func (w *walker) parameters(n syntax.Node) {
	vararg := false // the parameter_modifiers before a parameter are its sibling
	for _, p := range n.NamedChildren() {
		if p.Type() == "parameter_modifiers" {
			vararg = hasVararg(p)
		}
		if p.Type() != "parameter" {
			w.node(p)
			continue
		}
		name := p.Child("simple_identifier")
		d := w.b.Def(analysis.KindParameter, name, p)
		w.b.D(d).TypeName = typeText(p.Child("user_type", "nullable_type", "function_type"))
		if vararg {
			w.b.D(d).TypeName = varargType(w.b.D(d).TypeName)
		}
		vararg = false
		w.children(p, name)
	}
}

func (w *walker) secondaryConstructor(n syntax.Node) {
	className := ""
	if owner := w.b.OwnerDef(); owner != nil {
		className = owner.Name
	}
	kw := n.Child("constructor")
	d := w.b.DefNamed(analysis.KindConstructor, className, kw.Span(), n.Span())
	w.decorate(d, n, n.Child("statements", "block"))
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "function_value_parameters":
				w.parameters(c)
			case "constructor_delegation_call":
				w.node(c.Child("value_arguments"))
			default:
				w.node(c)
			}
		}
	})
}

func (w *walker) property(n syntax.Node) {
	// Declarations directly in a file or class body are properties; those in
	// function bodies, lambdas and init blocks are local variables.
	kind := analysis.KindVariable
	if scope := w.b.Scope(); scope == 0 || w.b.Facts.Scopes[scope].Def != analysis.None && w.b.D(w.b.Facts.Scopes[scope].Def).Kind.IsType() {
		kind = analysis.KindProperty
	}
	if mods := n.Child("modifiers"); strings.Contains(mods.Text(), "const") {
		kind = analysis.KindConstant
	}
	eq := n.Child("=")
	var receiver string
	var defs []int32
	var names []syntax.Node
	for _, c := range n.NamedChildren() {
		switch {
		case isType(c) && len(names) == 0:
			receiver = typeText(c)
		case c.Type() == "variable_declaration":
			defs = append(defs, w.declare(c, kind, n))
			names = append(names, c)
		case c.Type() == "multi_variable_declaration":
			for _, v := range c.ChildrenOf("variable_declaration") {
				defs = append(defs, w.declare(v, kind, v))
				names = append(names, v)
			}
		}
	}
	for _, d := range defs {
		w.decorate(d, n, eq)
		def := w.b.D(d)
		def.Receiver = receiver
		if def.TypeName == "" && eq.Valid() {
			init := nextNamed(n, eq)
			def.TypeName = constructedType(init)
			if def.TypeName == "" && len(defs) == 1 {
				def.Value = valueChain(init)
			}
		}
	}
	visit := func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Type() == "variable_declaration":
				w.typeOf(c)
			case c.Type() == "multi_variable_declaration":
				for _, v := range c.ChildrenOf("variable_declaration") {
					w.typeOf(v)
				}
			default:
				w.node(c)
			}
		}
	}
	// Locals are not owners: calls in their initializers belong to the function.
	if kind == analysis.KindVariable || len(defs) != 1 {
		visit()
	} else {
		w.b.Owned(defs[0], visit)
	}
}

// nextNamed returns the named children of n after the token at.
func nextNamed(n, at syntax.Node) []syntax.Node {
	var out []syntax.Node
	for _, c := range n.NamedChildren() {
		if c.Start() >= at.End() {
			out = append(out, c)
		}
	}
	return out
}

// declare records the name of a variable_declaration with its declared type.
func (w *walker) declare(v syntax.Node, kind analysis.Kind, full syntax.Node) int32 {
	d := w.b.Def(kind, v.Child("simple_identifier"), full)
	w.b.D(d).TypeName = typeText(v.Child("user_type", "nullable_type", "function_type"))
	return d
}

// typeOf visits the type annotation of a variable_declaration.
func (w *walker) typeOf(v syntax.Node) {
	w.children(v, v.Child("simple_identifier"))
}

func (w *walker) variable(v syntax.Node, kind analysis.Kind, full syntax.Node) {
	w.declare(v, kind, full)
	w.typeOf(v)
}

func (w *walker) lambda(n syntax.Node) {
	w.b.Within(n, analysis.None, func() {
		if recv := lambdaReceiverValue(n); recv != "" {
			// The implicit `this` of a lambda with a receiver: a lambda
			// definition owning its scope, whose Value says what `this` is.
			start := analysis.Span{Start: n.Start(), End: n.Start(), StartPoint: n.Span().StartPoint, EndPoint: n.Span().StartPoint}
			d := w.b.DefNamed(analysis.KindLambda, "this", start, n.Span())
			w.b.D(d).Value = recv
			w.b.Facts.Scopes[w.b.Scope()].Def = d
		}
		params := n.Child("lambda_parameters")
		value := lambdaArgValue(n)
		w.lambdas = append(w.lambdas, lambda{node: n, implicit: !params.Valid(), scope: w.b.Scope(), owner: w.b.Owner(), it: analysis.None, value: value})
		for i, p := range params.NamedChildren() {
			if p.Type() == "variable_declaration" {
				d := w.declare(p, analysis.KindParameter, p)
				if i == 0 && w.b.D(d).TypeName == "" {
					w.b.D(d).Value = value
				}
				w.typeOf(p)
			} else {
				w.node(p)
			}
		}
		w.children(n, params)
		w.lambdas = w.lambdas[:len(w.lambdas)-1]
	})
}

// navigation handles `a.b`: a is visited as an expression and b becomes a
// reference qualified by a's text.
func (w *walker) navigation(n syntax.Node, role analysis.Role) {
	parts := withoutComments(n.NamedChildren())
	if len(parts) != 2 {
		w.children(n)
		return
	}
	receiver, suffix := parts[0], parts[1]
	w.node(receiver)
	member := suffix.Child("simple_identifier")
	if !member.Valid() {
		w.node(suffix)
		return
	}
	qualifier := qualifierText(receiver)
	if role == analysis.RoleCall {
		w.b.Call(member, qualifier)
	} else {
		w.b.Ref(member, role, qualifier)
	}
}

// qualifierText is the receiver's text, with `this@Label` reduced to `this`.
func qualifierText(receiver syntax.Node) string {
	switch receiver.Type() {
	case "this_expression":
		// `this@Outer` keeps its label: it names a class or a lambda.
		if t := receiver.Text(); strings.HasPrefix(t, "this@") && len(t) <= maxValue {
			return t
		}
		return "this"
	case "super_expression":
		return "super"
	}
	return extract.Qualifier(receiver)
}

func (w *walker) assignment(n syntax.Node) {
	role := analysis.RoleWrite
	if op := n.Child("+=", "-=", "*=", "/=", "%="); op.Valid() {
		role |= analysis.RoleRead
	}
	for _, c := range n.NamedChildren() {
		if c.Type() != "directly_assignable_expression" {
			w.node(c)
			continue
		}
		parts := c.NamedChildren()
		switch {
		case len(parts) == 1 && parts[0].Type() == "simple_identifier":
			w.b.Ref(parts[0], role, "")
		case len(parts) == 2 && parts[1].Type() == "navigation_suffix":
			w.node(parts[0])
			w.b.Ref(parts[1].Child("simple_identifier"), role, qualifierText(parts[0]))
		default:
			w.children(c)
		}
	}
}

func (w *walker) importHeader(n syntax.Node) {
	id := n.Child("identifier")
	segments := id.ChildrenOf("simple_identifier")
	var last syntax.Node
	if len(segments) > 0 {
		last = segments[len(segments)-1]
	}
	// `import a.Outer.Inner.member`: the type segments are references too.
	for i, seg := range segments[:max(len(segments)-1, 0)] {
		if isUpper(seg.Text()) {
			w.b.Ref(seg, analysis.RoleType, qualifierOf(segments[:i]))
		}
	}
	imp := analysis.Import{
		Path:     id.Text(),
		Alias:    n.Child("import_alias").Child("type_identifier").Text(),
		Wildcard: n.Child("wildcard_import").Valid(),
		Span:     n.Span(),
	}
	if !imp.Wildcard {
		imp.Name = last.Text()
	}
	w.b.Import(imp, last)
}

// decorate fills signature, doc comment and visibility of a declaration.
func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	def.Doc = w.b.Doc(decl, extract.CStyle)
	if def.Kind != analysis.KindVariable {
		def.Visibility = visibility(decl)
	}
}

func visibility(decl syntax.Node) string {
	if v := decl.Child("modifiers").Child("visibility_modifier"); v.Valid() {
		return v.Text()
	}
	return "public"
}

func typeText(n syntax.Node) string {
	return strings.Join(strings.Fields(n.Text()), " ")
}

// constructedType infers `Foo` from an initializer `Foo(...)`: by Kotlin
// convention only types start with an upper-case letter.
func constructedType(init []syntax.Node) string {
	if len(init) != 1 || init[0].Type() != "call_expression" {
		return ""
	}
	callee := init[0].NamedChildren()[0]
	if callee.Type() == "simple_identifier" && isUpper(callee.Text()) {
		return callee.Text()
	}
	return ""
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// maxValue bounds the initializer text kept to infer a local's type from.
const maxValue = 200

// valueChain is an initializer the resolver can follow to a type (a name,
// a property chain, a call chain, a literal), or "".
func valueChain(init []syntax.Node) string {
	if len(init) != 1 {
		return ""
	}
	switch v := init[0]; v.Type() {
	case "call_expression", "navigation_expression", "simple_identifier", "string_literal", "integer_literal",
		"long_literal", "real_literal", "boolean_literal", "character_literal", "postfix_expression":
		text := extract.Qualifier(v)
		if len(text) > maxValue && v.Type() == "call_expression" {
			// `buildList { …many lines… }`: the type is the call's,
			// whatever its lambdas do.
			text = extract.QualifierText(withoutLambdas(v))
		}
		if len(text) <= maxValue {
			return text
		}
	}
	return ""
}

// withoutLambdas is the text of n with the body of each lambda literal
// left out, `{ }`.
func withoutLambdas(n syntax.Node) string {
	var b strings.Builder
	src, at := n.Text(), n.Start()
	var walk func(c syntax.Node)
	walk = func(c syntax.Node) {
		if c.Type() == "lambda_literal" {
			b.WriteString(src[at-n.Start() : c.Start()-n.Start()])
			b.WriteString("{ }")
			at = c.End()
			return
		}
		for _, k := range c.NamedChildren() {
			walk(k)
		}
	}
	walk(n)
	b.WriteString(src[at-n.Start():])
	return b.String()
}
