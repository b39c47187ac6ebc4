package ecma

import (
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// TypeScript's narrowing as analysis.Cast facts: where a check holds, a
// name has the type the check proves. `x instanceof T` gives T itself; a
// `typeof x === "k"` or `Array.isArray(x)` check gives "=k" where it
// holds and "!k" where it fails, which the resolver applies to x's
// declared union ("!number" of `number | Options` is Options). A branch
// that always leaves (return, throw, break, continue) proves the check
// failed for the rest of the block. A check of a discriminant,
// `x.kind === "a"` or `switch (x.kind) { case "a": … }`, gives "#kind=a"
// where it holds and "#kind!a" where it fails (a truth test `x.ok` is
// "#ok!false", and `!x.ok` "#ok=false"), which the resolver applies
// to the arms of x's union (a `case` that falls through adds its literal:
// "#kind=a|b"; `default` fails every case).

// guard is what a condition proves of one name.
type guard struct{ name, typ string }

// narrowing records the guards of an if statement's or a conditional
// expression's condition in its branches.
func (w *walker) narrowing(n syntax.Node) {
	cond := n.Field("condition")
	then, alt := n.Field("consequence"), n.Field("alternative")
	w.cast(guards(cond, true), then.Span())
	if alt.Valid() {
		w.cast(guards(cond, false), alt.Span())
	}
	if n.Type() == "if_statement" && leaves(then) {
		if block := n.Parent(); block.Valid() {
			w.cast(guards(cond, false), analysis.Span{Start: n.End(), End: block.End()})
		}
	}
}

// operandNarrowing records what the left operand of `&&` proves in the
// right one when it holds (`typeof v === "object" && v.message`), and what
// that of `||` proves when it fails.
func (w *walker) operandNarrowing(n syntax.Node) {
	switch n.Field("operator").Text() {
	case "&&":
		w.cast(guards(n.Field("left"), true), n.Field("right").Span())
	case "||":
		w.cast(guards(n.Field("left"), false), n.Field("right").Span())
	}
}

func (w *walker) cast(gs []guard, at analysis.Span) {
	if at.End <= at.Start {
		return
	}
	for _, g := range gs {
		w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Name: g.name, Type: g.typ, Span: at})
	}
}

// guards is what cond proves when it evaluates to holds.
func guards(cond syntax.Node, holds bool) []guard {
	for cond.Type() == "parenthesized_expression" && len(cond.NamedChildren()) == 1 {
		cond = cond.NamedChildren()[0]
	}
	switch cond.Type() {
	case "unary_expression":
		if cond.Field("operator").Text() == "!" {
			return guards(cond.Field("argument"), !holds)
		}
	case "member_expression":
		// `if (r.success)`: a boolean discriminant tested for truth
		// (zod's `ZodSafeParseResult`).
		if obj, key := discriminant(cond); obj != "" {
			if holds {
				return []guard{{obj, "#" + key + "!false"}}
			}
			return []guard{{obj, "#" + key + "=false"}}
		}
	case "binary_expression":
		left, right := cond.Field("left"), cond.Field("right")
		switch op := cond.Field("operator").Text(); op {
		case "&&":
			if holds {
				return append(guards(left, true), guards(right, true)...)
			}
		case "||":
			if !holds {
				return append(guards(left, false), guards(right, false)...)
			}
		case "in":
			// `"message" in v`: v has that key (InKeyPrefix).
			if key := stringLiteral(left); holds && key != "" && right.Type() == "identifier" {
				return []guard{{right.Text(), analysis.InKeyPrefix + key}}
			}
		case "instanceof":
			if holds && left.Type() == "identifier" && right.Type() == "identifier" {
				return []guard{{left.Text(), right.Text()}}
			}
		case "===", "==", "!==", "!=":
			if right.Type() == "unary_expression" {
				left, right = right, left
			}
			name, kind := typeofName(left), stringLiteral(right)
			if right.Is("true", "false") {
				kind = right.Type()
			}
			if name == "" && kind != "" {
				if obj, key := discriminant(left); obj != "" {
					if holds == (op == "===" || op == "==") {
						return []guard{{obj, "#" + key + "=" + kind}}
					}
					return []guard{{obj, "#" + key + "!" + kind}}
				}
			}
			if name == "" || kind == "" {
				return nil
			}
			if holds == (op == "===" || op == "==") {
				return []guard{{name, "=" + kind}}
			}
			return []guard{{name, "!" + kind}}
		}
	case "call_expression":
		// Array.isArray(x)
		args := cond.Field("arguments").NamedChildren()
		if cond.Field("function").Text() == "Array.isArray" && len(args) == 1 && args[0].Type() == "identifier" {
			if holds {
				return []guard{{args[0].Text(), "=array"}}
			}
			return []guard{{args[0].Text(), "!array"}}
		}
		return predicateGuards(cond, holds)
	}
	return nil
}

// predicateGuards is what a call `isError(x)` proves of its arguments
// where it holds, should its callee's result be a type predicate (`value
// is Error`), which the resolver reads (analysis.PredicatePrefix).
func predicateGuards(call syntax.Node, holds bool) []guard {
	callee := call.Field("function")
	if !holds || !callee.Is("identifier", "member_expression") || len(callee.Text()) > 100 || strings.ContainsAny(callee.Text(), "()[]\n") {
		return nil
	}
	var out []guard
	for i, a := range call.Field("arguments").NamedChildren() {
		if a.Type() == "identifier" {
			out = append(out, guard{a.Text(), analysis.PredicatePrefix + callee.Text() + "#" + strconv.Itoa(i)})
		}
	}
	return out
}

