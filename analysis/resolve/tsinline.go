package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// inlineObjectMember resolves a member of a value whose written type is an
// object type written inline (`getSizing(): { unit: string } | null`,
// `p: { count: number }`): the member declared in that object type, which
// the extractor records in a scope of its own inside the declaration that
// writes the type. None when no arm of the type is an inline object type.
func (r *Resolver) inlineObjectMember(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	if r.tooDeep(f.Lang, depth+1) {
		return nil
	}
	uref := ref
	uref.Role, uref.Name, uref.Args = analysis.RoleRead, "", ""
	for _, t := range r.writtenTypesAt(f, uref, depth+1) {
		if !inlineObjectNames(t.text, ref.Name) {
			continue
		}
		g := t.file
		decl := analysis.None
		for i, d := range g.Defs {
			if d.NameSpan == t.at {
				decl = int32(i)
				break
			}
		}
		if decl == analysis.None {
			continue
		}
		// The object type follows the name: inside the declaration, or, for
		// a parameter, whose span is its name, just after it (`p?: {`).
		name, full := g.Defs[decl].NameSpan, g.Defs[decl].FullSpan
		full.End = max(full.End, name.End+8)
		for i, d := range g.Defs {
			if d.Name != ref.Name || d.Kind.IsType() || int32(i) == decl || d.Scope == analysis.None || int(d.Scope) >= len(g.Scopes) {
				continue
			}
			if s := g.Scopes[d.Scope]; s.Def == analysis.None && s.Span.Start >= name.End && full.Contains(s.Span.Start) && s.Span.Contains(d.NameSpan.Start) {
				return []Candidate{r.candidate(DefID{g.Path, int32(i)}, confMember, ViaMember)}
			}
		}
	}
	return nil
}

// inlineObjectNames reports whether an arm of written type t is an inline
// object type that writes key name.
func inlineObjectNames(t, name string) bool {
	for _, arm := range tsUnionArms(t) {
		if strings.HasPrefix(arm, "{") && strings.Contains(arm, name) {
			return true
		}
	}
	return false
}
