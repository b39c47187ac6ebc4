package python

import (
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Control flow the resolver reads, recorded as analysis.Cast:
//   - narrowing: inside `if isinstance(x, T):` (and after `assert
//     isinstance(x, T)`) the name x has T's members, Cast{Name: "x",
//     Type: "T"}; a tuple of classes is their union, "A | B".
//   - static conditions: a block under a condition on sys.version_info,
//     sys.platform or TYPE_CHECKING runs only when the condition holds for
//     the project's interpreter, Cast{Name: "", Type: condition}; the
//     resolver evaluates it (type checkers treat the other branch as
//     unreachable and answer nothing there).

// ifStatement records the casts of an if statement's branches, then walks
// it.
func (w *walker) ifStatement(n syntax.Node) {
	var earlier []string // the static conditions of the branches before
	branch := func(cond, body syntax.Node) {
		for _, c := range earlier {
			w.staticCast("not ("+c+")", body)
		}
		if !cond.Valid() {
			return
		}
		if static := staticCondition(cond); static != "" {
			w.staticCast(static, body)
			earlier = append(earlier, static)
		}
		w.narrowing(cond, body.Span())
	}
	branch(n.Field("condition"), n.Field("consequence"))
	w.guardNarrowing(n)
	for _, alt := range n.NamedChildren() {
		switch alt.Type() {
		case "elif_clause":
			branch(alt.Field("condition"), alt.Field("consequence"))
		case "else_clause":
			branch(syntax.Node{}, alt.Field("body"))
		}
	}
	w.children(n)
}

// guardNarrowing narrows for the rest of the block after `if not
// isinstance(x, T):` whose body always leaves it (ends in return, raise,
// continue or break) and which has no other branch: x is a T there.
func (w *walker) guardNarrowing(n syntax.Node) {
	cond, body, block := n.Field("condition"), n.Field("consequence"), n.Parent()
	if cond.Type() != "not_operator" || n.Child("elif_clause", "else_clause").Valid() || !block.Valid() || !body.Valid() {
		return
	}
	kids := body.NamedChildren()
	if len(kids) == 0 {
		return
	}
	switch kids[len(kids)-1].Type() {
	case "return_statement", "raise_statement", "continue_statement", "break_statement":
		w.narrowing(cond.Field("argument"), w.b.Span(n.End(), block.End()))
	}
}

// assertStatement narrows for the rest of the block the assert is in; an
// assert of a static condition (`assert sys.platform == "win32"`) makes
// the rest of the block unreachable where it is false.
func (w *walker) assertStatement(n syntax.Node) {
	if kids := n.NamedChildren(); len(kids) > 0 {
		if block := n.Parent(); block.Valid() {
			rest := w.b.Span(n.End(), block.End())
			w.narrowing(kids[0], rest)
			if static := staticCondition(kids[0]); static != "" {
				w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Type: static, Span: rest})
			}
		}
	}
	w.children(n)
}

// jump makes the rest of the block after a raise, return, continue or
// break unreachable, as type checkers read it: `raise ImportError()` at
// a module's top leaves the names after it unbound.
func (w *walker) jump(n syntax.Node) {
	if block := n.Parent(); block.Valid() && n.End() < block.End() {
		w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Type: "False", Span: w.b.Span(n.End(), block.End())})
	}
	w.children(n)
}

func (w *walker) staticCast(cond string, body syntax.Node) {
	if body.Valid() {
		w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Type: cond, Span: body.Span()})
	}
}

// expressionNarrowing records the narrowing of an expression's operand by
// a condition that holds where it is evaluated: `a if isinstance(x, T)
// else b` narrows x in a, `isinstance(x, T) and b` in b.
func (w *walker) expressionNarrowing(n syntax.Node) {
	switch kids := n.NamedChildren(); n.Type() {
	case "conditional_expression":
		if len(kids) == 3 {
			w.narrowing(kids[1], kids[0].Span())
		}
	case "boolean_operator":
		if strings.TrimSpace(n.Child("and").Text()) == "and" {
			w.narrowing(n.Field("left"), n.Field("right").Span())
		}
	}
}

