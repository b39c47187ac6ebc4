// Package rust extracts facts from Rust sources.
package rust

import (
	"cmp"
	"context"
	"strings"

	"github.com/smacker/go-tree-sitter/rust"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the Rust grammar.
var Syntax = syntax.NewLanguage("rust", rust.GetLanguage())

// Extensions are the file extensions of Rust sources.
var Extensions = []string{".rs"}

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// Walk records the facts of a Rust tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b}
	w.children(root)
}

type walker struct {
	b *extract.Builder
	// implType is the type of the impl block being walked: its functions
	// are methods with that receiver.
	implType string
}

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

var itemKinds = map[string]analysis.Kind{
	"struct_item":      analysis.KindStruct,
	"union_item":       analysis.KindStruct,
	"enum_item":        analysis.KindEnum,
	"trait_item":       analysis.KindTrait,
	"type_item":        analysis.KindTypeAlias,
	"associated_type":  analysis.KindTypeAlias,
	"mod_item":         analysis.KindModule,
	"const_item":       analysis.KindConstant,
	"static_item":      analysis.KindVariable,
	"macro_definition": analysis.KindFunction,
}

func (w *walker) node(n syntax.Node) {
	if kind, ok := itemKinds[n.Type()]; ok {
		w.item(n, kind)
		return
	}
	switch n.Type() {
	case "use_declaration":
		w.use(n.Field("argument"), "", n.Span())
	case "extern_crate_declaration":
		w.externCrate(n)
	case "impl_item":
		w.impl(n)
	case "function_item", "function_signature_item":
		w.function(n)
	case "enum_variant":
		name := n.Field("name")
		d := w.b.Def(analysis.KindEnumEntry, name, n)
		w.decorate(d, n, n.Field("body"))
		w.b.Within(n, d, func() { w.children(n, name) })
	case "field_declaration":
		name := n.Field("name")
		d := w.b.Def(analysis.KindField, name, n)
		w.decorate(d, n, syntax.Node{})
		w.b.D(d).TypeName = n.Field("type").Text()
		w.node(n.Field("type"))
	case "let_declaration":
		value := n.Field("value")
		w.node(value)
		w.node(n.Field("type"))
		w.node(n.Child("else_clause"))
		w.pattern(n.Field("pattern"), analysis.KindVariable, cmp.Or(n.Field("type").Text(), constructedType(value)))
	case "let_condition":
		w.node(n.Field("value"))
		w.pattern(n.Field("pattern"), analysis.KindVariable, "")
	case "for_expression":
		w.node(n.Field("value"))
		w.b.Within(n, analysis.None, func() {
			w.pattern(n.Field("pattern"), analysis.KindVariable, "")
			w.node(n.Field("body"))
		})
	case "match_arm":
		w.b.Within(n, analysis.None, func() {
			w.pattern(n.Field("pattern"), analysis.KindVariable, "")
			w.children(n, n.Field("pattern"))
		})
	case "closure_expression":
		w.b.Within(n, analysis.None, func() {
			w.parameters(n.Field("parameters"))
			w.node(n.Field("return_type"))
			w.node(n.Field("body"))
		})
	case "block", "if_expression", "while_expression":
		w.b.Within(n, analysis.None, func() { w.children(n) })
	case "call_expression":
		w.call(n.Field("function"))
		w.node(n.Field("arguments"))
	case "macro_invocation":
		if m := n.Field("macro"); m.Type() == "identifier" {
			w.b.Call(m, "")
		} else {
			w.call(m)
		}
		w.children(n, n.Field("macro"))
	case "field_expression":
		w.field(n, analysis.RoleRead)
	case "scoped_identifier":
		w.node(n.Field("path"))
		w.b.Ref(n.Field("name"), analysis.RoleRead, n.Field("path").Text())
	case "scoped_type_identifier":
		w.node(n.Field("path"))
		w.b.Ref(n.Field("name"), analysis.RoleType, n.Field("path").Text())
	case "generic_function":
		w.node(n.Field("function"))
		w.node(n.Field("type_arguments"))
	case "struct_expression":
		w.structExpression(n)
	case "assignment_expression":
		w.target(n.Field("left"), analysis.RoleWrite)
		w.node(n.Field("right"))
	case "compound_assignment_expr":
		w.target(n.Field("left"), analysis.RoleRead|analysis.RoleWrite)
		w.node(n.Field("right"))
	case "type_parameters":
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "type_identifier":
				w.b.Def(analysis.KindTypeParameter, c, c)
			case "constrained_type_parameter":
				w.b.Def(analysis.KindTypeParameter, c.Field("left"), c)
				w.node(c.Field("bounds"))
			default:
				w.node(c)
			}
		}
	case "type_identifier":
		w.b.Ref(n, analysis.RoleType, "")
	case "identifier":
		w.b.Ref(n, analysis.RoleRead, "")
	case "line_comment", "block_comment", "string_literal", "raw_string_literal", "attribute_item", "inner_attribute_item", "lifetime":
	default:
		w.children(n)
	}
}

