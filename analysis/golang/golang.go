// Package golang extracts facts from Go sources: one walker over Go's node
// types, whose cases share the walker's state (literals.go walks written
// types and composite literals, values.go writes down the values and types
// the resolver infers from).
package golang

import (
	"context"
	"path"
	"strings"

	"github.com/smacker/go-tree-sitter/golang"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the Go grammar.
var Syntax = syntax.NewLanguage("go", golang.GetLanguage())

// Extensions are the file extensions of Go sources.
var Extensions = []string{".go"}

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// Walk records the facts of a Go tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b, declared: map[scopedName]string{}}
	w.children(root)
}

type walker struct {
	b *extract.Builder
	// declared holds the names declared in each scope with their types as
	// written, for telling redeclarations in `a, err := ...` from new
	// variables and for typing range variables.
	declared map[scopedName]string
}

type scopedName struct {
	scope int32
	name  string
}

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

func (w *walker) node(n syntax.Node) {
	switch n.Type() {
	case "package_clause":
		w.b.Facts.Package = n.Child("package_identifier").Text()
	case "import_spec":
		w.importSpec(n)
	case "type_spec", "type_alias":
		w.typeSpec(n)
	case "function_declaration", "method_declaration":
		w.function(n)
	case "func_literal":
		w.b.Within(n, analysis.None, func() { w.signature(n) })
	case "const_spec", "var_spec":
		w.valueSpec(n)
	case "short_var_declaration":
		w.shortVar(n, n.Field("left"), n.Field("right"))
	case "range_clause":
		if n.Child(":=").Valid() {
			w.rangeVars(n)
		} else {
			w.assign(n.Field("left"), analysis.RoleWrite)
			w.node(n.Field("right"))
		}
	case "assignment_statement":
		role := analysis.RoleWrite
		if !n.Child("=").Valid() {
			role |= analysis.RoleRead
		}
		w.assign(n.Field("left"), role)
		w.node(n.Field("right"))
	case "inc_statement", "dec_statement":
		w.assign(n, analysis.RoleWrite|analysis.RoleRead)
	case "type_switch_statement":
		w.b.Within(n, analysis.None, func() { w.typeSwitch(n) })
	case "block", "if_statement", "for_statement", "expression_switch_statement",
		"select_statement", "expression_case", "type_case", "communication_case", "default_case":
		w.b.Within(n, analysis.None, func() { w.children(n) })
	case "call_expression":
		w.call(n)
	case "selector_expression":
		w.selector(n, analysis.RoleRead)
	case "composite_literal":
		w.literal(n, analysis.None)
	case "struct_type":
		w.structType(n, analysis.None)
	case "qualified_type":
		w.b.Ref(n.Field("name"), analysis.RoleType, n.Field("package").Text())
	case "type_identifier":
		w.b.Ref(n, analysis.RoleType, "")
	case "identifier":
		if n.Text() != "_" {
			w.b.Ref(n, analysis.RoleRead, "")
		}
	case "comment", "interpreted_string_literal", "raw_string_literal", "label_name", "package_identifier":
	default:
		w.children(n)
	}
}

func (w *walker) importSpec(n syntax.Node) {
	p := n.Field("path")
	importPath := strings.Trim(p.Text(), "\"`")
	imp := analysis.Import{Path: importPath, Name: path.Base(importPath), Span: n.Span()}
	switch name := n.Field("name"); name.Type() {
	case "dot":
		imp.Wildcard, imp.Name = true, ""
	case "package_identifier", "blank_identifier":
		imp.Alias = name.Text()
	}
	w.b.Import(imp, p)
}

func (w *walker) typeSpec(n syntax.Node) {
	name := n.Field("name")
	typ := n.Field("type")
	kind := analysis.KindTypeAlias
	switch typ.Type() {
	case "struct_type":
		kind = analysis.KindStruct
	case "interface_type":
		kind = analysis.KindInterface
	}
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, typ.Child("field_declaration_list"))
	if kind == analysis.KindTypeAlias {
		w.b.D(d).TypeName = typ.Text()
	}
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Type() == "struct_type":
				w.fields(d, c.Child("field_declaration_list"))
			case c.Type() == "interface_type":
				w.interfaceElems(d, c)
			default:
				w.node(c)
			}
		}
	})
}