// narrowing records `isinstance(x, T)` (alone or as an operand of `and`)
// as a cast of x over span.
func (w *walker) narrowing(cond syntax.Node, span analysis.Span) {
	switch cond.Type() {
	case "parenthesized_expression":
		for _, c := range cond.NamedChildren() {
			w.narrowing(c, span)
		}
	case "boolean_operator":
		if strings.TrimSpace(cond.Child("and").Text()) == "and" {
			w.narrowing(cond.Field("left"), span)
			w.narrowing(cond.Field("right"), span)
		}
	case "call":
		if cond.Field("function").Text() != "isinstance" {
			return
		}
		args := cond.Field("arguments").NamedChildren()
		if len(args) != 2 || args[0].Type() != "identifier" {
			return
		}
		if t := classesText(args[1]); t != "" {
			w.b.Facts.Casts = append(w.b.Facts.Casts, analysis.Cast{Name: args[0].Text(), Type: t, Span: span})
		}
	}
}

// classesText is the type isinstance's second argument checks: a dotted
// class name, or a union of a tuple's; "" for anything else.
func classesText(n syntax.Node) string {
	switch n.Type() {
	case "identifier", "attribute":
		if isDotted(n) {
			return n.Text()
		}
	case "tuple", "parenthesized_expression":
		var arms []string
		for _, c := range n.NamedChildren() {
			t := classesText(c)
			if t == "" {
				return ""
			}
			arms = append(arms, t)
		}
		return strings.Join(arms, " | ")
	}
	return ""
}

// staticCondition is the text of a condition a type checker evaluates
// without running the code (on sys.version_info, sys.platform or
// TYPE_CHECKING), with its whitespace collapsed; "" otherwise.
func staticCondition(cond syntax.Node) string {
	t := strings.Join(strings.Fields(cond.Text()), " ")
	if strings.Contains(t, "sys.version_info") || strings.Contains(t, "sys.platform") || strings.Contains(t, "TYPE_CHECKING") {
		return t
	}
	return ""
}

// loopTarget declares a for loop's variables with what they are elements
// of, as a Def.Value the resolver reads: "xs[]" an element of xs,
// "d.items()[]#1" the second of each pair of d.items().
func (w *walker) loopTarget(left syntax.Node, iterated string) {
	if iterated == "" {
		w.target(left, analysis.RoleWrite, "")
		return
	}
	switch left.Type() {
	case "identifier":
		w.value = iterated + "[]"
		w.target(left, analysis.RoleWrite, "")
	case "pattern_list", "tuple_pattern":
		for i, c := range left.NamedChildren() {
			if c.Type() == "identifier" {
				w.value = iterated + "[]#" + strconv.Itoa(i)
			}
			w.target(c, analysis.RoleWrite, "")
			w.value = ""
		}
	default:
		w.target(left, analysis.RoleWrite, "")
	}
	w.value = ""
}

// iteratedValue is what a loop iterates as a chain the resolver follows:
// a dotted name, or a call of one (a mapping's items(), s.split(",")); ""
// otherwise.
func iteratedValue(n syntax.Node) string {
	if isDotted(n) {
		return n.Text()
	}
	if n.Type() != "call" || !isChain(n.Field("function")) {
		return ""
	}
	// list(x), sorted(x), set(x)… hold what x iterates: `for m in
	// list(sys.modules)` goes over the mapping's keys.
	if sameElements[n.Field("function").Text()] {
		if args := n.Field("arguments").NamedChildren(); len(args) > 0 && args[0].Type() != "keyword_argument" {
			if inner := iteratedValue(args[0]); inner != "" {
				return inner
			}
		}
	}
	// What the call returns, iterated: s.split(",") is a list[str].
	return extract.Qualifier(n.Field("function")) + "()"
}

// sameElements are the built-in functions whose result iterates the
// elements of their first argument.
var sameElements = map[string]bool{"list": true, "sorted": true, "set": true, "frozenset": true, "tuple": true,
	"reversed": true, "iter": true}
