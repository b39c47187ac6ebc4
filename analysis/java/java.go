// Package java extracts facts from Java sources.
package java

import (
	"context"
	"strings"

	"github.com/smacker/go-tree-sitter/java"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the Java grammar.
var Syntax = syntax.NewLanguage("java", java.GetLanguage())

// Extensions are the file extensions of Java sources.
var Extensions = []string{".java"}

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// Walk records the facts of a Java tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b}
	w.children(root)
}

type walker struct{ b *extract.Builder }

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

var typeKinds = map[string]analysis.Kind{
	"class_declaration":           analysis.KindClass,
	"record_declaration":          analysis.KindClass,
	"interface_declaration":       analysis.KindInterface,
	"annotation_type_declaration": analysis.KindInterface,
	"enum_declaration":            analysis.KindEnum,
}

func (w *walker) node(n syntax.Node) {
	if kind, ok := typeKinds[n.Type()]; ok {
		w.typeDecl(n, kind)
		return
	}
	switch n.Type() {
	case "package_declaration":
		w.b.Facts.Package = n.NamedChildren()[0].Text()
	case "import_declaration":
		w.importDecl(n)
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration", "annotation_type_element_declaration":
		w.method(n)
	case "field_declaration", "constant_declaration":
		w.variables(n, analysis.KindField)
	case "local_variable_declaration":
		w.variables(n, analysis.KindVariable)
	case "enum_constant":
		name := n.Field("name")
		d := w.b.Def(analysis.KindEnumEntry, name, n)
		w.decorate(d, n, n.Field("body"))
		w.b.Owned(d, func() { w.children(n, name) })
	case "type_parameter":
		name := n.Child("type_identifier")
		w.b.Def(analysis.KindTypeParameter, name, n)
		w.children(n, name)
	case "block", "for_statement", "enhanced_for_statement", "catch_clause", "try_with_resources_statement", "switch_block_statement_group", "lambda_expression":
		w.b.Within(n, analysis.None, func() { w.scoped(n) })
	case "formal_parameter", "spread_parameter", "catch_formal_parameter":
		w.parameter(n)
	case "method_invocation":
		w.invocation(n)
	case "object_creation_expression":
		w.creation(n)
	case "field_access":
		w.fieldAccess(n, analysis.RoleRead)
	case "assignment_expression":
		role := analysis.RoleWrite
		if !n.Child("=").Valid() {
			role |= analysis.RoleRead
		}
		w.target(n.Field("left"), role)
		w.node(n.Field("right"))
	case "update_expression":
		for _, c := range n.NamedChildren() {
			w.target(c, analysis.RoleRead|analysis.RoleWrite)
		}
	case "scoped_type_identifier":
		ids := n.NamedChildren()
		last := ids[len(ids)-1]
		w.b.Ref(last, analysis.RoleType, scopeOf(n, last))
	case "type_identifier":
		w.b.Ref(n, analysis.RoleType, "")
	case "identifier":
		w.b.Ref(n, analysis.RoleRead, "")
	case "line_comment", "block_comment", "string_literal":
	default:
		w.children(n)
	}
}

// scoped declares what a block-like construct binds before visiting it.
func (w *walker) scoped(n syntax.Node) {
	switch n.Type() {
	case "enhanced_for_statement":
		name := n.Field("name")
		d := w.b.Def(analysis.KindVariable, name, n)
		w.b.D(d).TypeName = n.Field("type").Text()
		w.children(n, name)
	case "lambda_expression":
		params := n.Field("parameters")
		if params.Type() == "identifier" {
			w.b.Def(analysis.KindParameter, params, params)
		} else {
			for _, p := range params.NamedChildren() {
				if p.Type() == "identifier" {
					w.b.Def(analysis.KindParameter, p, p)
				} else {
					w.node(p)
				}
			}
		}
		w.node(n.Field("body"))
	default:
		w.children(n)
	}
}

func (w *walker) importDecl(n syntax.Node) {
	path := n.Child("scoped_identifier", "identifier")
	imp := analysis.Import{Path: path.Text(), Wildcard: n.Child("asterisk").Valid(), Span: n.Span()}
	name := path.Field("name")
	if !name.Valid() {
		name = path
	}
	if !imp.Wildcard {
		imp.Name = name.Text()
	}
	w.b.Import(imp, name)
}

func (w *walker) typeDecl(n syntax.Node, kind analysis.Kind) {
	name := n.Field("name")
	d := w.b.Def(kind, name, n)
	body := n.Field("body")
	w.decorate(d, n, body)
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Is("superclass", "super_interfaces", "extends_interfaces"):
				w.supertypes(d, c)
			case c.Type() == "formal_parameters" && n.Type() == "record_declaration":
				// Record components are fields.
				for _, p := range c.NamedChildren() {
					pd := w.b.Def(analysis.KindField, p.Field("name"), p)
					w.b.D(pd).TypeName = p.Field("type").Text()
					w.node(p.Field("type"))
				}
			default:
				w.node(c)
			}
		}
	})
}

