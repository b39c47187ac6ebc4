package resolve

import (
	"hash/fnv"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Before the pass, a query for a Go field or method resolves every
// reference so named in the folders that may import its package: for Pos
// or Len, hundreds of files decoded whole to find a few uses. Most of those
// selectors are x.Pos with x a parameter, receiver or local whose type is
// written in its declaration (n ir.Node, b *bytes.Buffer), and the
// resolver finds x.Pos among the members of that type alone: declared by
// it, by what it embeds, or by the type it is declared as. So the hint of
// such a selector carries a hash of the type's name (hintTyped), and a
// query sets aside the candidates whose type is none of the types that
// may carry the member (memberCarriers), without decoding their files.

// hintTypeBits hold a typed selector's type hash, where a selector's
// import index is.
const (
	hintTypeShift = hintImpShift
	hintTypeBits  = hintImpBits
)

// typeHash is a type name's hint bits: equal names hash alike.
func typeHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32() & (1<<hintTypeBits - 1)
}

// qualifierType returns the base name of the type of what a selector's
// plain qualifier names, when the file alone settles it as the resolver
// looks it up: in the innermost scope around the reference that declares
// the name (inside a body: the file's scope holds package-level names,
// which other files share), every definition so named is a parameter or
// variable declared before the reference, all of one type. The type is
// the written one (not an anonymous struct, not a type parameter of the
// file), or else one that the variable's value spells: an assertion
// `x.(*T)`, a composite literal `&T{}`, `new(T)`.
func (h *fileHinter) qualifierType(ref analysis.Ref) (string, bool) {
	f, q := h.f, ref.Qualifier
	if q == "" || strings.Contains(q, ".") || !isName(q) {
		return "", false
	}
	if h.scoped == nil {
		h.scoped, h.typeParams = map[scopedName][]int32{}, map[string]bool{}
		for i, d := range f.Defs {
			k := scopedName{d.Scope, d.Name}
			h.scoped[k] = append(h.scoped[k], int32(i))
			if d.Kind == analysis.KindTypeParameter {
				h.typeParams[d.Name] = true
			}
		}
	}
	for s := ref.Scope; s > 0 && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		defs := h.scoped[scopedName{s, q}]
		if len(defs) == 0 {
			if o := f.Scopes[s].Def; o != analysis.None && int(o) < len(f.Defs) && (f.Defs[o].Kind.IsType() || f.Defs[o].Receiver != "") {
				return "", false // the resolver looks among its members first
			}
			continue
		}
		name := ""
		for _, i := range defs {
			d := f.Defs[i]
			if d.Kind != analysis.KindParameter && d.Kind != analysis.KindVariable || !DeclaredInBody(f, i) ||
				d.NameSpan.Start > ref.Span.Start || d.FullSpan.Contains(ref.Span.Start) {
				return "", false
			}
			t := spelledType(d)
			if t == "" || name != "" && t != name {
				return "", false
			}
			name = t
		}
		// A value of a type parameter has its constraint's members.
		return name, !h.typeParams[name]
	}
	return "", false
}

// spelledType is the base name of a variable's type as its declaration
// spells it, the way the resolver reads it: its written type, or else
// the type its value asserts, constructs or allocates; "" when neither
// says.
func spelledType(d analysis.Def) string {
	if d.TypeName != "" {
		if analysis.GoStructLiteral(d.TypeName) {
			return ""
		}
		return baseTypeName(d.TypeName)
	}
	v := d.Value
	if v == "" || strings.ContainsAny(v, "#\n") || strings.HasPrefix(v, "(") {
		return ""
	}
	if name, ok := strings.CutSuffix(strings.TrimPrefix(v, "&"), "{}"); ok {
		if !isName(strings.SplitN(name, "[", 2)[0]) {
			return ""
		}
		return baseTypeName(name)
	}
	if !strings.HasSuffix(v, ")") || strings.HasPrefix(v, "*") || strings.HasPrefix(v, "&") {
		return ""
	}
	open := matching(v, len(v)-1)
	if open <= 0 {
		return ""
	}
	inner := v[open+1 : len(v)-1]
	if base := v[:open]; base == "new" || strings.HasSuffix(base, ".") && isName(strings.TrimSuffix(base, ".")) {
		if strings.HasPrefix(strings.TrimLeft(inner, "*"), "struct") || inner == "type" {
			return ""
		}
		return baseTypeName(inner)
	}
	return ""
}

// inTypeDecl reports whether a definition, or one around it, is a type
// declared as another type (KindTypeAlias).
func (h *fileHinter) inTypeDecl(d int32) bool {
	for ; d != analysis.None && int(d) < len(h.f.Defs); d = h.f.Defs[d].Container {
		if h.f.Defs[d].Kind == analysis.KindTypeAlias {
			return true
		}
	}
	return false
}

// hintedMember is ReferenceCandidates' certain list for a Go field or
// method: pruned by folder (goReachers), then by the typed selectors'
// hints. ok is false when the workspace keeps no hints or which types may
// carry the member cannot be told.
func (r *Resolver) hintedMember(def DefID, f *analysis.FileFacts) ([]RefID, bool) {
	h, ok := r.ws.(RefHinter)
	if !ok || f.Lang != "go" {
		return nil, false
	}
	carriers, ok := r.memberCarriers(h, f, def)
	if !ok {
		return nil, false
	}
	refs, reach := r.hintedReachers(h, def, f)
	var out []RefID
	for _, ref := range refs {
		if reach != nil && !reach[filepath.Dir(ref.Path)] {
			continue
		}
		switch ref.Hint & (1<<hintKindBits - 1) {
		case hintTyped:
			if !carriers[ref.Hint>>hintTypeShift&(1<<hintTypeBits-1)] {
				continue // a member of a type that cannot carry def
			}
		case hintBare:
			if ref.Hint&hintPlainScopes != 0 {
				// Named bare, a Go method is never found (a call Run() is
				// a function's), nor a field outside a scope that looks
				// through a type's members: a literal's keys are
				// qualified by its type (T{Pos: 1}).
				continue
			}
			if ref.Hint&hintReceiver != 0 && !carriers[ref.Hint>>hintTypeShift&(1<<hintTypeBits-1)] {
				continue // inside a method of a type that cannot carry def
			}
		}
		out = append(out, ref.RefID)
	}
	return out, true
}

// declaredAs reports whether a type declared as typeName may have the
// members of the types named s, as goUnderlying looks them up: through
// the type that typeName's base name names (`B`, `*p.B`, `B[int]`) or,
// for a union, through its arms. A type that merely mentions s
// (`func(F)`, `[]F`, `map[K]F`) has none of its members: testing.F's Add
// collected over 50 such types by name before, past maxCarriers, and no
// candidate of Add was set aside.
func declaredAs(typeName, s string) bool {
	if strings.Contains(typeName, "|") {
		return strings.Contains(typeName, s)
	}
	return baseTypeName(typeName) == s
}
