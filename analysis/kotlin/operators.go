package kotlin

// Operators that call a function by convention: `x in c` and `x !in c`
// (also `in c` as a `when` branch) call c.contains(x). The use is recorded
// as a call of contains at the operator, qualified by the container, so
// definition and references reach the operator function; rename knows such
// a use by its span being the operator, not the name.

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// containsCall visits a check expression and, for `in`, records the call
// of contains. It reports false when n is an `is` check, left to the
// caller.
func (w *walker) containsCall(n syntax.Node) bool {
	op := n.Child("in", "!in")
	parts := withoutComments(n.NamedChildren())
	if !op.Valid() || len(parts) != 2 {
		return false
	}
	w.children(n)
	w.operatorCall(op, parts[1], "("+valueCode(parts[0])+")")
	return true
}

// rangeTest records `in c` of a `when` branch, whose element is the when's
// subject.
func (w *walker) rangeTest(n syntax.Node) {
	w.children(n)
	parts := withoutComments(n.NamedChildren())
	if op := n.Child("in", "!in"); op.Valid() && len(parts) == 1 {
		w.operatorCall(op, parts[0], "(_)")
	}
}

// operatorCall records a call of contains at op on container.
func (w *walker) operatorCall(op, container syntax.Node, args string) {
	q := extract.Qualifier(container)
	if q == "" || len(q) > maxValue || strings.ContainsAny(q, "{}\n") {
		return
	}
	ref := w.b.RefNamed("contains", op.Span(), analysis.RoleCall, q)
	w.b.Facts.Refs[ref].Args = args
	w.b.Facts.Calls = append(w.b.Facts.Calls, analysis.Call{Caller: w.b.Owner(), Callee: "contains", Site: op.Span(), Ref: ref})
}
