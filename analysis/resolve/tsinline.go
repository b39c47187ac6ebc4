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
	var out []Candidate
	for _, id := range r.inlineObjectMembers(f, ref, ref.Name, depth) {
		out = append(out, r.candidate(id, confMember, ViaMember))
	}
	return out
}

// InlineObjectMembers are the members of the inline object type written
// for the value qualifier denotes (`params?: { minimum?: number }`), which
// follow a dot; none when its written type has no inline object type.
func (r *Resolver) InlineObjectMembers(file, qualifier string, scope, enclosing int32, at analysis.Span) []DefID {
	f := r.file(file)
	if f == nil || !ecmaLang(f.Lang) {
		return nil
	}
	ref := analysis.Ref{Span: at, Role: analysis.RoleRead, Scope: scope, Enclosing: enclosing, Qualifier: qualifier}
	return r.inlineObjectMembers(f, ref, "", 0)
}

// inlineObjectMembers are the members named name (any, for "") of the
// inline object type written for ref's qualifier.
func (r *Resolver) inlineObjectMembers(f *analysis.FileFacts, ref analysis.Ref, name string, depth int) []DefID {
	if r.tooDeep(f.Lang, depth+1) {
		return nil
	}
	uref := ref
	uref.Role, uref.Name, uref.Args = analysis.RoleRead, "", ""
	for _, t := range r.writtenTypesAt(f, uref, depth+1) {
		if !inlineObjectNames(t.text, name) {
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
		declName, full := g.Defs[decl].NameSpan, g.Defs[decl].FullSpan
		full.End = max(full.End, declName.End+8)
		scope := analysis.None
		for _, d := range g.Defs {
			if name != "" && d.Name != name || d.Kind.IsType() || d.Scope == analysis.None || int(d.Scope) >= len(g.Scopes) {
				continue
			}
			if s := g.Scopes[d.Scope]; s.Def == analysis.None && s.Span.Start >= declName.End && full.Contains(s.Span.Start) && s.Span.Contains(d.NameSpan.Start) {
				scope = d.Scope
				break
			}
		}
		if scope == analysis.None {
			continue
		}
		var out []DefID
		for i, d := range g.Defs {
			if d.Scope == scope && (name == "" || d.Name == name) && !d.Kind.IsType() {
				out = append(out, DefID{g.Path, int32(i)})
			}
		}
		return out
	}
	return nil
}

// inlineObjectNames reports whether an arm of written type t is an inline
// object type that writes key name (any key, for "").
func inlineObjectNames(t, name string) bool {
	for _, arm := range tsUnionArms(t) {
		if strings.HasPrefix(arm, "{") && strings.Contains(arm, name) {
			return true
		}
	}
	return false
}