// discriminant is x and k of a member read `x.k` whose object is a name,
// or "".
func discriminant(n syntax.Node) (obj, key string) {
	if n.Type() != "member_expression" {
		return "", ""
	}
	o, p := n.Field("object"), n.Field("property")
	if o.Type() != "identifier" || p.Type() != "property_identifier" {
		return "", ""
	}
	return o.Text(), p.Text()
}

// switchNarrowing records what each case of `switch (x.k)` proves of x in
// the case's statements: the literals of the cases that reach them, or
// in default, none of the cases' literals.
func (w *walker) switchNarrowing(n syntax.Node) {
	value := n.Field("value")
	for value.Type() == "parenthesized_expression" && len(value.NamedChildren()) == 1 {
		value = value.NamedChildren()[0]
	}
	obj, key := discriminant(value)
	body := n.Field("body")
	if obj == "" || !body.Valid() {
		return
	}
	var all, reaching []string
	for _, c := range body.NamedChildren() {
		switch c.Type() {
		case "switch_case":
			lit := stringLiteral(c.Field("value"))
			if lit == "" {
				return // a case of another kind: what reaches the others is unknown
			}
			all = append(all, lit)
			reaching = append(reaching, lit)
			if start := caseStatementsStart(c); start >= 0 {
				w.cast([]guard{{obj, "#" + key + "=" + strings.Join(reaching, "|")}}, w.b.Span(start, c.End()))
				reaching = nil
			}
		case "switch_default":
			if start := caseStatementsStart(c); start >= 0 && len(reaching) == 0 && len(all) > 0 {
				w.cast([]guard{{obj, "#" + key + "!" + strings.Join(all, "|")}}, w.b.Span(start, c.End()))
			}
		}
	}
}

// caseStatementsStart is where a case's statements begin, or -1 when it
// has none (it falls through to the next).
func caseStatementsStart(c syntax.Node) int {
	for _, s := range c.NamedChildren() {
		if s.Type() != "comment" && !s.Same(c.Field("value")) {
			return s.Start()
		}
	}
	return -1
}

// typeofName is x of `typeof x`, or "".
func typeofName(n syntax.Node) string {
	if n.Type() != "unary_expression" || n.Field("operator").Text() != "typeof" {
		return ""
	}
	if arg := n.Field("argument"); arg.Type() == "identifier" {
		return arg.Text()
	}
	return ""
}

// stringLiteral is the text of a one-word string literal, or "".
func stringLiteral(n syntax.Node) string {
	if n.Type() != "string" {
		return ""
	}
	s := strings.Trim(n.Text(), "\"'`")
	if s == "" || strings.ContainsAny(s, " \\\"'") {
		return ""
	}
	return s
}

// leaves reports whether a branch always leaves the block it is in: it is,
// or its block ends with, a return, throw, break or continue.
func leaves(n syntax.Node) bool {
	if n.Type() == "statement_block" {
		kids := n.NamedChildren()
		for len(kids) > 0 && kids[len(kids)-1].Type() == "comment" {
			kids = kids[:len(kids)-1]
		}
		if len(kids) == 0 {
			return false
		}
		n = kids[len(kids)-1]
	}
	return n.Is("return_statement", "throw_statement", "break_statement", "continue_statement")
}

// localExports records a local export clause, `export { a, b as c }`:
// a is exported, and c is an import of the file's own b (an Import without
// a path), which a re-export's resolution follows (vitest exports its
// `globalExpect` as expect).
func (w *walker) localExports(clause syntax.Node) {
	for _, s := range clause.ChildrenOf("export_specifier") {
		name, alias := s.Field("name"), s.Field("alias")
		if name.Type() != "identifier" {
			continue
		}
		if alias.Valid() && alias.Text() != name.Text() {
			// Organizing imports leaves these be (imports.importStatements).
			w.b.Facts.Imports = append(w.b.Facts.Imports, analysis.Import{Name: name.Text(), Alias: alias.Text(), Span: s.Span()})
		} else {
			w.exported = append(w.exported, name.Text())
		}
	}
}

// markDefaultExports makes what a local export clause names public and
// gives the top-level declarations that `export = x`
// or `export default x` names the visibility "default": an import of the
// module's default binds them, whatever the importer calls it (express's
// `declare function e` and `declare namespace e`).
func (w *walker) markDefaultExports() {
	for _, name := range w.exported {
		for i := range w.b.Facts.Defs {
			if d := &w.b.Facts.Defs[i]; d.Name == name && d.Container == analysis.None && d.Visibility == "private" {
				d.Visibility = "public"
			}
		}
	}
	for _, name := range w.exportedAs {
		for i := range w.b.Facts.Defs {
			if d := &w.b.Facts.Defs[i]; d.Name == name && d.Visibility != "public" && (d.Container == analysis.None || w.b.Facts.Defs[d.Container].Kind == analysis.KindModule) {
				d.Visibility = "default"
			}
		}
	}
}

// cmpNode is the first valid node.
func cmpNode(ns ...syntax.Node) syntax.Node {
	for _, n := range ns {
		if n.Valid() {
			return n
		}
	}
	return syntax.Node{}
}

// callSignatures is an interface's call signatures as an object type,
// "{ (a: A): R; … }", or "" when it has none: what a value of the
// interface is called with (express's RequestHandler).
func callSignatures(body syntax.Node) string {
	var sigs []string
	for _, c := range body.ChildrenOf("call_signature") {
		sigs = append(sigs, strings.Join(strings.Fields(withoutComments(c.Text())), " "))
	}
	if len(sigs) == 0 {
		return ""
	}
	return "{ " + strings.Join(sigs, "; ") + " }"
}

// withoutComments is TypeScript text without its comments.
func withoutComments(s string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote && s[i-1] != '\\' {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
