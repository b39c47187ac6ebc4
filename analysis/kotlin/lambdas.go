package kotlin

import (
	"fmt"

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
	"mapValues": true, "mapKeys": true, // a map's elements are its entries
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

// receiverFns run their lambda with their receiver as `this`.
var receiverFns = map[string]bool{"apply": true, "run": true}

// lambdaReceiverValue is what `this` is inside lambda n, as a Def.Value:
// the receiver of `x.apply {}` and `x.run {}`, the argument of
// `with(x) {}`, or for a lambda passed to another function, "λ:" and the
// callee's text, whose parameter type (`Body.() -> Unit`) tells the
// resolver: the last parameter for a trailing lambda, else "#k" (the k-th
// argument) or "#name" (a named one). "" when the lambda has no receiver
// of its own.
func lambdaReceiverValue(n syntax.Node) string {
	suffix := n.Parent()
	argument := "" // "#k" or "#name" for a lambda passed in parentheses
	switch suffix.Type() {
	case "annotated_lambda":
		suffix = suffix.Parent()
	case "value_argument":
		list := suffix.Parent()
		args := withoutComments(list.NamedChildren())
		for i, a := range args {
			if a.Start() == suffix.Start() {
				argument = fmt.Sprintf("#%d", i)
			}
		}
		if label := suffix.Child("simple_identifier"); label.Valid() {
			argument = "#" + label.Text()
		}
		suffix = list.Parent()
	}
	if suffix.Type() != "call_suffix" {
		return ""
	}
	parts := withoutComments(suffix.Parent().NamedChildren())
	if suffix.Parent().Type() != "call_expression" || len(parts) < 2 {
		return ""
	}
	var name, receiver string
	callee := parts[0]
	if callee.Type() == "call_expression" {
		// `with(x) { }` parses as a call of the call `with(x)`.
		inner := withoutComments(callee.NamedChildren())
		if len(inner) != 2 || inner[0].Type() != "simple_identifier" || inner[0].Text() != "with" {
			return ""
		}
		callee, suffix = inner[0], inner[1]
	}
	switch callee.Type() {
	case "simple_identifier":
		name = callee.Text()
	case "navigation_expression":
		nav := withoutComments(callee.NamedChildren())
		if len(nav) != 2 {
			return ""
		}
		name, receiver = nav[1].Child("simple_identifier").Text(), qualifierText(nav[0])
	default:
		return ""
	}
	var out string
	switch {
	case name == "":
		return ""
	case argument != "" && (receiverFns[name] || name == "with"):
		return "" // run({ }) and with(x, { }) are rare; not followed
	case receiver != "" && receiverFns[name]:
		out = receiver
	case receiver == "" && name == "with":
		args := suffix.Child("value_arguments").NamedChildren()
		if len(args) != 1 {
			return ""
		}
		inner := withoutComments(args[0].NamedChildren())
		if len(inner) == 0 {
			return ""
		}
		out = qualifierText(inner[len(inner)-1])
	case elementFns[name], selfFns[name], receiverFns[name], name == "with":
		return "" // `it` is the parameter, or `this` stays the enclosing one
	case receiver != "":
		out = "λ:" + receiver + "." + name + argument
	default:
		out = "λ:" + name + argument
	}
	if len(out) > maxValue {
		return ""
	}
	return out
}
