package kotlin

import (
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// What a lambda's parameter is, from the call the lambda is passed to:
// `xs.forEach { it }` iterates xs, so `it` is an element ("xs[]");
// `x.let { it }` passes x itself.

// elementFns are the standard functions whose lambda takes an element of
// their receiver.
var elementFns = map[string]bool{
	"forEach": true, "map": true, "mapNotNull": true, "filter": true, "filterNot": true, "any": true,
	"all": true, "none": true, "first": true, "firstOrNull": true, "last": true, "lastOrNull": true,
	"find": true, "onEach": true, "flatMap": true, "sortedBy": true, "sortedByDescending": true,
	"groupBy": true, "associateBy": true, "associateWith": true, "count": true, "sumOf": true,
	"maxByOrNull": true, "minByOrNull": true, "maxOf": true, "minOf": true, "takeWhile": true,
	"dropWhile": true, "partition": true, "single": true, "singleOrNull": true, "distinctBy": true,
	"mapTo": true, "filterTo": true, "forEachOrdered": true, "removeIf": true, "removeAll": true,
}

// selfFns pass their receiver to their lambda.
var selfFns = map[string]bool{"let": true, "also": true, "takeIf": true, "takeUnless": true, "use": true}

// lambdaArgValue is the value of the first parameter of lambda n, or "".
func lambdaArgValue(n syntax.Node) string {
	call := n.Parent()
	if call.Type() == "annotated_lambda" {
		call = call.Parent()
	}
	if call.Type() != "call_suffix" {
		return ""
	}
	call = call.Parent()
	parts := withoutComments(call.NamedChildren())
	if call.Type() != "call_expression" || len(parts) < 2 || parts[0].Type() != "navigation_expression" {
		return ""
	}
	nav := withoutComments(parts[0].NamedChildren())
	if len(nav) != 2 {
		return ""
	}
	receiver := qualifierText(nav[0])
	if len(receiver) > maxValue {
		return ""
	}
	switch name := nav[1].Child("simple_identifier").Text(); {
	case elementFns[name]:
		return receiver + "[]"
	case selfFns[name]:
		return receiver
	}
	return ""
}

// calleeOfArgument is the text of the function or class a value argument
// is passed to: `f`, `a.b.f`, or the type of a supertype's constructor call.
func calleeOfArgument(arg syntax.Node) string {
	list := arg.Parent()
	if list.Type() != "value_arguments" {
		return ""
	}
	switch owner := list.Parent(); owner.Type() {
	case "call_suffix":
		parts := withoutComments(owner.Parent().NamedChildren())
		if len(parts) > 0 && parts[0].Is("simple_identifier", "navigation_expression") {
			if text := extract.Qualifier(parts[0]); len(text) <= maxValue {
				return text
			}
		}
	case "constructor_invocation":
		return typeText(owner.Child("user_type"))
	}
	return ""
}
