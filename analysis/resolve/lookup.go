package resolve

import "github.com/kast-dev/kast/analysis"

// Lookups for editor features (completion, type definition) that start from
// a place or a definition rather than from a reference.

// BaseTypeName is a written type's base name, without qualifier or type
// arguments ("List" for "java.util.List<T>").
func BaseTypeName(t string) string { return baseTypeName(t) }

// TypeOf resolves the declared type of a property, field, variable or
// parameter, or the return type of a function; a type resolves to itself.
func (r *Resolver) TypeOf(def DefID) []Candidate {
	f := r.file(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return nil
	}
	d := f.Defs[def.Index]
	if d.Kind.IsType() {
		return []Candidate{r.candidate(def, 1, ViaSelf)}
	}
	if d.TypeName == "" {
		return nil
	}
	return r.finish(def.Path, r.typesNamed(f, d.TypeName, d.Scope, d.NameSpan, 0))
}

// ReceiverTypes infers the type definitions that qualifier ("this", "p",
// "Foo()", "a.b") denotes at span of file, seen from scope inside the
// definition enclosing: the types whose members may follow a dot there.
func (r *Resolver) ReceiverTypes(file, qualifier string, scope, enclosing int32, at analysis.Span) []Candidate {
	f := r.file(file)
	if f == nil {
		return nil
	}
	ref := analysis.Ref{Span: at, Role: analysis.RoleRead, Scope: scope, Enclosing: enclosing, Qualifier: qualifier}
	return r.finish(file, r.receiverTypes(f, ref, 0))
}
