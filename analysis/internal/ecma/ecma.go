// Package ecma walks JavaScript, TypeScript and TSX trees: the TypeScript
// grammars extend the JavaScript one, so one walker serves all three.
package ecma

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Walk records the facts of a JavaScript or TypeScript tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b}
	w.children(root)
	w.markDefaultExports()
}

type walker struct {
	b *extract.Builder
	// callback is, while visiting a function passed as an argument, where
	// it is passed ("=>callee#arg"): its untyped parameters take their
	// types from that parameter's declared function type.
	callback string
	// result is, while visiting a function's body, the type it is written
	// or known to return: a function it returns takes its parameters'
	// types from that (zod's locales return `(issue) => …` from a
	// function typed `() => $ZodErrorMap`).
	result string
	// exportedAs are the names `export = x` or `export default x` export
	// as the module itself.
	exportedAs []string
	// exported are the names a local `export { a }` exports.
	exported []string
}

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

func (w *walker) node(n syntax.Node) {
	switch n.Type() {
	case "ambient_declaration":
		if n.Child("global").Valid() {
			w.globalBlock(n)
			return
		}
		w.children(n)
	case "import_statement":
		w.importStatement(n)
	case "export_statement":
		if n.Field("source").Valid() {
			w.reexport(n)
		} else if fn := anonymousDefault(n); fn.Valid() {
			// `export default function () {…}`: a function named default,
			// which a default import binds, where tsserver puts it (at
			// the export keyword).
			d := w.function(fn, analysis.KindFunction, n.Child("export"))
			w.b.D(d).Name, w.b.D(d).Visibility = "default", "default"
		} else {
			if v := cmpNode(n.Field("value"), n.Child("identifier")); v.Type() == "identifier" {
				w.exportedAs = append(w.exportedAs, v.Text())
				if m := w.b.OwnerDef(); m != nil && m.Kind == analysis.KindModule && strings.HasPrefix(m.Name, `"`) {
					// `declare module "m" { … export = X }`: the module is X
					// (@types/node's "events" is its EventEmitter).
					m.TypeName = v.Text()
				}
			}
			w.localExports(n.Child("export_clause"))
			w.children(n)
		}
	case "class_declaration", "abstract_class_declaration", "class":
		w.class(n)
	case "interface_declaration":
		w.typeDecl(n, analysis.KindInterface)
	case "type_alias_declaration":
		d := w.typeDecl(n, analysis.KindTypeAlias)
		w.b.D(d).TypeName = withoutComments(n.Field("value").Text())
	case "enum_declaration":
		w.typeDecl(n, analysis.KindEnum)
	case "internal_module", "module":
		w.typeDecl(n, analysis.KindModule)
	case "function_declaration", "generator_function_declaration", "function_signature":
		w.function(n, analysis.KindFunction, n.Field("name"))
	case "function_expression", "function", "arrow_function", "generator_function", "function_type", "constructor_type":
		// A function type's parameters are declared too: `(url: Input) => R`.
		callback := w.callback
		w.callback = ""
		w.returning(n, callback, func() { w.b.Within(n, analysis.None, func() { w.signatureIn(n, callback) }) })
	case "return_statement":
		for _, c := range n.NamedChildren() {
			w.contextual(c, w.result)
		}
	case "method_definition", "method_signature", "abstract_method_signature":
		w.method(n)
	case "public_field_definition", "field_definition", "property_signature":
		w.field(n)
	case "index_signature":
		w.indexSignature(n)
	case "lexical_declaration", "variable_declaration":
		w.variables(n)
	case "object_type":
		// The members of an inline object type are not names of the
		// enclosing scope: `({ title }: { title: string })`; those of a
		// type alias's object type are the alias's own.
		if n.Parent().Type() == "interface_declaration" || aliasedObject(n) {
			w.children(n)
		} else {
			w.b.Within(n, analysis.None, func() { w.children(n) })
		}
	case "if_statement", "ternary_expression":
		w.narrowing(n)
		w.children(n)
	case "switch_statement":
		w.switchNarrowing(n)
		w.children(n)
	case "binary_expression":
		w.operandNarrowing(n)
		w.children(n)
	case "statement_block", "for_statement", "for_in_statement", "catch_clause", "switch_body":
		if w.moduleGlobalBlock(n) {
			return
		}
		w.b.Within(n, analysis.None, func() { w.scoped(n) })
	case "assignment_expression":
		if !w.constructorField(n.Field("left"), n.Field("right")) {
			w.pattern(n.Field("left"), analysis.RoleWrite, analysis.KindUnknown)
		}
		w.node(n.Field("right"))
	case "augmented_assignment_expression":
		w.pattern(n.Field("left"), analysis.RoleRead|analysis.RoleWrite, analysis.KindUnknown)
		w.node(n.Field("right"))
	case "update_expression":
		w.pattern(n.Field("argument"), analysis.RoleRead|analysis.RoleWrite, analysis.KindUnknown)
	case "call_expression":
		w.call(n.Field("function"))
		w.callArgs(n.Field("function"), n.Field("arguments"))
		w.node(n.Field("type_arguments"))
		w.arguments(n.Field("arguments"), extract.Qualifier(n.Field("function")))
	case "new_expression":
		w.call(n.Field("constructor"))
		w.node(n.Field("type_arguments"))
		w.node(n.Field("arguments"))
	case "member_expression":
		w.member(n, analysis.RoleRead)
	case "jsx_opening_element", "jsx_self_closing_element", "jsx_closing_element":
		// Capitalised tags are components, called by the framework.
		if name := n.Field("name"); n.Type() != "jsx_closing_element" && isUpper(name.Text()) {
			w.call(name)
		}
		for _, a := range n.ChildrenOf("jsx_attribute") {
			w.children(a, a.Child("property_identifier"))
		}
	case "conditional_type":
		w.conditionalType(n)
	case "infer_type":
		w.inferType(n)
	case "type_parameter":
		i := w.b.Def(analysis.KindTypeParameter, n.Field("name"), n)
		if def := n.Field("value"); def.Valid() && len(def.NamedChildren()) == 1 {
			// `T = Issue`: what T is when an instance leaves it out.
			w.b.D(i).Value = def.NamedChildren()[0].Text()
		}
		w.children(n, n.Field("name"))
	case "pair":
		// Object literal keys are not names in scope.
		w.node(n.Field("value"))
	case "nested_type_identifier":
		w.b.Ref(n.Field("name"), analysis.RoleType, n.Field("module").Text())
	case "type_identifier":
		w.b.Ref(n, analysis.RoleType, "")
	case "identifier", "shorthand_property_identifier":
		if n.Text() != "undefined" {
			w.b.Ref(n, analysis.RoleRead, "")
		}
	case "comment", "string", "regex", "property_identifier", "number":
	default:
		w.children(n)
	}
}

