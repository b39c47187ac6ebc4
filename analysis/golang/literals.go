package golang

// The walker's cases for written types and composite literals: anonymous
// struct types declare fields owned by the variable or field typed with
// them, and a literal's keys are those fields.

import (
	"strconv"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// typeExpr walks a written type whose anonymous struct types declare
// fields owned by owner, the variable or field declared with the type:
// owner.x and the keys of owner's literal find them.
func (w *walker) typeExpr(t syntax.Node, owner int32) {
	switch t.Type() {
	case "struct_type":
		w.structType(t, owner)
	case "slice_type", "array_type", "implicit_length_array_type", "pointer_type", "map_type", "channel_type", "parenthesized_type":
		for _, c := range t.NamedChildren() {
			w.typeExpr(c, owner)
		}
	default:
		w.node(t)
	}
}

// structType declares the fields of an anonymous struct type in a scope of
// their own, owned by owner or else by the enclosing definition. At the top
// level with no owner they are left out: they would pass for package-level
// declarations.
func (w *walker) structType(n syntax.Node, owner int32) {
	if owner == analysis.None {
		owner = w.b.Owner()
	}
	if owner == analysis.None {
		w.children(n)
		return
	}
	w.b.Within(n, owner, func() { w.fields(owner, n.Child("field_declaration_list")) })
}

// literal walks a composite literal whose anonymous struct type, if any,
// is owned by owner.
func (w *walker) literal(n syntax.Node, owner int32) {
	typ := n.Field("type")
	w.typeExpr(typ, owner)
	w.literalBody(n.Field("body"), typ)
}

// literalBody records the keys of a literal of struct type typ (`T{Name:
// v}`) as writes to its fields, qualified by "T{}" or, for an anonymous
// struct, by "struct@<offset>{}" (the struct type's start, whose scope
// declares the fields), not as references to names in scope. Elements
// whose type is elided (`[]T{{Name: v}}`, `map[K]*T{"k": {Name: v}}`) are
// literals of the element type.
func (w *walker) literalBody(body, typ syntax.Node) {
	qualifier := ""
	switch typ.Type() {
	case "type_identifier", "qualified_type", "generic_type":
		qualifier = typ.Text() + "{}"
	case "struct_type":
		qualifier = "struct@" + strconv.Itoa(typ.Start()) + "{}"
	}
	var key, elem syntax.Node
	switch typ.Type() {
	case "slice_type", "array_type", "implicit_length_array_type":
		elem = typ.Field("element")
	case "map_type":
		key, elem = typ.Field("key"), typ.Field("value")
	}
	for _, e := range body.NamedChildren() {
		switch e.Type() {
		case "keyed_element":
			parts := e.NamedChildren()
			if len(parts) != 2 {
				w.children(e)
				continue
			}
			if id := parts[0].Child("identifier"); qualifier != "" && id.Valid() {
				w.b.Ref(id, analysis.RoleWrite, qualifier)
			} else {
				w.element(parts[0], key)
			}
			w.element(parts[1], elem)
		case "literal_element":
			w.element(e, elem)
		default:
			w.node(e)
		}
	}
}

// element walks an element of a literal whose elements are of type elem:
// a literal value there is a literal of that type (of *T's T).
func (w *walker) element(e, elem syntax.Node) {
	if elem.Type() == "pointer_type" {
		elem = elem.NamedChildren()[0]
	}
	if v := e.FirstNamedChild(); elem.Valid() && v.Type() == "literal_value" {
		w.literalBody(v, elem)
		return
	}
	w.node(e)
}
