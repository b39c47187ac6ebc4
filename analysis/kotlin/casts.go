package kotlin

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Smart casts: where a check has told the compiler that a variable is of a
// narrower type, its members are that type's. The checks followed are
// `if (x is T)` (through `&&`, for the rest of the condition and the then
// branch), `if (x !is T) return` (for the rest of the block), and `when`
// branches `is T ->`, with a subject or with `x is T` conditions.

// ifCasts records the smart casts an if expression makes.
func (w *walker) ifCasts(n syntax.Node) {
	parts := withoutComments(n.NamedChildren())
	if len(parts) < 2 {
		return
	}
	cond, then := parts[0], parts[1]
	if then.Type() != "control_structure_body" {
		return
	}
	for _, c := range positiveChecks(cond) {
		w.cast(c, analysis.Span{Start: c.End(), End: cond.End()})
		w.cast(c, then.Span())
	}
	// `if (x !is T) return`: x is a T after it, to the end of its block.
	if len(parts) == 2 && cond.Type() == "check_expression" && isNegated(cond) && exits(then) {
		if block := n.Parent(); block.Type() == "statements" && n.End() < block.End() {
			w.cast(cond, analysis.Span{Start: n.End(), End: block.End()})
		}
	}
}

// whenCasts records the smart casts of a when expression's branches.
func (w *walker) whenCasts(n syntax.Node) {
	subject := ""
	if s := n.Child("when_subject"); s.Valid() {
		parts := withoutComments(s.NamedChildren())
		if len(parts) != 1 || parts[0].Type() != "simple_identifier" {
			return // `when (val x = f())` declares its own variable
		}
		subject = parts[0].Text()
	}
	for _, entry := range n.ChildrenOf("when_entry") {
		body := entry.Child("control_structure_body")
		conds := entry.ChildrenOf("when_condition")
		if !body.Valid() || len(conds) != 1 {
			continue // `is A, is B ->` narrows to neither
		}
		for _, c := range withoutComments(conds[0].NamedChildren()) {
			switch {
			case c.Type() == "type_test" && subject != "" && !strings.HasPrefix(c.Text(), "!"):
				if t := c.Child("user_type", "nullable_type"); t.Valid() {
					w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Name: subject, Type: typeText(t), Span: body.Span()})
				}
			case subject == "":
				for _, check := range positiveChecks(c) {
					w.cast(check, body.Span())
				}
			}
		}
	}
}

// positiveChecks lists the `x is T` checks that hold when cond does: cond
// itself or the operands of its `&&`s.
func positiveChecks(cond syntax.Node) []syntax.Node {
	switch cond.Type() {
	case "check_expression":
		if !isNegated(cond) {
			return []syntax.Node{cond}
		}
	case "conjunction_expression", "parenthesized_expression":
		var out []syntax.Node
		for _, c := range withoutComments(cond.NamedChildren()) {
			out = append(out, positiveChecks(c)...)
		}
		return out
	}
	return nil
}

// isNegated reports whether a check expression is `x !is T`.
func isNegated(check syntax.Node) bool {
	parts := withoutComments(check.NamedChildren())
	if len(parts) != 2 {
		return false
	}
	src := check.Text()
	between := src[parts[0].End()-check.Start() : parts[1].Start()-check.Start()]
	return strings.Contains(between, "!is")
}

// exits reports whether a branch body always leaves its block: a return,
// throw, break or continue.
func exits(body syntax.Node) bool {
	parts := withoutComments(body.NamedChildren())
	if len(parts) == 1 && parts[0].Type() == "statements" {
		parts = withoutComments(parts[0].NamedChildren())
	}
	return len(parts) == 1 && parts[0].Type() == "jump_expression"
}

// cast records check `x is T` (or `x !is T`) as making x a T over span.
func (w *walker) cast(check syntax.Node, span analysis.Span) {
	parts := withoutComments(check.NamedChildren())
	if span.End <= span.Start || len(parts) != 2 || parts[0].Type() != "simple_identifier" || !parts[1].Is("user_type", "nullable_type") {
		return
	}
	w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Name: parts[0].Text(), Type: typeText(parts[1]), Span: w.b.Span(span.Start, span.End)})
}