// scoped visits a block-like node, declaring the loop variable of a
// for-in/of or the parameter of a catch.
func (w *walker) scoped(n syntax.Node) {
	switch n.Type() {
	case "for_in_statement":
		left := n.Field("left")
		if n.Child("const", "let", "var").Valid() {
			// A for-of variable holds an element of what the loop walks.
			// `for (const {a, b} of xs)` binds members of an element.
			if v := valueText(n.Field("right")); v != "" && n.Field("operator").Text() == "of" && left.Is("identifier", "object_pattern") {
				w.bind(left, analysis.KindVariable, binding{value: v + "[]"})
			} else {
				w.pattern(left, 0, analysis.KindVariable)
			}
		} else {
			w.pattern(left, analysis.RoleWrite, analysis.KindUnknown)
		}
		w.children(n, left)
	case "catch_clause":
		w.pattern(n.Field("parameter"), 0, analysis.KindVariable)
		w.children(n, n.Field("parameter"))
	default:
		w.children(n)
	}
}

func (w *walker) importStatement(n syntax.Node) {
	module := strings.Trim(n.Field("source").Text(), "\"'`")
	if req := n.Child("import_require_clause"); req.Valid() {
		// `import x = require("m")` binds x to module m, as `import * as x` does.
		alias := req.Child("identifier")
		module = strings.Trim(req.Field("source").Text(), "\"'`")
		if alias.Valid() && module != "" {
			w.b.Import(analysis.Import{Path: module, Alias: alias.Text(), Span: n.Span()}, syntax.Node{})
			w.b.D(w.b.Def(analysis.KindModule, alias, alias)).Visibility = "private"
		}
		return
	}
	clause := n.Child("import_clause")
	if !clause.Valid() {
		w.b.Import(analysis.Import{Path: module, Span: n.Span()}, syntax.Node{})
		return
	}
	for _, c := range clause.NamedChildren() {
		switch c.Type() {
		case "identifier":
			// A default import: assume the export is declared under the same name.
			w.b.Import(analysis.Import{Path: module + "/" + c.Text(), Name: c.Text(), Span: n.Span()}, c)
		case "namespace_import":
			alias := c.Child("identifier")
			w.b.Import(analysis.Import{Path: module, Alias: alias.Text(), Span: n.Span()}, syntax.Node{})
			// The alias is a binding of the file, where tsserver answers
			// for it; its members are the module's (resolve.inModule).
			d := w.b.Def(analysis.KindModule, alias, alias)
			w.b.D(d).Visibility = "private"
		case "named_imports":
			for _, s := range c.ChildrenOf("import_specifier") {
				name := s.Field("name")
				imp := analysis.Import{Path: module + "/" + name.Text(), Name: name.Text(), Alias: s.Field("alias").Text(), Span: n.Span()}
				w.b.Import(imp, name)
			}
		}
	}
}