func (w *walker) fields(owner int32, list syntax.Node) {
	for _, f := range list.ChildrenOf("field_declaration") {
		typ := f.Field("type")
		names := f.ChildrenOf("field_identifier")
		if len(names) == 0 {
			// An embedded field promotes the embedded type's members.
			t := typ
			if t.Type() == "pointer_type" || t.Type() == "generic_type" {
				t = t.NamedChildren()[0]
			}
			if t.Type() == "qualified_type" {
				w.b.Supertype(owner, t.Field("name"), t.Field("package").Text())
			} else {
				w.b.Supertype(owner, t, "")
			}
			// The field's name is its type's: leave the name span empty so
			// the type name there resolves to the type.
			at := t.Span()
			at.End, at.EndPoint = at.Start, at.StartPoint
			d := w.b.DefNamed(analysis.KindField, baseName(t.Text()), at, f.Span())
			w.b.D(d).TypeName = typ.Text()
			continue
		}
		first := analysis.None
		for _, name := range names {
			d := w.b.Def(analysis.KindField, name, f)
			w.decorate(d, f, syntax.Node{})
			w.b.D(d).TypeName = typ.Text()
			if first == analysis.None {
				first = d
			}
		}
		// `inner struct{ x int }`: x is a field of the field inner.
		w.typeExpr(typ, first)
	}
}

func baseName(t string) string {
	t = strings.TrimLeft(t, "*")
	if i := strings.LastIndex(t, "."); i >= 0 {
		t = t[i+1:]
	}
	if i := strings.Index(t, "["); i >= 0 {
		t = t[:i]
	}
	return t
}

func (w *walker) interfaceElems(owner int32, n syntax.Node) {
	for _, e := range n.NamedChildren() {
		switch e.Type() {
		case "method_elem":
			name := e.Field("name")
			d := w.b.Def(analysis.KindMethod, name, e)
			w.decorate(d, e, syntax.Node{})
			w.b.D(d).TypeName = e.Field("result").Text()
			w.b.Within(e, d, func() {
				w.parameters(e.Field("parameters"))
				w.node(e.Field("result"))
			})
		case "type_elem":
			for _, t := range e.NamedChildren() {
				switch t.Type() {
				case "qualified_type":
					w.b.Supertype(owner, t.Field("name"), t.Field("package").Text())
				case "type_identifier":
					w.b.Supertype(owner, t, "")
				default:
					w.node(t)
				}
			}
		default:
			w.node(e)
		}
	}
}

func (w *walker) function(n syntax.Node) {
	name := n.Field("name")
	kind := analysis.KindFunction
	receiver := n.Field("receiver")
	if receiver.Valid() {
		kind = analysis.KindMethod
	}
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, n.Field("body"))
	def := w.b.D(d)
	def.TypeName = n.Field("result").Text()
	if p := receiver.Child("parameter_declaration"); p.Valid() {
		def.Receiver = p.Field("type").Text()
	}
	w.b.Within(n, d, func() {
		w.parameters(receiver)
		w.signature(n)
	})
}

// signature records type parameters and parameters, then visits the result
// and body, of a function, method or function literal.
func (w *walker) signature(n syntax.Node) {
	for _, tp := range n.Field("type_parameters").ChildrenOf("type_parameter_declaration") {
		for _, name := range tp.ChildrenOf("identifier") {
			w.b.Def(analysis.KindTypeParameter, name, tp)
		}
		w.node(tp.Field("type"))
	}
	w.parameters(n.Field("parameters"))
	// Named results are variables of the body.
	if result := n.Field("result"); result.Type() == "parameter_list" {
		w.parameters(result)
	} else {
		w.node(result)
	}
	// The body's outermost block is the parameters' scope: `err :=` there
	// assigns a named result rather than declaring a new variable.
	w.children(n.Field("body"))
}

func (w *walker) parameters(list syntax.Node) {
	for _, p := range list.NamedChildren() {
		if !p.Is("parameter_declaration", "variadic_parameter_declaration") {
			continue
		}
		typ := p.Field("type")
		typeName := typ.Text()
		if p.Type() == "variadic_parameter_declaration" {
			typeName = "[]" + typeName
		}
		for _, name := range p.ChildrenOf("identifier") {
			if name.Text() == "_" {
				continue
			}
			d := w.b.Def(analysis.KindParameter, name, p)
			w.declared[scopedName{w.b.Scope(), name.Text()}] = typeName
			w.b.D(d).TypeName = typeName
		}
		w.node(typ)
	}
}

