package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Call chains of Kotlin and Java: the receiver of `a.b(x).c()` is what b
// returns, its declared return type; Kotlin's apply and also return their
// own receiver.

// calleeOf splits a qualifier that ends in a call, `a.b(x) { }`, into the
// called path "a.b".
func calleeOf(q string) (string, bool) {
	q = strings.TrimSpace(q)
	if strings.HasSuffix(q, "}") {
		// A trailing lambda: `a.b { }` or `a.b(x) { }`.
		open := openingBefore(q, len(q)-1, '{', '}')
		if open <= 0 {
			return "", false
		}
		q = strings.TrimSpace(q[:open])
		if !strings.HasSuffix(q, ")") {
			return q, isName(q)
		}
	}
	if !strings.HasSuffix(q, ")") {
		return "", false
	}
	open := openingBefore(q, len(q)-1, '(', ')')
	if open <= 0 {
		return "", false
	}
	callee := strings.TrimSpace(q[:open])
	if i := strings.IndexByte(callee, '<'); i > 0 && strings.HasSuffix(callee, ">") {
		callee = callee[:i] // explicit type arguments: `a.get<Foo>()`
	}
	return callee, isName(callee)
}

// openingBefore finds the bracket opening the one closing at end.
func openingBefore(s string, end int, open, close byte) int {
	depth := 0
	for i := end; i >= 0; i-- {
		switch s[i] {
		case close:
			depth++
		case open:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// callResultTypes infers the types a call of callee returns.
func (r *Resolver) callResultTypes(f *analysis.FileFacts, ref analysis.Ref, callee string, depth int) []Candidate {
	if depth > maxDepth {
		return nil
	}
	cref := ref
	cref.Role = analysis.RoleCall
	cref.Qualifier, cref.Name = splitQualifier(callee)
	cref.Args = ""
	if cref.Qualifier != "" && f.Lang == "kotlin" && (cref.Name == "apply" || cref.Name == "also") {
		qref := ref
		qref.Qualifier = cref.Qualifier
		return r.receiverTypes(f, qref, depth+1)
	}
	var out []Candidate
	for _, c := range best(r.resolve(f, cref, depth+1)) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		switch {
		case d.Kind.IsType():
			out = append(out, c)
		case d.Kind == analysis.KindConstructor:
			if d.Container != analysis.None {
				out = append(out, r.candidate(DefID{c.Def.Path, d.Container}, c.Confidence, c.Via))
			}
		case d.TypeName != "":
			for _, t := range r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, depth+1) {
				t.Confidence *= c.Confidence
				out = append(out, t)
			}
		}
	}
	return out
}