// reexport records `export {a as b} from "m"` and `export * from "m"` as
// imports, so the re-exporting module answers for what it passes on.
func (w *walker) reexport(n syntax.Node) {
	module := strings.Trim(n.Field("source").Text(), "\"'`")
	clause := n.Child("export_clause")
	if !clause.Valid() {
		// `export * from "m"` passes on every name; `export * as ns` names a namespace.
		alias := n.Child("namespace_export").Child("identifier", "string")
		w.b.Import(analysis.Import{Path: module, Alias: alias.Text(), Wildcard: !alias.Valid(), Span: n.Span()}, syntax.Node{})
		if alias.Type() == "identifier" {
			// An exported namespace binding: `z.core.version` reaches the
			// module's members through it, as through `import * as`.
			d := w.b.Def(analysis.KindModule, alias, alias)
			w.b.D(d).Visibility = "public"
		}
		return
	}
	for _, s := range clause.ChildrenOf("export_specifier") {
		name := s.Field("name")
		// The exported name is always the alias, so that `export { a }
		// from "m"` tells itself from `import { a } from "m"`.
		alias := cmp.Or(s.Field("alias").Text(), name.Text())
		imp := analysis.Import{Path: module + "/" + name.Text(), Name: name.Text(), Alias: alias, Span: n.Span()}
		w.b.Import(imp, name)
	}
}

// typeDecl records an interface, type alias, enum or namespace.
func (w *walker) typeDecl(n syntax.Node, kind analysis.Kind) int32 {
	name := n.Field("name")
	d := w.b.Def(kind, name, n)
	body := n.Field("body")
	w.decorate(d, n, body)
	if kind == analysis.KindInterface {
		w.b.D(d).TypeName = callSignatures(body)
	}
	if kind == analysis.KindInterface {
		w.b.D(d).TypeName = callSignatures(body)
	}
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Type() == "extends_type_clause":
				for _, t := range c.NamedChildren() {
					w.supertype(d, t)
				}
			case c.Type() == "enum_body":
				w.enumBody(c)
			case kind == analysis.KindTypeAlias && c.Type() == "intersection_type":
				// `type A = B & {…}`: A has B's members and its own.
				w.aliasParts(d, c)
			default:
				w.node(c)
			}
		}
	})
	return d
}

// aliasParts visits a type alias's value, recording the named types an
// intersection joins as the alias's supertypes.
func (w *walker) aliasParts(alias int32, v syntax.Node) {
	switch v.Type() {
	case "intersection_type", "parenthesized_type":
		for _, c := range v.NamedChildren() {
			w.aliasParts(alias, c)
		}
	case "type_identifier", "nested_type_identifier", "generic_type":
		if v.Parent().Type() != "type_alias_declaration" {
			w.supertype(alias, v)
			return
		}
		w.node(v)
	default:
		w.node(v)
	}
}

// aliasedObject reports whether an object type is a type alias's value or
// one of the types its intersection joins.
func aliasedObject(n syntax.Node) bool {
	p := n.Parent()
	for p.Type() == "intersection_type" || p.Type() == "parenthesized_type" {
		p = p.Parent()
	}
	return p.Type() == "type_alias_declaration"
}