func (w *walker) supertypes(class int32, n syntax.Node) {
	for _, c := range n.NamedChildren() {
		switch c.Type() {
		case "type_list":
			w.supertypes(class, c)
		case "type_identifier":
			w.b.Supertype(class, c, "")
		case "generic_type":
			w.supertypes(class, c)
		case "scoped_type_identifier":
			ids := c.NamedChildren()
			last := ids[len(ids)-1]
			w.b.Supertype(class, last, scopeOf(c, last))
		default:
			w.node(c)
		}
	}
}

func (w *walker) method(n syntax.Node) {
	name := n.Field("name")
	kind := analysis.KindMethod
	if n.Type() != "method_declaration" && n.Type() != "annotation_type_element_declaration" {
		kind = analysis.KindConstructor
	}
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, n.Field("body"))
	w.b.D(d).TypeName = n.Field("type").Text()
	w.b.Within(n, d, func() { w.children(n, name) })
}

func (w *walker) parameter(p syntax.Node) {
	name := p.Field("name")
	if !name.Valid() {
		// A spread parameter keeps its name in a variable_declarator.
		name = p.Child("variable_declarator").Field("name")
	}
	typ := p.Field("type")
	if !typ.Valid() {
		typ = p.Child("catch_type", "type_identifier", "generic_type")
	}
	d := w.b.Def(analysis.KindParameter, name, p)
	w.b.D(d).TypeName = typ.Text()
	w.node(typ)
}

func (w *walker) variables(n syntax.Node, kind analysis.Kind) {
	typ := n.Field("type")
	w.node(n.Child("modifiers"))
	w.node(typ)
	static := strings.Contains(n.Child("modifiers").Text(), "static") && strings.Contains(n.Child("modifiers").Text(), "final")
	if kind == analysis.KindField && (static || n.Type() == "constant_declaration") {
		kind = analysis.KindConstant
	}
	for _, v := range n.ChildrenOf("variable_declarator") {
		name := v.Field("name")
		value := v.Field("value")
		d := w.b.Def(kind, name, v)
		if kind != analysis.KindVariable {
			w.decorate(d, n, syntax.Node{})
		}
		def := w.b.D(d)
		def.TypeName = typ.Text()
		if def.TypeName == "var" && value.Type() == "object_creation_expression" {
			def.TypeName = value.Field("type").Text()
		}
		if kind == analysis.KindVariable {
			w.node(value)
		} else {
			w.b.Owned(d, func() { w.node(value) })
		}
	}
}

func (w *walker) invocation(n syntax.Node) {
	name := n.Field("name")
	obj := n.Field("object")
	w.node(obj)
	qualifier := ""
	if obj.Valid() {
		qualifier = extract.Qualifier(obj)
	}
	w.b.Call(name, qualifier)
	w.setArgs(name, n.Field("arguments"))
	w.node(n.Field("type_arguments"))
	w.node(n.Field("arguments"))
}

// creation records `new Foo(...)` as a call of Foo.
func (w *walker) creation(n syntax.Node) {
	typ := n.Field("type")
	if typ.Type() == "generic_type" {
		w.node(typ.Child("type_arguments"))
		typ = typ.NamedChildren()[0]
	}
	if typ.Type() == "type_identifier" {
		w.b.Call(typ, "")
		w.setArgs(typ, n.Field("arguments"))
	} else {
		w.node(typ)
	}
	for _, c := range n.NamedChildren() {
		if c.Start() > n.Field("type").Start() {
			w.node(c)
		}
	}
}

func (w *walker) fieldAccess(n syntax.Node, role analysis.Role) {
	obj := n.Field("object")
	w.node(obj)
	w.b.Ref(n.Field("field"), role, extract.Qualifier(obj))
}

func (w *walker) target(t syntax.Node, role analysis.Role) {
	switch t.Type() {
	case "identifier":
		w.b.Ref(t, role, "")
	case "field_access":
		w.fieldAccess(t, role)
	default:
		w.node(t)
	}
}

func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	def.Doc = w.b.Doc(decl, extract.CStyle)
	mods := decl.Child("modifiers").Text()
	def.Visibility = "package"
	for _, v := range []string{"public", "protected", "private"} {
		if strings.Contains(mods, v) {
			def.Visibility = v
		}
	}
}

// scopeOf is the text of a scoped name before its last segment: "a.B" for a.B.C.
func scopeOf(scoped, last syntax.Node) string {
	return strings.TrimSuffix(scoped.Text()[:last.Start()-scoped.Start()], ".")
}