func (w *walker) valueSpec(n syntax.Node) {
	kind := analysis.KindVariable
	if n.Type() == "const_spec" {
		kind = analysis.KindConstant
	}
	typ := n.Field("type")
	value := n.Field("value")
	values := expressions(value)
	names := n.ChildrenOf("identifier")
	defs := make([]int32, len(names))
	for i, name := range names {
		defs[i] = analysis.None
		if name.Text() == "_" {
			continue
		}
		d := w.b.Def(kind, name, n)
		defs[i] = d
		w.decorate(d, n, syntax.Node{})
		def := w.b.D(d)
		def.TypeName = typ.Text()
		if def.TypeName == "" {
			def.TypeName = literalType(value, i, len(names))
			if kind == analysis.KindVariable && def.TypeName == "" {
				def.Value = valueOf(values, i, len(names))
			}
		}
		w.declared[scopedName{w.b.Scope(), name.Text()}] = def.TypeName
	}
	// `var X86 struct{ HasAVX bool }`: X86.HasAVX names a field of it.
	owner := analysis.None
	if len(defs) == 1 {
		owner = defs[0]
	}
	w.typeExpr(typ, owner)
	w.values(values, defs)
}

// expressions lists the expressions of an expression list, or the single
// expression n.
func expressions(n syntax.Node) []syntax.Node {
	if n.Type() == "expression_list" {
		return n.NamedChildren()
	}
	if n.Valid() {
		return []syntax.Node{n}
	}
	return nil
}

// values walks the values the names defined as defs are set from: the
// anonymous struct type of a composite literal among them declares fields
// owned by its name's definition.
func (w *walker) values(values []syntax.Node, defs []int32) {
	for i, v := range values {
		owner := analysis.None
		if len(values) == len(defs) {
			owner = defs[i]
		}
		if v.Type() == "unary_expression" && v.Child("&").Valid() && v.Field("operand").Type() == "composite_literal" {
			w.literal(v.Field("operand"), owner)
		} else if v.Type() == "composite_literal" {
			w.literal(v, owner)
		} else {
			w.node(v)
		}
	}
}

// shortVar declares the new names of `a, b := ...`; names already declared
// in the same scope are assigned, not redeclared.
func (w *walker) shortVar(n, left, right syntax.Node) {
	names := left.NamedChildren()
	values := expressions(right)
	defs := w.declare(n, names, func(i int) string { return literalType(right, i, len(names)) })
	for i, d := range defs {
		if d != analysis.None && w.b.D(d).TypeName == "" {
			w.b.D(d).Value = valueOf(values, i, len(names))
		}
	}
	w.values(values, defs)
}

// rangeVars declares `k, v := range x`, typed from x's declared type when x
// is a slice, array or map variable of an enclosing scope, else valued as
// an element of x (`x[]`) for the resolver to type.
func (w *walker) rangeVars(n syntax.Node) {
	right := n.Field("right")
	key, elem, elemValue := "", "", ""
	literal := right.Type() == "composite_literal"
	switch {
	case right.Type() == "identifier":
		key, elem = rangeTypes(w.typeOf(right.Text()))
	case literal:
		key, elem = rangeTypes(right.Field("type").Text())
	}
	if elem == "" || !literal && analysis.GoStructLiteral(elem) {
		// An anonymous struct's fields are found through the variable
		// that declares them, not through its written type.
		elem = ""
		if v := valueExpr(right); v != "" {
			elemValue = v + "[]"
		}
	}
	names := n.Field("left").NamedChildren()
	defs := w.declare(n, names, func(i int) string {
		if i == 0 {
			return key
		}
		return elem
	})
	if len(defs) == 2 && defs[1] != analysis.None && elemValue != "" {
		w.b.D(defs[1]).Value = elemValue
	}
	if literal && len(defs) > 0 {
		// `for _, tt := range []struct{ in string }{...}`: tt owns the fields.
		w.literal(right, defs[len(defs)-1])
		return
	}
	w.node(right)
}

// typeSwitch declares `x := v.(type)` once per clause, typed by the clause's
// type when it names one; elsewhere x has v's type, so it is valued as v.
func (w *walker) typeSwitch(n syntax.Node) {
	alias, value := n.Field("alias"), n.Field("value")
	var name syntax.Node
	for _, c := range n.NamedChildren() {
		switch {
		case c.Same(alias):
			if list := alias.NamedChildren(); len(list) == 1 && list[0].Type() == "identifier" && list[0].Text() != "_" {
				name = list[0]
			}
		case c.Type() == "type_case" || c.Type() == "default_case":
			w.b.Within(c, analysis.None, func() {
				if name.Valid() {
					w.caseVar(c, name, value)
				}
				w.children(c)
			})
		default:
			w.node(c)
		}
	}
}