func (w *walker) enumBody(n syntax.Node) {
	for _, c := range n.NamedChildren() {
		switch c.Type() {
		case "property_identifier":
			w.b.Def(analysis.KindEnumEntry, c, c)
		case "enum_assignment":
			w.b.Def(analysis.KindEnumEntry, c.Field("name"), c)
			w.node(c.Field("value"))
		default:
			w.node(c)
		}
	}
}

func (w *walker) class(n syntax.Node) {
	name := n.Field("name")
	if !name.Valid() {
		// An anonymous class expression only contributes references.
		w.b.Within(n, analysis.None, func() { w.children(n) })
		return
	}
	d := w.b.Def(analysis.KindClass, name, n)
	body := n.Field("body")
	w.decorate(d, n, body)
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Type() == "class_heritage":
				w.heritage(d, c)
			default:
				w.node(c)
			}
		}
	})
}

func (w *walker) heritage(class int32, n syntax.Node) {
	for _, c := range n.NamedChildren() {
		switch c.Type() {
		case "extends_clause":
			for _, v := range c.NamedChildren() {
				w.supertype(class, v)
			}
		case "implements_clause":
			for _, t := range c.NamedChildren() {
				w.supertype(class, t)
			}
		default:
			// JavaScript puts the extended expression directly in the heritage.
			w.supertype(class, c)
		}
	}
}

func (w *walker) supertype(class int32, t syntax.Node) {
	switch t.Type() {
	case "identifier", "type_identifier":
		w.b.Supertype(class, t, "")
	case "member_expression":
		w.node(t.Field("object"))
		w.b.Supertype(class, t.Field("property"), t.Field("object").Text())
	case "nested_type_identifier":
		w.b.Supertype(class, t.Field("name"), t.Field("module").Text())
	case "generic_type":
		args := t.Field("type_arguments").NamedChildren()
		if memberPreserving[t.Field("name").Text()] && len(args) > 0 {
			// `Required<Omit<Options, 'x'>>` has (some of) Options' members.
			w.supertype(class, args[0])
			for _, a := range args[1:] {
				w.node(a)
			}
			return
		}
		w.supertype(class, t.Field("name"))
		w.node(t.Field("type_arguments"))
	default:
		w.node(t)
	}
}

// memberPreserving are the utility types whose members are (some of)
// their first type argument's.
var memberPreserving = map[string]bool{"Partial": true, "Required": true, "Readonly": true,
	"NonNullable": true, "Omit": true, "Pick": true}

func (w *walker) function(n syntax.Node, kind analysis.Kind, name syntax.Node) int32 {
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, n.Field("body"))
	w.b.D(d).TypeName = annotation(n.Field("return_type"))
	w.inferResult(d, n)
	w.returning(n, "", func() { w.b.Within(n, d, func() { w.signature(n) }) })
	return d
}

// arguments visits a call's arguments, marking the functions among them
// with where they are passed.
func (w *walker) arguments(args syntax.Node, callee string) {
	if args.Type() != "arguments" {
		w.node(args) // a tagged template
		return
	}
	i := 0
	for _, a := range args.NamedChildren() {
		if a.Type() == "comment" {
			continue
		}
		if callee != "" && len(callee) <= 200 {
			w.contextualValue(a, "=>"+callee+"#"+strconv.Itoa(i))
		} else {
			w.node(a)
		}
		i++
	}
}

// constructorField declares the field of `this.x = v` in a constructor
// when the class has not declared x: JavaScript classes declare their
// fields this way.
func (w *walker) constructorField(left, right syntax.Node) bool {
	class := w.enclosingClass()
	if class == analysis.None || left.Type() != "member_expression" || left.Field("object").Type() != "this" {
		return false
	}
	prop := left.Field("property")
	for _, d := range w.b.Facts.Defs {
		if d.Container == class && d.Name == prop.Text() {
			return false
		}
	}
	ctor := w.b.OwnerDef()
	d := w.b.Def(analysis.KindField, prop, left.Parent())
	def := w.b.D(d)
	def.Container, def.Scope = class, ctor.Scope
	def.TypeName = constructedType(right)
	def.Visibility = "public"
	if strings.HasPrefix(def.Name, "#") {
		def.Visibility = "private"
	}
	return true
}

