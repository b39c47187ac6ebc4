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

// qualifierType returns the base name of the written type of what a
// selector's plain qualifier names, when the file alone settles it: every
// definition so named in a scope around the reference is a parameter or
// local of the file's bodies declared before it, with a written named
// type (not a type parameter of the file, not an anonymous struct), and
// all have one base name. The resolver finds such a qualifier among those
// definitions and looks the selected name up in that type's members.
func (h *fileHinter) qualifierType(ref analysis.Ref) (string, bool) {
	f, q := h.f, ref.Qualifier
	if q == "" || strings.Contains(q, ".") || !isName(q) {
		return "", false
	}
	if h.locals == nil {
		h.locals, h.typeParams = map[string][]int32{}, map[string]bool{}
		for i, d := range f.Defs {
			if DeclaredInBody(f, int32(i)) {
				h.locals[d.Name] = append(h.locals[d.Name], int32(i))
			}
			if d.Kind == analysis.KindTypeParameter {
				h.typeParams[d.Name] = true
			}
		}
	}
	name, found := "", false
	for _, i := range h.locals[q] {
		d := f.Defs[i]
		if !enclosesScope(f, d.Scope, ref.Scope) {
			continue
		}
		if d.Kind != analysis.KindParameter && d.Kind != analysis.KindVariable || d.TypeName == "" ||
			strings.HasPrefix(d.TypeName, "struct") || d.FullSpan.End > ref.Span.Start {
			return "", false
		}
		t := baseTypeName(d.TypeName)
		if found && t != name {
			return "", false
		}
		name, found = t, true
	}
	// A value of a type parameter has its constraint's members.
	if !found || h.typeParams[name] {
		return "", false
	}
	return name, true
}

// enclosesScope reports whether scope outer is inner or around it.
func enclosesScope(f *analysis.FileFacts, outer, inner int32) bool {
	for s := inner; s != analysis.None && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		if s == outer {
			return true
		}
	}
	return false
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
	refs := r.hintedNamed(h, r.UseNames(def))
	dirs := map[string]bool{}
	for _, ref := range refs {
		dirs[filepath.Dir(ref.Path)] = true
	}
	reach := r.goReachers(def, f, dirs)
	var out []RefID
	for _, ref := range refs {
		if reach != nil && !reach[filepath.Dir(ref.Path)] {
			continue
		}
		if ref.Hint&(1<<hintKindBits-1) == hintTyped && !carriers[ref.Hint>>hintTypeShift&(1<<hintTypeBits-1)] {
			continue // a member of a type that cannot carry def
		}
		out = append(out, ref.RefID)
	}
	return out, true
}

// maxCarriers bounds the types one member's search collects: past it, the
// hashes rule little out.
const maxCarriers = 512

// memberCarriers returns the hashes of the names of every type whose
// members, as the resolver looks them up, may hold def, a Go field or
// method: its own type, the types embedding one of those (supertype
// edges, interfaces' too), and the types declared as one of those (`type
// A B`, `type A = B`), by name whatever their package. ok is false for
// another definition, or when there are too many.
func (r *Resolver) memberCarriers(h RefHinter, f *analysis.FileFacts, def DefID) (map[uint32]bool, bool) {
	d := f.Defs[def.Index]
	var owner string
	switch {
	case d.Kind == analysis.KindMethod && d.Receiver != "":
		owner = baseTypeName(d.Receiver)
	case (d.Kind == analysis.KindField || d.Kind == analysis.KindMethod) && d.Container != analysis.None &&
		int(d.Container) < len(f.Defs) && f.Defs[d.Container].Kind.IsType():
		owner = f.Defs[d.Container].Name
	default:
		return nil, false
	}
	names := map[string]bool{owner: true}
	queue := []string{owner}
	add := func(n string) {
		if !names[n] {
			names[n] = true
			queue = append(queue, n)
		}
	}
	for i := 0; i < len(queue); i++ {
		if len(names) > maxCarriers {
			return nil, false
		}
		s := queue[i]
		for _, id := range r.ws.SupertypesNamed(s) {
			g := r.file(id.Path)
			if g == nil || id.Index < 0 || int(id.Index) >= len(g.Supertypes) {
				return nil, false
			}
			o := g.Supertypes[id.Index].Def
			if o < 0 || int(o) >= len(g.Defs) {
				return nil, false
			}
			add(g.Defs[o].Name)
		}
		read := map[string]bool{}
		for _, ref := range h.HintedRefsNamed(s) {
			if ref.Hint&hintTypeDecl == 0 || read[ref.Path] {
				continue
			}
			read[ref.Path] = true
			g := r.file(ref.Path)
			if g == nil {
				return nil, false
			}
			for _, a := range g.Defs {
				if a.Kind == analysis.KindTypeAlias && strings.Contains(a.TypeName, s) {
					add(a.Name)
				}
			}
		}
	}
	out := make(map[uint32]bool, len(names))
	for n := range names {
		out[typeHash(n)] = true
	}
	return out, true
}
