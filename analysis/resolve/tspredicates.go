package resolve

import (
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript's type predicates: a call `isError(x)` that holds (in an `if`,
// the right of `&&`) narrows x to T when isError's written result is
// `value is T` and value is the parameter x is passed to. The extractor
// records such calls as casts "is:callee#i" (analysis.PredicatePrefix);
// whether the callee is a predicate is known only once it is resolved.

// predicateNarrowed is the type the innermost type predicate that holds at
// ref gives qualifier q, with the file, scope and place to resolve it
// from; g is nil when no call that holds there is a predicate of q.
func (r *Resolver) predicateNarrowed(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) (t string, g *analysis.FileFacts, scope int32, at analysis.Span) {
	if !ecmaLang(f.Lang) || !isName(q) || strings.Contains(q, ".") || r.tooDeep(f.Lang, depth+1) {
		return "", nil, 0, analysis.Span{}
	}
	best := -1
	for i, c := range f.Casts {
		if c.Name != q || !c.Span.Contains(ref.Span.Start) || !strings.HasPrefix(c.Type, analysis.PredicatePrefix) {
			continue
		}
		if best >= 0 && c.Span.End-c.Span.Start >= f.Casts[best].Span.End-f.Casts[best].Span.Start {
			continue
		}
		if pt, pg, ps, pat := r.predicateType(f, ref, c.Type, depth); pg != nil {
			best, t, g, scope, at = i, pt, pg, ps, pat
		}
	}
	return t, g, scope, at
}

// predicateType is the type that call cast "is:callee#i" proves of its
// i-th argument, should the callee's written result be a predicate on its
// i-th parameter.
func (r *Resolver) predicateType(f *analysis.FileFacts, ref analysis.Ref, cast string, depth int) (string, *analysis.FileFacts, int32, analysis.Span) {
	callee, index, ok := strings.Cut(strings.TrimPrefix(cast, analysis.PredicatePrefix), "#")
	arg, err := strconv.Atoi(index)
	if !ok || err != nil {
		return "", nil, 0, analysis.Span{}
	}
	cref := ref
	cref.Role, cref.Args = analysis.RoleRead|analysis.RoleCall, ""
	cref.Qualifier, cref.Name = "", callee
	if i := strings.LastIndexByte(callee, '.'); i >= 0 {
		cref.Qualifier, cref.Name = callee[:i], callee[i+1:]
	}
	for _, c := range best(r.resolve(f, cref, depth+1)) {
		g, d, ok := r.entry(c.Def)
		if !ok || c.Confidence < r.threshold || d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
			continue
		}
		subject, typ, ok := strings.Cut(d.TypeName, " is ")
		if !ok || strings.HasPrefix(subject, "asserts ") {
			continue
		}
		params, ok := tsParamList(d)
		if !ok {
			continue
		}
		list := splitTopLevel(params)
		if arg >= len(list) || paramName(list[arg]) != strings.TrimSpace(subject) {
			continue
		}
		return strings.TrimSpace(typ), g, d.Scope, d.NameSpan
	}
	return "", nil, 0, analysis.Span{}
}

// paramName is the name a TypeScript parameter `value?: T = x` declares.
func paramName(p string) string {
	p = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p), "..."))
	end := strings.IndexAny(p, ":?=")
	if end < 0 {
		end = len(p)
	}
	return strings.TrimSpace(p[:end])
}