// enclosingClass is the class whose constructor is being walked, or None.
func (w *walker) enclosingClass() int32 {
	owner := w.b.OwnerDef()
	if owner == nil || owner.Kind != analysis.KindConstructor {
		return analysis.None
	}
	return owner.Container
}

func (w *walker) method(n syntax.Node) {
	name := n.Field("name")
	kind := analysis.KindMethod
	switch {
	case name.Text() == "constructor":
		kind = analysis.KindConstructor
	case n.Child("get", "set").Valid():
		kind = analysis.KindProperty
	}
	d := w.b.Def(kind, name, n)
	if owner := w.b.OwnerDef(); kind == analysis.KindConstructor && owner != nil && owner.Kind == analysis.KindClass {
		w.b.D(d).Name = owner.Name
	}
	w.decorate(d, n, n.Field("body"))
	w.b.D(d).TypeName = annotation(n.Field("return_type"))
	if kind == analysis.KindMethod {
		w.inferResult(d, n)
	}
	w.b.Within(n, d, func() { w.signature(n) })
}

func (w *walker) field(n syntax.Node) {
	name := n.Field("name")
	if !name.Valid() {
		name = n.Field("property")
	}
	d := w.b.Def(analysis.KindField, name, n)
	value := n.Field("value")
	w.decorate(d, n, syntax.Node{})
	def := w.b.D(d)
	def.TypeName = cmp.Or(annotation(n.Field("type")), constructedType(value), arrowType(value))
	w.node(n.Field("type"))
	w.b.Owned(d, func() { w.node(value) })
}

// indexSignature declares `[key: string]: T` of an interface or object
// type as its member analysis.IndexSignatureName, of type T; a mapped
// type's `[k in K]` is none.
func (w *walker) indexSignature(n syntax.Node) {
	name := n.Field("name")
	if !name.Valid() || !n.Parent().Is("object_type", "interface_body") {
		w.children(n)
		return
	}
	d := w.b.Def(analysis.KindField, name, n)
	def := w.b.D(d)
	def.Name, def.Visibility = analysis.IndexSignatureName, "public"
	def.TypeName = annotation(n.Field("type"))
	w.node(n.Field("index_type"))
	w.node(n.Field("type"))
}

func (w *walker) call(f syntax.Node) {
	switch f.Type() {
	case "identifier":
		w.b.Call(f, "")
	case "member_expression":
		w.member(f, analysis.RoleCall)
	case "super", "import":
	default:
		w.node(f)
	}
}

func (w *walker) member(n syntax.Node, role analysis.Role) {
	obj := n.Field("object")
	prop := n.Field("property")
	w.node(obj)
	qualifier := extract.Qualifier(obj)
	if role == analysis.RoleCall {
		w.b.Call(prop, qualifier)
	} else {
		w.b.Ref(prop, role, qualifier)
	}
}

func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	at := cmpNode(exportStatement(decl), decl)
	def.Doc = w.b.Doc(at, extract.CStyle)
	switch {
	case def.Container == analysis.None:
		def.Visibility = exported(decl)
	case decl.Child("accessibility_modifier").Valid():
		def.Visibility = decl.Child("accessibility_modifier").Text()
	case strings.HasPrefix(def.Name, "#"):
		def.Visibility = "private"
	default:
		def.Visibility = "public"
	}
}

// exported is "public" for declarations under an export statement.
func exported(decl syntax.Node) string {
	if exportStatement(decl).Valid() {
		return "public"
	}
	return "private"
}

// exportStatement is the export statement a declaration is written in,
// `export declare function f()` too, or no node.
func exportStatement(decl syntax.Node) syntax.Node {
	p := decl.Parent()
	if p.Type() == "ambient_declaration" {
		p = p.Parent()
	}
	if p.Type() == "export_statement" {
		return p
	}
	return syntax.Node{}
}

// anonymousDefault is the function an `export default` statement exports
// without a name (`export default function () {…}`, `export default () =>
// …`), or an invalid node.
func anonymousDefault(n syntax.Node) syntax.Node {
	if !n.Child("default").Valid() {
		return syntax.Node{}
	}
	v := cmpNode(n.Field("declaration"), n.Field("value"))
	if v.Is("function_expression", "function", "arrow_function", "generator_function") && !v.Field("name").Valid() {
		return v
	}
	return syntax.Node{}
}
