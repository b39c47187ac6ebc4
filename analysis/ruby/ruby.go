// Package ruby extracts facts from Ruby sources.
package ruby

import (
	"context"
	"strings"

	"github.com/smacker/go-tree-sitter/ruby"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the Ruby grammar.
var Syntax = syntax.NewLanguage("ruby", ruby.GetLanguage())

// Extensions are the file extensions of Ruby sources.
var Extensions = []string{".rb", ".rake", ".gemspec"}

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// Walk records the facts of a Ruby tree.
func Walk(b *extract.Builder, root syntax.Node) {
	w := &walker{b: b, locals: []map[string]bool{{}}, fields: map[classField]bool{}}
	w.children(root)
}

type walker struct {
	b *extract.Builder
	// locals holds the local variable names visible here, one set per block
	// since the enclosing method: a bare name that is not a local is a
	// method call on self.
	locals []map[string]bool
	// visibility is set by a bare `private`/`protected`/`public` in a class body.
	visibility string
	// classScope is the scope of the innermost class, where instance
	// variables are declared.
	classScope int32
	// fields holds the instance variables declared so far, by class def.
	fields map[classField]bool
}

type classField struct {
	class int32
	name  string
}

// children walks the named children of n, leaving out skip.
func (w *walker) children(n syntax.Node, skip ...syntax.Node) { extract.Visit(n, w.node, skip...) }

func (w *walker) node(n syntax.Node) {
	switch n.Type() {
	case "class", "module", "singleton_class":
		w.class(n)
	case "method", "singleton_method":
		w.method(n)
	case "assignment":
		w.node(n.Field("right"))
		w.target(n.Field("left"), analysis.RoleWrite, constructedType(n.Field("right")))
	case "operator_assignment":
		w.target(n.Field("left"), analysis.RoleRead|analysis.RoleWrite, "")
		w.node(n.Field("right"))
	case "call":
		w.call(n)
	case "block", "do_block", "lambda":
		w.block(n)
	case "for":
		w.node(n.Field("value"))
		w.target(n.Field("pattern"), analysis.RoleWrite, "")
		w.node(n.Field("body"))
	case "scope_resolution":
		w.node(n.Field("scope"))
		w.b.Ref(n.Field("name"), analysis.RoleRead, rubyQualifier(n.Field("scope")))
	case "identifier":
		switch name := n.Text(); {
		case w.isLocal(name):
			w.b.Ref(n, analysis.RoleRead, "")
		case (name == "private" || name == "protected" || name == "public") && n.Parent().Type() == "body_statement":
			w.visibility = name
		default:
			w.b.Call(n, "")
		}
	case "super":
		w.superCall(n)
	case "constant", "instance_variable", "class_variable", "global_variable":
		w.b.Ref(n, analysis.RoleRead, "")
	case "comment", "string_content", "simple_symbol", "hash_key_symbol":
	default:
		w.children(n)
	}
}

func (w *walker) isLocal(name string) bool {
	for _, l := range w.locals {
		if l[name] {
			return true
		}
	}
	return false
}

func (w *walker) class(n syntax.Node) {
	kind := analysis.KindClass
	if n.Type() == "module" {
		kind = analysis.KindModule
	}
	name := n.Field("name")
	qualifier := ""
	if name.Type() == "scope_resolution" {
		qualifier = name.Field("scope").Text()
		name = name.Field("name")
	}
	if !name.Valid() {
		// `class << self` adds singleton methods to the enclosing class.
		w.children(n)
		return
	}
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, n.Field("body"))
	if qualifier != "" {
		w.b.Ref(n.Field("name").Field("scope"), analysis.RoleRead, "")
	}
	w.b.D(d).Visibility = "public"
	if s := n.Field("superclass"); s.Valid() {
		w.supertype(d, s.NamedChildren()[0])
	}
	outerVis, outerScope, outerLocals := w.visibility, w.classScope, w.locals
	w.visibility, w.locals = "public", []map[string]bool{{}}
	w.b.Within(n, d, func() {
		w.classScope = w.b.Scope()
		w.node(n.Field("body"))
	})
	w.visibility, w.classScope, w.locals = outerVis, outerScope, outerLocals
}

func (w *walker) supertype(d int32, t syntax.Node) {
	switch t.Type() {
	case "constant":
		w.b.Supertype(d, t, "")
	case "scope_resolution":
		w.b.Supertype(d, t.Field("name"), t.Field("scope").Text())
	default:
		w.node(t)
	}
}

func (w *walker) method(n syntax.Node) {
	name := n.Field("name")
	kind := analysis.KindFunction
	owner := w.b.OwnerDef()
	if owner != nil && (owner.Kind == analysis.KindClass || owner.Kind == analysis.KindModule) {
		kind = analysis.KindMethod
	}
	d := w.b.Def(kind, name, n)
	w.decorate(d, n, n.Field("body"))
	if kind == analysis.KindMethod {
		w.b.D(d).Visibility = w.visibility
	}
	outer := w.locals
	w.locals = []map[string]bool{{}}
	w.b.Within(n, d, func() {
		w.parameters(n.Field("parameters"))
		w.node(n.Field("body"))
	})
	w.locals = outer
}

func (w *walker) parameters(list syntax.Node) {
	for _, p := range list.NamedChildren() {
		name := p
		if p.Type() != "identifier" {
			name = p.Field("name")
		}
		if name.Type() == "identifier" {
			w.b.Def(analysis.KindParameter, name, p)
			w.locals[len(w.locals)-1][name.Text()] = true
		}
		w.node(p.Field("value"))
	}
}