// use records the imports of a use tree, prefixing paths with the
// enclosing scoped_use_list's path.
func (w *walker) use(n syntax.Node, prefix string, span analysis.Span) {
	join := func(p string) string {
		if prefix == "" {
			return p
		}
		return prefix + "::" + p
	}
	switch n.Type() {
	case "scoped_identifier", "identifier", "crate", "self", "super":
		name := n
		if n.Type() == "scoped_identifier" {
			name = n.Field("name")
		}
		w.b.Import(analysis.Import{Path: join(n.Text()), Name: name.Text(), Span: span}, name)
	case "use_as_clause":
		path := n.Field("path")
		name := path
		if path.Type() == "scoped_identifier" {
			name = path.Field("name")
		}
		w.b.Import(analysis.Import{Path: join(path.Text()), Name: name.Text(), Alias: n.Field("alias").Text(), Span: span}, name)
	case "scoped_use_list":
		p := join(n.Field("path").Text())
		for _, c := range n.Field("list").NamedChildren() {
			w.use(c, p, span)
		}
	case "use_list":
		for _, c := range n.NamedChildren() {
			w.use(c, prefix, span)
		}
	case "use_wildcard":
		path := ""
		if p := n.NamedChildren(); len(p) > 0 {
			path = p[0].Text()
		}
		w.b.Import(analysis.Import{Path: join(path), Wildcard: true, Span: span}, syntax.Node{})
	}
}

func (w *walker) item(n syntax.Node, kind analysis.Kind) {
	name := n.Field("name")
	d := w.b.Def(kind, name, n)
	if kind == analysis.KindModule && !n.Field("body").Valid() {
		// `mod x;` brings in the file of module x, as `use self::x` would.
		w.b.Import(analysis.Import{Path: "self::" + name.Text(), Name: name.Text(), Span: n.Span()}, syntax.Node{})
	}
	body := n.Field("body")
	w.decorate(d, n, body)
	if kind == analysis.KindFunction {
		w.macro(d, n)
	}
	if kind == analysis.KindTypeAlias || kind == analysis.KindConstant || kind == analysis.KindVariable {
		w.b.D(d).TypeName = n.Field("type").Text()
	}
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Type() == "trait_bounds" && kind == analysis.KindTrait:
				for _, t := range c.NamedChildren() {
					w.supertype(d, t)
				}
			default:
				w.node(c)
			}
		}
	})
}

func (w *walker) supertype(def int32, t syntax.Node) {
	switch t.Type() {
	case "type_identifier":
		w.b.Supertype(def, t, "")
	case "scoped_type_identifier":
		w.b.Supertype(def, t.Field("name"), t.Field("path").Text())
	case "generic_type":
		w.supertype(def, t.Field("type"))
		w.node(t.Field("type_arguments"))
	default:
		w.node(t)
	}
}

// impl walks an impl block: its functions are methods of the implemented
// type, and `impl Trait for Type` makes Trait a supertype of Type when Type
// is declared in this file.
func (w *walker) impl(n syntax.Node) {
	typ := n.Field("type")
	trait := n.Field("trait")
	outer := w.implType
	w.implType = typ.Text()
	if trait.Valid() {
		self := w.localType(baseName(typ))
		if self != analysis.None {
			w.supertype(self, trait)
		} else {
			w.b.Ref(trait, analysis.RoleInheritance, "")
		}
	}
	w.b.Within(n, analysis.None, func() { w.children(n, trait) })
	w.implType = outer
}

func baseName(t syntax.Node) string {
	if t.Type() == "generic_type" {
		t = t.Field("type")
	}
	if t.Type() == "scoped_type_identifier" {
		t = t.Field("name")
	}
	return t.Text()
}

func (w *walker) localType(name string) int32 {
	for i, d := range w.b.Facts.Defs {
		if d.Name == name && d.Kind.IsType() && d.Container == analysis.None {
			return int32(i)
		}
	}
	return analysis.None
}

func (w *walker) function(n syntax.Node) {
	name := n.Field("name")
	kind := analysis.KindFunction
	receiver := w.implType
	if owner := w.b.OwnerDef(); owner != nil && owner.Kind == analysis.KindTrait {
		kind = analysis.KindMethod
	}
	if receiver != "" {
		kind = analysis.KindMethod
	}
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, n.Field("body"))
	def := w.b.D(d)
	def.Receiver = receiver
	def.TypeName = n.Field("return_type").Text()
	w.b.Within(n, d, func() {
		w.node(n.Field("type_parameters"))
		w.parameters(n.Field("parameters"))
		w.node(n.Field("return_type"))
		w.node(n.Child("where_clause"))
		w.node(n.Field("body"))
	})
}

func (w *walker) parameters(list syntax.Node) {
	for _, p := range list.NamedChildren() {
		switch p.Type() {
		case "self_parameter":
			self := p.Child("self")
			d := w.b.Def(analysis.KindParameter, self, p)
			w.b.D(d).TypeName = w.implType
		case "parameter":
			w.pattern(p.Field("pattern"), analysis.KindParameter, p.Field("type").Text())
			w.node(p.Field("type"))
		default:
			w.pattern(p, analysis.KindParameter, "")
		}
	}
}

