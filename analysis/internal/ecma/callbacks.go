package ecma

import (
	"strconv"

	"github.com/kast-dev/kast/analysis/syntax"
)

// Functions written inside an argument or a typed value rather than as it:
// ky's `ky.post(url, {hooks: {afterResponse: [({response}) => …]}})`. The
// callback context then names the way from the parameter's type to the
// function's: "=>callee#1/hooks/afterResponse/[]" (property hooks, then
// afterResponse, then an element). A destructured parameter's names add
// their key to the parameter's index: "…#0/response".

// maxContext bounds a callback context's length, as callees are bounded.
const maxContext = 200

// contextualValue visits v, written where a value described by ctx (a
// callback context without its parameter index) is expected, marking the
// functions inside its object and array literals with their way there.
func (w *walker) contextualValue(v syntax.Node, ctx string) {
	switch {
	case len(ctx) > maxContext:
		w.node(v)
	case v.Is("arrow_function", "function_expression", "function"):
		w.callback = ctx
		w.node(v)
		w.callback = ""
	case v.Type() == "parenthesized_expression" && len(v.NamedChildren()) == 1:
		w.contextualValue(v.NamedChildren()[0], ctx)
	case v.Type() == "object":
		for _, c := range v.NamedChildren() {
			key := c.Field("key")
			if c.Type() == "pair" && key.Type() == "property_identifier" {
				w.contextualValue(c.Field("value"), ctx+"/"+key.Text())
				continue
			}
			w.node(c)
		}
	case v.Type() == "array":
		for _, c := range v.NamedChildren() {
			w.contextualValue(c, ctx+"/[]")
		}
	default:
		w.node(v)
	}
}

// callbackParam is the context of parameter i of a function whose context
// is callback.
func callbackParam(callback string, i int) string { return callback + "#" + strconv.Itoa(i) }
