package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Kotlin extensions declared on a type parameter (`fun <T> T.let()`,
// `fun <C, R> C.ifEmpty() where C : Collection<*>`) or on a type known by
// name only: which of them a receiver of a given class can call.

// declaresTypeParam reports whether definition i of f declares a type
// parameter called name.
func declaresTypeParam(f *analysis.FileFacts, i int32, name string) bool {
	d := f.Defs[i]
	for _, p := range f.Defs {
		if p.Kind == analysis.KindTypeParameter && p.Name == name && p.FullSpan.Start >= d.FullSpan.Start && p.FullSpan.End <= d.FullSpan.End {
			return true
		}
	}
	return false
}

// genericExtensions finds the Kotlin extensions called name whose receiver
// is a type parameter, which any receiver has: less sure than a member.
// On a receiver of the class called on (or "" when unknown), one whose
// type parameter is bounded (`fun <T : Command> T.parse()`) is as sure as
// a member when the class is within the bound, and left out when the
// class is a workspace class outside it.
func (r *Resolver) genericExtensions(name string, role analysis.Role, conf float64, on string) []Candidate {
	var out []Candidate
	for _, m := range r.methodsNamed(name) {
		if !m.generic {
			continue
		}
		c := conf * 0.9
		if bound := r.receiverBound(m); bound != "" && on != "" {
			sup := r.supersOf(on)
			_, within := sup.names[bound]
			switch {
			case on == bound || within:
				c = conf
			case sup.known:
				continue
			}
		}
		out = r.add(out, m.id.Path, m.id.Index, c, ViaMember, role)
	}
	return out
}

// receiverBound is the base name of the upper bound of a generic
// extension's receiver type parameter, through bounds that are type
// parameters themselves (`<T : Command<T>, C : T> C.f()`), or "".
func (r *Resolver) receiverBound(m method) string {
	g := r.file(m.id.Path)
	d := g.Defs[m.id.Index]
	name := m.receiver
	for range 4 {
		bound := ""
		for _, p := range g.Defs {
			if p.Kind == analysis.KindTypeParameter && p.Name == name && p.FullSpan.Start >= d.FullSpan.Start && p.FullSpan.End <= d.FullSpan.End {
				bound = baseTypeName(p.TypeName)
				break
			}
		}
		if bound == "" {
			bound = whereBound(g, m.id.Index, name)
		}
		if bound == "" || !declaresTypeParam(g, m.id.Index, bound) {
			return bound
		}
		name = bound
	}
	return ""
}

// whereBound is the bound a Kotlin `where` clause gives type parameter
// name of function i: `where C : Collection<*>, C : R` bounds C by
// Collection, a class, before R, another of the function's type
// parameters, which bounds nothing a receiver can be checked against.
func whereBound(g *analysis.FileFacts, i int32, name string) string {
	_, clause, ok := strings.Cut(g.Defs[i].Signature, " where ")
	if !ok {
		return ""
	}
	if end := topLevelIndex(clause, '{'); end >= 0 {
		clause = clause[:end]
	}
	if end := topLevelIndex(clause, '='); end >= 0 {
		clause = clause[:end]
	}
	bound := ""
	for _, part := range splitParams(clause) {
		lhs, rhs, ok := strings.Cut(part, ":")
		if !ok || strings.TrimSpace(lhs) != name {
			continue
		}
		b := baseTypeName(strings.TrimSpace(rhs))
		if !declaresTypeParam(g, i, b) {
			return b
		}
		if bound == "" {
			bound = b
		}
	}
	return bound
}

// extensionsOnWritten finds extensions for `q.name` where q's type is
// known by name only, a type no workspace file declares (String, a
// library class): those declared on that receiver name, or generic.
func (r *Resolver) extensionsOnWritten(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	var out []Candidate
	written := r.writtenTypes(f, ref, depth)
	for _, t := range written {
		base := baseTypeName(t)
		for _, m := range r.methodsNamed(ref.Name) {
			if m.receiver == base {
				out = r.add(out, m.id.Path, m.id.Index, confMember*0.9, ViaMember, ref.Role)
			}
		}
	}
	if len(out) == 0 {
		// A generic extension (`fun <T> T.log()`) fits any receiver; one
		// of unknown type less surely.
		conf := confMember
		if len(written) == 0 {
			conf = 0.65
		}
		out = r.genericExtensions(ref.Name, ref.Role, conf, "")
	}
	return out
}
