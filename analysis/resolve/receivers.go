package resolve

// Kotlin lambdas with receivers: inside `x.apply {}`, `x.run {}`,
// `with(x) {}` and a builder's `body { }` (a lambda passed to a parameter
// typed `Body.() -> Unit`), `this` is the receiver, and plain names are
// looked up among its members before the enclosing scopes. The extractor
// records the receiver as the Value of a lambda definition owning the
// lambda's scope.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// lambdaMembers are the members named like ref of the receiver of lambda
// definition d, and, when the receiver has none, the Kotlin extension
// functions declared on it.
func (r *Resolver) lambdaMembers(f *analysis.FileFacts, d analysis.Def, ref analysis.Ref, depth int) []Candidate {
	var out []Candidate
	types := r.lambdaReceivers(f, d, depth)
	for _, t := range types {
		out = append(out, r.members(t.Def, ref.Name, ref.Role, confMember*t.Confidence, depth+1)...)
	}
	if len(out) == 0 {
		for _, t := range types {
			if g := r.file(t.Def.Path); g != nil {
				out = append(out, r.ownExtensions(g.Defs[t.Def.Index].Name, ref)...)
			}
		}
	}
	return out
}

// lambdaReceivers are the types `this` has inside lambda definition d.
func (r *Resolver) lambdaReceivers(f *analysis.FileFacts, d analysis.Def, depth int) []Candidate {
	if r.tooDeep(f.Lang, depth) || d.Scope < 0 || int(d.Scope) >= len(f.Scopes) {
		return nil
	}
	// Resolved from outside the lambda: its own receiver is not in scope
	// there.
	at := analysis.Ref{Name: d.Name, Span: d.NameSpan, Role: analysis.RoleRead, Scope: f.Scopes[d.Scope].Parent, Enclosing: d.Container}
	callee, dsl := strings.CutPrefix(d.Value, "λ:")
	if !dsl {
		at.Qualifier = d.Value
		return r.receiverTypes(f, at, depth)
	}
	at.Role = analysis.RoleCall
	callee, argument, passed := strings.Cut(callee, "#")
	at.Qualifier, at.Name = splitQualifier(callee)
	var out []Candidate
	// The callee is resolved in a strictly outer scope: nesting, not
	// depth, bounds builders within builders.
	for _, c := range best(r.resolve(f, at, depth)) {
		if c.Uncertain {
			continue
		}
		g := r.file(c.Def.Path)
		fn := g.Defs[c.Def.Index]
		params, ok := signatureParams(fn)
		if !isCallable(fn.Kind) || !ok || len(params) == 0 {
			continue
		}
		// The last parameter takes a trailing lambda: `Body.() -> Unit`.
		p := params[len(params)-1]
		if passed {
			if k, err := strconv.Atoi(argument); err == nil && k < len(params) {
				p = params[k]
			} else if i := slices.IndexFunc(params, func(x param) bool { return x.name == argument }); i >= 0 {
				p = params[i]
			} else {
				continue
			}
		}
		typ := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.typ), "suspend "))
		typ = strings.TrimSuffix(strings.TrimPrefix(typ, "("), ")?")
		recv, _, ok := strings.Cut(typ, ".(")
		if !ok || recv == "" {
			continue
		}
		for _, t := range r.typesNamed(g, recv, fn.Scope, fn.NameSpan, depth+1) {
			t.Confidence *= c.Confidence
			out = append(out, t)
		}
	}
	return out
}

// lambdaThis is what a plain `this` is at ref when the innermost
// receiver-bearing scope is a lambda with a receiver; false when a class
// or a function comes first.
func (r *Resolver) lambdaThis(f *analysis.FileFacts, ref analysis.Ref, depth int) ([]Candidate, bool) {
	for s := ref.Scope; s != analysis.None && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		owner := f.Scopes[s].Def
		if owner == analysis.None || int(owner) >= len(f.Defs) {
			continue
		}
		d := f.Defs[owner]
		if d.Kind != analysis.KindLambda {
			return nil, false
		}
		if d.Value != "" {
			if t := r.lambdaReceivers(f, d, depth+1); len(t) > 0 {
				return t, true
			}
			return nil, false
		}
	}
	return nil, false
}

// labelledThis is what `this@label` is at ref: the enclosing class of that
// name, or the receiver of the enclosing lambda passed to a function of
// that name (`this@apply`, `this@html`).
func (r *Resolver) labelledThis(f *analysis.FileFacts, ref analysis.Ref, label string, depth int) []Candidate {
	for s := ref.Scope; s != analysis.None && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		owner := f.Scopes[s].Def
		if owner == analysis.None || int(owner) >= len(f.Defs) {
			continue
		}
		d := f.Defs[owner]
		switch {
		case d.Kind.IsType() && d.Name == label:
			return []Candidate{r.candidate(DefID{f.Path, owner}, 1, ViaScope)}
		case d.Kind == analysis.KindLambda && lambdaLabel(d.Value) == label:
			return r.lambdaReceivers(f, d, depth+1)
		}
	}
	for def := ref.Enclosing; def != analysis.None && int(def) < len(f.Defs); def = f.Defs[def].Container {
		if d := f.Defs[def]; d.Kind.IsType() && d.Name == label {
			return []Candidate{r.candidate(DefID{f.Path, def}, 1, ViaScope)}
		}
	}
	return nil
}

// lambdaLabel is the function name a lambda with a receiver is labelled by.
func lambdaLabel(value string) string {
	callee, ok := strings.CutPrefix(value, "λ:")
	if !ok {
		return "" // x.apply {}, with(x) {}: their names are not recorded
	}
	callee, _, _ = strings.Cut(callee, "#")
	_, name := splitQualifier(callee)
	return name
}
