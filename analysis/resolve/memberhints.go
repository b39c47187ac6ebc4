package resolve

import (
	"hash/fnv"
	"path"
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
func typeHash(name string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return uint64(h.Sum32()) & (1<<hintTypeBits - 1)
}

// varType is a typed selector's qualifier's type, as qualifierType finds
// it: its base name and what qualifies it where it is written ("" when
// nothing does). mixed says that its declarations qualify it differently.
type varType struct {
	name, qual string
	mixed      bool
}

// qualifierType returns the type of what a selector's plain qualifier
// names, when the file alone settles it as the resolver
// looks it up: in the innermost scope around the reference that declares
// the name (inside a body: the file's scope holds package-level names,
// which other files share), every definition so named is a parameter or
// variable declared before the reference, all of one type. The type is
// the written one (not an anonymous struct, not a type parameter of the
// file), or else one that the variable's value spells: an assertion
// `x.(*T)`, a composite literal `&T{}`, `new(T)`.
func (h *fileHinter) qualifierType(ref analysis.Ref) (varType, bool) {
	f, q := h.f, ref.Qualifier
	if q == "" || strings.Contains(q, ".") || !isName(q) {
		return varType{}, false
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
			continue // Go looks among no owner's members (inScope)
		}
		var vt varType
		for k, i := range defs {
			d := f.Defs[i]
			if d.Kind != analysis.KindParameter && d.Kind != analysis.KindVariable || !DeclaredInBody(f, i) ||
				d.NameSpan.Start > ref.Span.Start || d.FullSpan.Contains(ref.Span.Start) {
				return varType{}, false
			}
			spelling := typeSpelling(d)
			t, qual := baseTypeName(spelling), typeQualifier(spelling)
			if t == "" || k > 0 && t != vt.name {
				return varType{}, false
			}
			vt.mixed = vt.mixed || k > 0 && qual != vt.qual
			vt.name, vt.qual = t, qual
		}
		// A value of a type parameter has its constraint's members. A
		// qualified type is never one (a file's type parameter T kept
		// every t.Fatalf of testing.T's from its hint).
		return vt, vt.qual != "" || !h.typeParams[vt.name]
	}
	return varType{}, false
}

// typeSpelling is a variable's type as its declaration spells it, the
// way the resolver reads it: its written type, or else the type its value
// asserts, constructs or allocates; "" when neither says.
func typeSpelling(d analysis.Def) string {
	if d.TypeName != "" {
		if analysis.GoStructLiteral(d.TypeName) {
			return ""
		}
		return d.TypeName
	}
	v := d.Value
	if v == "" || strings.ContainsAny(v, "#\n") || strings.HasPrefix(v, "(") {
		return ""
	}
	if name, ok := strings.CutSuffix(strings.TrimPrefix(v, "&"), "{}"); ok {
		if !isName(strings.SplitN(name, "[", 2)[0]) {
			return ""
		}
		return name
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
		return inner
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
			// Named bare, a Go field or method is never found: Go looks
			// through no scope's owner (inScope), a call Run() is a
			// function's, and a literal's keys are qualified by its type
			// (T{Pos: 1}).
			continue
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

// A typed selector settles (hintSettled) when its type does not depend on
// its file beyond its folder: a type of the file's own package, or one
// that the file's one import so named qualifies, as a settled selector's
// import. Every x.Name of one folder, role and type then resolves alike
// (see typedSettlesAs): t.Fatalf over thousands of test files is one
// resolution a folder, and fewer once the type's import settles it
// everywhere. Its hint's upper half holds the type's import (its index +
// 1, 0 for its own package's) and a second hash of its name, so that two
// types sharing a group are as unlikely as two files sharing a content
// hash (38 bits of name with typeHash).
const (
	hintTypeImpShift = 32
	hintTypeImpBits  = 10
	hintTypeIDShift  = hintTypeImpShift + hintTypeImpBits
	hintTypeIDBits   = 64 - hintTypeIDShift
)

// typeID is a type name's second hash, beside typeHash.
func typeID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() >> (64 - hintTypeIDBits)
}

// typeSettles returns the import a typed selector's type is qualified by
// (its index + 1, or 0 for a type of the file's package), when that type
// resolves as in every file of the folder: for a type of the package,
// nothing so named imported or declared in the file and no dot import
// (see bareSettles); for a qualified one, the qualifier declared nowhere
// in the file, naming one import by its path's last element, and
// lower-case if the file has a dot import.
func (h *fileHinter) typeSettles(t varType) (int, bool) {
	if t.mixed {
		return 0, false
	}
	if t.qual == "" {
		// A file declaring the type finds it in its own scope, with
		// another confidence than the package's other files.
		return 0, h.bareSettles(t.name)
	}
	// A dot import brings in exported names only (goDotImported).
	if h.dot >= 0 && exported(t.qual) || h.declares(t.qual) {
		return 0, false
	}
	k := -1
	for i, imp := range h.f.Imports {
		if t.qual != imp.Path && t.qual != goImportName(imp) {
			continue
		}
		if k >= 0 {
			return 0, false
		}
		k = i
	}
	if k < 0 || k+1 >= 1<<hintTypeImpBits {
		return 0, false
	}
	imp := h.f.Imports[k]
	if imp.Alias != "" || imp.Wildcard || imp.Name != path.Base(imp.Path) || strings.HasPrefix(imp.Path, ".") || t.qual != goImportName(imp) {
		return 0, false
	}
	return k + 1, true
}

// typedSettled reports whether a hint is a settled typed selector's, and
// returns its type's identity in its group's key (never 0).
func typedSettled(hint uint64) (uint64, bool) {
	if hint&(1<<hintKindBits-1) != hintTyped || hint&hintSettled == 0 {
		return 0, false
	}
	return hint>>hintTypeShift&(1<<hintTypeBits-1) | hint>>hintTypeIDShift<<hintTypeBits | 1<<63, true
}
