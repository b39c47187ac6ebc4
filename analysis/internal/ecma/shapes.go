package ecma

import "github.com/kast-dev/kast/analysis/syntax"

// Schema builders in zod's style, `const S = z.object({ name: z.string() })`,
// describe the type `z.infer<typeof S>` by the object literal they are
// called with: tsserver takes a property of that type to its key in the
// literal. The keys are declared as members of the variable (which keeps
// its value, the call), for the resolver to find them there.

// shapeBuilders are the builder methods whose first argument is the shape.
var shapeBuilders = map[string]bool{"object": true, "strictObject": true, "looseObject": true}

// schemaShape is the object literal a schema builder call v is called
// with, or an invalid node when v is no such call.
func schemaShape(v syntax.Node) syntax.Node {
	if v.Type() != "call_expression" {
		return syntax.Node{}
	}
	fn := v.Field("function")
	if fn.Type() != "member_expression" || !shapeBuilders[fn.Field("property").Text()] {
		return syntax.Node{}
	}
	for _, a := range v.Field("arguments").NamedChildren() {
		if a.Type() == "comment" {
			continue
		}
		return objectLiteral(a)
	}
	return syntax.Node{}
}

// shapeMembers walks the schema builder call that initializes variable d,
// declaring its shape's keys as d's members.
func (w *walker) shapeMembers(d int32, call syntax.Node) {
	shape := schemaShape(call)
	w.call(call.Field("function"))
	w.callArgs(call.Field("function"), call.Field("arguments"))
	w.node(call.Field("type_arguments"))
	for _, a := range call.Field("arguments").NamedChildren() {
		if shape.Valid() && objectLiteral(a).Same(shape) {
			w.properties(d, shape)
			continue
		}
		w.node(a)
	}
}