func (w *walker) block(n syntax.Node) {
	w.locals = append(w.locals, map[string]bool{})
	w.b.Within(n, analysis.None, func() {
		w.parameters(n.Field("parameters"))
		w.node(n.Field("body"))
	})
	w.locals = w.locals[:len(w.locals)-1]
}

// target declares a local, instance variable or constant on first
// assignment and records a write afterwards.
func (w *walker) target(t syntax.Node, role analysis.Role, typeName string) {
	switch t.Type() {
	case "identifier":
		if role != analysis.RoleWrite || w.isLocal(t.Text()) {
			w.b.Ref(t, role, "")
			return
		}
		w.locals[len(w.locals)-1][t.Text()] = true
		d := w.b.Def(analysis.KindVariable, t, t.Parent())
		w.b.D(d).TypeName = typeName
	case "instance_variable", "class_variable":
		cls := w.enclosingClass()
		key := classField{cls, t.Text()}
		if role != analysis.RoleWrite || cls == analysis.None || w.fields[key] {
			w.b.Ref(t, role, "")
			return
		}
		w.fields[key] = true
		d := w.b.Def(analysis.KindField, t, t.Parent())
		def := w.b.D(d)
		def.Container, def.Scope, def.TypeName, def.Visibility = cls, w.classScope, typeName, "private"
	case "constant":
		if role != analysis.RoleWrite {
			w.b.Ref(t, role, "")
			return
		}
		d := w.b.Def(analysis.KindConstant, t, t.Parent())
		w.b.D(d).Signature = extract.Header(t.Parent(), syntax.Node{})
	case "call":
		// `obj.attr = v` calls the writer attr=.
		w.node(t.Field("receiver"))
		w.b.Ref(t.Field("method"), role, rubyQualifier(t.Field("receiver")))
	case "left_assignment_list", "destructured_left_assignment":
		for _, c := range t.NamedChildren() {
			w.target(c, role, "")
		}
	default:
		w.node(t)
	}
}

func (w *walker) enclosingClass() int32 {
	for i := w.b.Owner(); i != analysis.None; i = w.b.D(i).Container {
		if k := w.b.D(i).Kind; k == analysis.KindClass || k == analysis.KindModule {
			return i
		}
	}
	return analysis.None
}

func (w *walker) call(n syntax.Node) {
	receiver := n.Field("receiver")
	method := n.Field("method")
	args := n.Field("arguments")
	if !receiver.Valid() && w.declaration(method.Text(), args) {
		return
	}
	w.node(receiver)
	qualifier := ""
	if receiver.Valid() {
		qualifier = rubyQualifier(receiver)
	}
	switch {
	case method.Type() == "super":
		w.superCall(method)
	case method.Valid():
		w.b.Call(method, qualifier)
	}
	w.node(args)
	w.node(n.Field("block"))
}

// declaration handles the calls that declare: require, include/extend and
// attribute macros. It reports whether it handled the call.
func (w *walker) declaration(method string, args syntax.Node) bool {
	list := args.NamedChildren()
	switch method {
	case "require", "require_relative":
		if len(list) != 1 || list[0].Type() != "string" {
			return false
		}
		path := list[0].Child("string_content").Text()
		if method == "require_relative" && !strings.HasPrefix(path, ".") {
			path = "./" + path
		}
		// A required file's top-level constants all become visible.
		w.b.Import(analysis.Import{Path: path, Wildcard: true, Span: args.Parent().Span()}, syntax.Node{})
		return true
	case "include", "extend", "prepend":
		cls := w.enclosingClass()
		if cls == analysis.None {
			return false
		}
		for _, a := range list {
			w.supertype(cls, a)
		}
		return true
	case "attr_reader", "attr_writer", "attr_accessor":
		cls := w.enclosingClass()
		if cls == analysis.None {
			return false
		}
		for _, a := range list {
			if a.Type() != "simple_symbol" {
				continue
			}
			name := strings.TrimPrefix(a.Text(), ":")
			span := a.Span()
			span.Start++
			span.StartPoint.Col++
			d := w.b.DefNamed(analysis.KindProperty, name, span, args.Parent().Span())
			def := w.b.D(d)
			def.Signature, def.Visibility = args.Parent().Text(), w.visibility
		}
		return true
	}
	return false
}

// superCall records `super` as a call of the enclosing method's name on
// the superclass.
func (w *walker) superCall(n syntax.Node) {
	owner := w.b.OwnerDef()
	if owner == nil || owner.Kind != analysis.KindMethod {
		return
	}
	name := owner.Name
	ref := w.b.RefNamed(name, n.Span(), analysis.RoleCall, "super")
	w.b.Facts.Calls = append(w.b.Facts.Calls, analysis.Call{Caller: w.b.Owner(), Callee: name, Site: n.Span(), Ref: ref})
}

func (w *walker) decorate(d int32, decl, body syntax.Node) {
	def := w.b.D(d)
	def.Signature = extract.Header(decl, body)
	def.Doc = w.b.Doc(decl, extract.HashStyle)
}

// constructedType infers Foo from `Foo.new(...)`.
func constructedType(v syntax.Node) string {
	if v.Type() == "call" && v.Field("method").Text() == "new" && v.Field("receiver").Is("constant", "scope_resolution") {
		return rubyQualifier(v.Field("receiver"))
	}
	return ""
}

// rubyQualifier is a receiver's text as a qualifier, with `A::B` written
// `A.B` so the resolver can follow it one constant at a time.
func rubyQualifier(n syntax.Node) string {
	return strings.ReplaceAll(strings.TrimPrefix(extract.Qualifier(n), "::"), "::", ".")
}