// caseVar declares the type switch variable name in the clause c.
func (w *walker) caseVar(c, name, value syntax.Node) {
	// The declaration is the switch's header: a use in the clause is not
	// in the variable's own initializer.
	header := name.Span()
	if value.Valid() {
		end := value.Span()
		header.End, header.EndPoint = end.End, end.EndPoint
	}
	d := w.b.DefNamed(analysis.KindVariable, name.Text(), name.Span(), header)
	def := w.b.D(d)
	// The clause's types are its named children before the colon.
	var types []syntax.Node
	if colon := c.Child(":"); c.Type() == "type_case" && colon.Valid() {
		for _, t := range c.NamedChildren() {
			if t.End() <= colon.Start() && t.Type() != "comment" {
				types = append(types, t)
			}
		}
	}
	if len(types) == 1 && types[0].Text() != "nil" {
		def.TypeName = types[0].Text()
	} else {
		def.Value = valueExpr(value)
	}
	w.declared[scopedName{w.b.Scope(), name.Text()}] = def.TypeName
}

// declare records the new names among names, typed by typeOf(i), and
// returns their definitions (None for a name assigned, not declared).
func (w *walker) declare(n syntax.Node, names []syntax.Node, typeOf func(i int) string) []int32 {
	defs := make([]int32, len(names))
	for i, name := range names {
		defs[i] = analysis.None
		if name.Type() != "identifier" || name.Text() == "_" {
			continue
		}
		if _, ok := w.declared[scopedName{w.b.Scope(), name.Text()}]; ok {
			w.b.Ref(name, analysis.RoleWrite, "")
			continue
		}
		d := w.b.Def(analysis.KindVariable, name, n)
		w.b.D(d).TypeName = typeOf(i)
		w.declared[scopedName{w.b.Scope(), name.Text()}] = w.b.D(d).TypeName
		defs[i] = d
	}
	return defs
}

// typeOf is the declared type of name in the innermost open scope that
// declares it.
func (w *walker) typeOf(name string) string {
	for s := w.b.Scope(); s != analysis.None; s = w.b.Facts.Scopes[s].Parent {
		if t, ok := w.declared[scopedName{s, name}]; ok {
			return t
		}
	}
	return ""
}

// assign records writes to the identifiers and fields of an assignment's
// left side.
func (w *walker) assign(left syntax.Node, role analysis.Role) {
	for _, t := range left.NamedChildren() {
		switch t.Type() {
		case "identifier":
			if t.Text() != "_" {
				w.b.Ref(t, role, "")
			}
		case "selector_expression":
			w.selector(t, role)
		default:
			w.node(t)
		}
	}
}

func (w *walker) call(n syntax.Node) {
	switch f := n.Field("function"); f.Type() {
	case "identifier":
		w.b.Call(f, "")
	case "selector_expression":
		w.selector(f, analysis.RoleCall)
	default:
		w.node(f)
	}
	w.node(n.Field("type_arguments"))
	w.node(n.Field("arguments"))
}

func (w *walker) selector(n syntax.Node, role analysis.Role) {
	operand := n.Field("operand")
	field := n.Field("field")
	w.node(operand)
	qualifier := extract.Qualifier(operand)
	if role == analysis.RoleCall {
		w.b.Call(field, qualifier)
	} else {
		w.b.Ref(field, role, qualifier)
	}
}

func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	doc := decl
	// Doc comments of single-spec declarations sit above `type`/`var`/`func`.
	// (Checked without listing the children: a var block of thousands of
	// specs made that quadratic.)
	if p := decl.Parent(); p.Is("type_declaration", "var_declaration", "const_declaration") && !p.FirstNamedChild().NextNamedSibling().Valid() {
		doc = p
	}
	def.Doc = w.b.Doc(doc, extract.GoStyle)
	if def.Kind != analysis.KindParameter && (def.Container == analysis.None || w.b.D(def.Container).Kind.IsType()) {
		def.Visibility = "private"
		if def.Name != "" && def.Name[0] >= 'A' && def.Name[0] <= 'Z' {
			def.Visibility = "public"
		}
	}
}
