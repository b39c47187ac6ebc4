package kotlin

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Classes, objects and their supertypes: how the walker declares a class
// and the types it delegates to.

func classKind(n syntax.Node) analysis.Kind {
	switch {
	case n.Child("interface").Valid():
		return analysis.KindInterface
	case n.Child("enum").Valid():
		return analysis.KindEnum
	}
	return analysis.KindClass
}

func (w *walker) class(n syntax.Node, kind analysis.Kind, name syntax.Node) {
	var d int32
	if name.Valid() {
		d = w.b.Def(kind, name, n)
	} else {
		// An unnamed companion object is called Companion.
		kw := n.Child("object")
		d = w.b.DefNamed(kind, "Companion", kw.Span(), n.Span())
	}
	body := n.Child("class_body", "enum_class_body")
	w.decorate(d, n, body)
	w.b.Within(n, d, func() {
		for _, c := range n.NamedChildren() {
			switch {
			case c.Same(name):
			case c.Type() == "primary_constructor":
				w.primaryConstructor(d, c)
			case c.Type() == "delegation_specifier":
				w.delegation(d, c)
			default:
				w.node(c)
			}
		}
	})
}

// primaryConstructor records the constructor and its parameters; `val`/`var`
// parameters are properties of the class, the others are visible to
// initializers, so all live in the class scope.
func (w *walker) primaryConstructor(class int32, n syntax.Node) {
	// The name is the `constructor` keyword if written, else the class's
	// name: a primary constructor is found, and shown, at the class header.
	name := n.Child("constructor").Span()
	if name == (analysis.Span{}) {
		name = w.b.D(class).NameSpan
	}
	ctor := w.b.DefNamed(analysis.KindConstructor, w.b.D(class).Name, name, n.Span())
	w.b.D(ctor).Signature = extract.Header(n, syntax.Node{})
	for _, p := range n.ChildrenOf("class_parameter") {
		kind := analysis.KindParameter
		if p.Child("binding_pattern_kind").Valid() {
			kind = analysis.KindProperty
		}
		name := p.Child("simple_identifier")
		d := w.b.Def(kind, name, p)
		w.b.D(d).TypeName = typeText(p.Child("user_type", "nullable_type", "function_type"))
		if hasVararg(p.Child("modifiers")) {
			w.b.D(d).TypeName = varargType(w.b.D(d).TypeName)
		}
		if kind == analysis.KindProperty {
			w.b.D(d).Signature = extract.Header(p, syntax.Node{})
			w.b.D(d).Visibility = visibility(p)
		}
		w.children(p, name)
	}
}

func (w *walker) delegation(class int32, n syntax.Node) {
	for _, c := range n.NamedChildren() {
		switch c.Type() {
		case "constructor_invocation":
			w.supertype(class, c.Child("user_type"))
			w.node(c.Child("value_arguments"))
		case "user_type":
			w.supertype(class, c)
		case "explicit_delegation":
			w.supertype(class, c.Child("user_type"))
			w.children(c, c.Child("user_type"))
		default:
			w.node(c)
		}
	}
}

func (w *walker) supertype(class int32, t syntax.Node) {
	ids := t.ChildrenOf("type_identifier")
	if len(ids) == 0 {
		return
	}
	last := ids[len(ids)-1]
	w.b.Supertype(class, last, qualifierOf(ids[:len(ids)-1]))
	for _, a := range t.ChildrenOf("type_arguments") {
		w.node(a)
	}
}

func qualifierOf(ids []syntax.Node) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.Text()
	}
	return strings.Join(parts, ".")
}

// userType records each segment of `a.b.C<T>` as a type reference qualified
// by the segments before it.
func (w *walker) userType(n syntax.Node, role analysis.Role) {
	var seen []syntax.Node
	for _, c := range n.NamedChildren() {
		if c.Type() == "type_identifier" {
			w.b.Ref(c, role, qualifierOf(seen))
			seen = append(seen, c)
		} else {
			w.node(c)
		}
	}
}