// pattern declares the bindings of a pattern and records the references in
// it (enum variants, constants, struct names).
func (w *walker) pattern(p syntax.Node, kind analysis.Kind, typeName string) {
	switch p.Type() {
	case "identifier":
		// Upper-case names in patterns are variants or constants.
		if name := p.Text(); name != "" && name[0] >= 'A' && name[0] <= 'Z' {
			w.b.Ref(p, analysis.RoleRead, "")
			return
		}
		d := w.b.Def(kind, p, p.Parent())
		w.b.D(d).TypeName = typeName
	case "tuple_struct_pattern", "struct_pattern":
		typ := p.Field("type")
		w.node(typ)
		for _, c := range p.NamedChildren() {
			if !c.Same(typ) {
				w.pattern(c, kind, "")
			}
		}
	case "field_pattern":
		if pat := p.Field("pattern"); pat.Valid() {
			w.pattern(pat, kind, "")
		} else {
			w.pattern(p.Field("name"), kind, "")
		}
	case "shorthand_field_identifier":
		w.b.Def(kind, p, p)
	case "match_pattern", "tuple_pattern", "slice_pattern", "ref_pattern", "mut_pattern", "reference_pattern", "or_pattern", "captured_pattern":
		for _, c := range p.NamedChildren() {
			w.pattern(c, kind, "")
		}
	default:
		w.node(p)
	}
}

func (w *walker) call(f syntax.Node) {
	switch f.Type() {
	case "identifier":
		w.b.Call(f, "")
	case "field_expression":
		w.field(f, analysis.RoleCall)
	case "scoped_identifier":
		w.node(f.Field("path"))
		w.b.Call(f.Field("name"), f.Field("path").Text())
	case "generic_function":
		w.call(f.Field("function"))
		w.node(f.Field("type_arguments"))
	default:
		w.node(f)
	}
}

func (w *walker) field(n syntax.Node, role analysis.Role) {
	value := n.Field("value")
	w.node(value)
	qualifier := extract.Qualifier(value)
	if role == analysis.RoleCall {
		w.b.Call(n.Field("field"), qualifier)
	} else {
		w.b.Ref(n.Field("field"), role, qualifier)
	}
}

func (w *walker) target(t syntax.Node, role analysis.Role) {
	switch t.Type() {
	case "identifier":
		w.b.Ref(t, role, "")
	case "field_expression":
		w.field(t, role)
	default:
		w.node(t)
	}
}

// structExpression records `Foo { a: x }`: Foo as a type reference and the
// field names as writes of Foo's fields.
func (w *walker) structExpression(n syntax.Node) {
	name := n.Field("name")
	w.node(name)
	typeName := name.Text()
	if typeName == "Self" {
		typeName = w.implType
	}
	for _, f := range n.Field("body").NamedChildren() {
		switch f.Type() {
		case "field_initializer":
			w.b.Ref(f.Field("field"), analysis.RoleWrite, typeName+"{}")
			w.node(f.Field("value"))
		default:
			w.node(f)
		}
	}
}

func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	at := decl
	for p := at.PrevSibling(); p.Type() == "attribute_item"; p = p.PrevSibling() {
		at = p
	}
	def.Doc = w.b.Doc(at, extract.GoStyle)
	def.Visibility = "private"
	if v := decl.Child("visibility_modifier"); v.Valid() {
		def.Visibility = v.Text()
	}
}

// externCrate records `#[macro_use] extern crate log;`, which brings the
// crate's exported macros into scope in the whole crate that says it, as
// an import whose alias is analysis.RustMacroUse: no name of the file is
// bound by it.
func (w *walker) externCrate(n syntax.Node) {
	for p := n.PrevSibling(); p.Type() == "attribute_item"; p = p.PrevSibling() {
		if a := strings.TrimSpace(strings.TrimPrefix(p.Text(), "#[")); strings.HasPrefix(a, "macro_use") {
			w.b.Import(analysis.Import{Path: n.Field("name").Text(), Alias: analysis.RustMacroUse, Span: n.Span()}, syntax.Node{})
			return
		}
	}
}

// macro describes a macro_rules! definition: its header is the name, and
// #[macro_export] makes it public at its crate's root, whichever module
// defines it.
func (w *walker) macro(d int32, n syntax.Node) {
	def := w.b.D(d)
	def.Signature = "macro_rules! " + def.Name
	for p := n.PrevSibling(); p.Type() == "attribute_item"; p = p.PrevSibling() {
		if a := p.Text(); strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(a, "#[")), "macro_export") {
			def.Visibility = "pub"
			def.Signature = "#[macro_export] " + def.Signature
		}
	}
}

// constructedType infers the type of `Foo::new(..)`, `Foo { .. }` or `Foo(..)`.
func constructedType(v syntax.Node) string {
	switch v.Type() {
	case "struct_expression":
		return v.Field("name").Text()
	case "call_expression":
		f := v.Field("function")
		if f.Type() == "scoped_identifier" {
			return f.Field("path").Text()
		}
		if name := f.Text(); f.Type() == "identifier" && name[0] >= 'A' && name[0] <= 'Z' {
			return name
		}
	}
	return ""
}
