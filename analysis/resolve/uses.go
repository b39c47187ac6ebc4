package resolve

// FileUses resolves every reference of the file at path and returns those
// whose best candidates are visible beyond a body and have the reference's
// name, by candidate: what References would find in this file for each. Uses of Go's
// predeclared identifiers are left out, as references to them are not
// listed; so are uses of parameters and locals, which References finds in
// their own file.
func (r *Resolver) FileUses(path string) map[DefID][]Reference {
	f := r.file(path)
	if f == nil {
		return nil
	}
	out := map[DefID][]Reference{}
	local := map[DefID]bool{}
	for i, ref := range f.Refs {
		id := RefID{path, int32(i)}
		for _, c := range best(r.Resolve(id)) {
			skip, ok := local[c.Def]
			if !ok {
				g := r.file(c.Def.Path)
				skip = g == nil || c.Def.Index < 0 || int(c.Def.Index) >= len(g.Defs) ||
					DeclaredInBody(g, c.Def.Index) || IsPredeclared(r.ws, c.Def)
				local[c.Def] = skip
			}
			// Like References, only uses by the definition's own name: a
			// use through an import alias is not renamed with it.
			if !skip && r.file(c.Def.Path).Defs[c.Def.Index].Name == ref.Name {
				out[c.Def] = append(out[c.Def], Reference{Ref: id, Span: ref.Span, Role: ref.Role, Confidence: c.Confidence, Uncertain: c.Uncertain})
			}
		}
	}
	return out
}

// ResolvesTo reports whether def is among the best candidates of a
// reference, as References counts it.
func (r *Resolver) ResolvesTo(id RefID, def DefID) (Reference, bool) {
	for _, c := range best(r.Resolve(id)) {
		if c.Def == def {
			ref := r.file(id.Path).Refs[id.Index]
			return Reference{Ref: id, Span: ref.Span, Role: ref.Role, Confidence: c.Confidence, Uncertain: c.Uncertain}, true
		}
	}
	return Reference{}, false
}
