package resolve

import "github.com/kast-dev/kast/analysis"

// pythonClassAlias replaces a base class found as a module variable bound
// to a class by that class: typeshed's builtins.pyi declares `IOError =
// OSError`, and `class RequestException(IOError)` has OSError's members.
// A definition of IOError itself still lands on the variable, as pyright's
// does.
func (r *Resolver) pythonClassAlias(c []Candidate, depth int) []Candidate {
	if len(c) != 1 || c[0].Confidence < r.threshold {
		return c
	}
	g, d, ok := r.entry(c[0].Def)
	if !ok || g.Lang != "python" || d.Kind != analysis.KindVariable || d.Container != analysis.None ||
		d.Value == "" || d.TypeName != "" || !isName(d.Value) || r.tooDeep(g.Lang, depth+1) {
		return c
	}
	var out []Candidate
	for _, t := range r.typesNamed(g, d.Value, d.Scope, d.NameSpan, depth+1) {
		if h, td, ok := r.entry(t.Def); ok && h.Lang == "python" && td.Kind.IsType() && t.Def != c[0].Def {
			t.Confidence = min(t.Confidence, c[0].Confidence)
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return c
	}
	return out
}

// pythonBuiltinClassAliases finds a built-in name used as a type that
// builtins.pyi binds to a class (IOError, EnvironmentError): the variable,
// where pyright's definition lands too.
func (r *Resolver) pythonBuiltinClassAliases(ref analysis.Ref, depth int) []Candidate {
	read := ref
	read.Role = analysis.RoleRead
	var out []Candidate
	for _, c := range r.builtins(read) {
		if a := r.pythonClassAlias([]Candidate{c}, depth); len(a) > 0 && a[0].Def != c.Def {
			out = append(out, c)
		}
	}
	return out
}
