package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// zod-style schemas: `z.infer<typeof S>` and what `S.parse(x)` returns have
// the members the extractor declared in S from the shape S was built with
// (ecma's shapes.go), where tsserver takes them too.

// inferredFrom are the written type helpers that give a schema's type.
var inferredFrom = map[string]bool{"infer": true, "output": true, "input": true, "TypeOf": true, "Infer": true}

// schemaOf is the schema name S of a written type `z.infer<typeof S>`
// (or output, input), "" for any other type.
func schemaOf(t string) string {
	t = strings.TrimSpace(t)
	open := strings.IndexByte(t, '<')
	if open <= 0 || !strings.HasSuffix(t, ">") || !inferredFrom[baseTypeName(t[:open])] {
		return ""
	}
	arg, ok := strings.CutPrefix(strings.TrimSpace(t[open+1:len(t)-1]), "typeof ")
	if !ok || !isName(strings.TrimSpace(arg)) {
		return ""
	}
	return strings.TrimSpace(arg)
}

// schemaTypes are the schema variables named by q whose shapes declare
// members: the types whose members a value the schema describes has.
func (r *Resolver) schemaTypes(f *analysis.FileFacts, q string, scope int32, at analysis.Span, depth int) []Candidate {
	if r.tooDeep(f.Lang, depth+1) {
		return nil
	}
	ref := analysis.Ref{Name: q, Span: at, Role: analysis.RoleRead, Scope: scope, Enclosing: analysis.None}
	var out []Candidate
	for _, c := range best(r.resolve(f, ref, depth+1)) {
		g, d, ok := r.entry(c.Def)
		if !ok || c.Confidence < r.threshold || d.Kind.IsType() || d.Value == tsObjectValue || !hasMembers(g, c.Def.Index) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// hasMembers reports whether any definition of g is declared inside i.
func hasMembers(g *analysis.FileFacts, i int32) bool {
	for _, d := range g.Defs {
		if d.Container == i && d.Kind == analysis.KindField {
			return true
		}
	}
	return false
}

// parsedTypes are the types `S.parse(x)` (or safeParse's data) gives when
// the parse method returns the schema's output (`core.output<this>`,
// zod 3's `Output`) and S's shape declares its members: S itself.
func (r *Resolver) parsedTypes(f *analysis.FileFacts, cref analysis.Ref, g *analysis.FileFacts, d analysis.Def, depth int) []Candidate {
	if !ecmaLang(g.Lang) || cref.Qualifier == "" || !isName(cref.Qualifier) {
		return nil
	}
	t := strings.TrimSpace(calledType(g.Lang, d.TypeName))
	if t != "Output" && schemaOfThis(t) == "" {
		return nil
	}
	return r.schemaTypes(f, cref.Qualifier, cref.Scope, cref.Span, depth)
}

// schemaOfThis is "this" for a written type `output<this>` (any
// qualifier), "" otherwise.
func schemaOfThis(t string) string {
	open := strings.IndexByte(t, '<')
	if open <= 0 || !strings.HasSuffix(t, ">") || !inferredFrom[baseTypeName(t[:open])] {
		return ""
	}
	if strings.TrimSpace(t[open+1:len(t)-1]) == "this" {
		return "this"
	}
	return ""
}

// aliasSupertypeMembers finds name among the members of TypeScript type
// alias s that type t extends, instantiated as t's declaration writes it:
// vitest's `interface Assertion<T> extends VitestAssertion<Chai.Assertion,
// T>` has chai's Assertion's members through the alias's mapped type.
func (r *Resolver) aliasSupertypeMembers(t, s DefID, name string, role analysis.Role, conf float64, depth int) []Candidate {
	g, d, ok := r.entry(t)
	h, a, ok2 := r.entry(s)
	if !ok || !ok2 || !ecmaLang(g.Lang) || a.Kind != analysis.KindTypeAlias || h == nil || r.tooDeep(g.Lang, depth) {
		return nil
	}
	written := writtenSupertype(d.Signature, a.Name)
	if written == "" {
		return nil
	}
	var out []Candidate
	for _, u := range r.typesNamed(g, written, d.Scope, d.NameSpan, depth+1) {
		if u.Def != s && u.Def != t && u.Confidence >= r.threshold {
			out = append(out, r.members(u.Def, name, role, conf, depth+1)...)
		}
	}
	return out
}

// writtenSupertype is the supertype named name as a declaration's header
// writes it after extends, type arguments included: "VitestAssertion<A,
// T>"; "" when the header has no such supertype with arguments.
func writtenSupertype(header, name string) string {
	_, heritage, ok := strings.Cut(header, " extends ")
	if !ok {
		return ""
	}
	for i := 0; i+len(name) < len(heritage); i++ {
		if !strings.HasPrefix(heritage[i:], name+"<") || i > 0 && isIdentByte(heritage[i-1]) {
			continue
		}
		open := i + len(name)
		if end := closingAngle(heritage, open); end > 0 {
			return heritage[i : end+1]
		}
		return ""
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// closingAngle is the index of the '>' that closes the '<' at open, or -1.
func closingAngle(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			if i > 0 && s[i-1] == '=' {
				continue // an arrow's =>
			}
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// AliasSupertypes are the types whose members TypeScript type t has through
// the type aliases it extends, instantiated as t's declaration writes them
// (vitest's Assertion: chai's Assertion through VitestAssertion<…>).
func (r *Resolver) AliasSupertypes(t DefID) []Candidate {
	g, d, ok := r.entry(t)
	if !ok || !ecmaLang(g.Lang) {
		return nil
	}
	var out []Candidate
	for _, e := range r.supertypes(t, 1) {
		for _, s := range best(e.Targets) {
			_, a, ok := r.entry(s.Def)
			if !ok || a.Kind != analysis.KindTypeAlias {
				continue
			}
			if written := writtenSupertype(d.Signature, a.Name); written != "" {
				for _, u := range r.typesNamed(g, written, d.Scope, d.NameSpan, 2) {
					if u.Def != s.Def && u.Def != t && u.Confidence >= r.threshold {
						out = append(out, u)
					}
				}
			}
		}
	}
	return out
}
