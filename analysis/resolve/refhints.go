package resolve

import (
	"path/filepath"

	"github.com/kast-dev/kast/analysis"
)

// Before the reference pass, a query for a common Go name resolves every
// reference so named in the files that may import the definition's package:
// for Size or Errorf, thousands, each decoding its file's facts. Most of
// them are settled by their own file alone. A top-level declaration is
// named only by a bare identifier in its own package's folder (or in a
// file that dot-imports), or through a qualifier that names an import of
// the file: the resolver finds top-level declarations behind a selector
// only through the file's imports (inModule); whatever else the qualifier
// is, x.Size is a field or a method. The index stores one number per
// reference posting, a RefHint, so that such candidates are rejected from
// the posting without decoding their file.

// Reference hints: what a Go reference's own file says of it (GoRefHint).
const (
	// HintNone: nothing is known; the reference must be resolved.
	HintNone uint32 = iota
	// HintBare: a bare identifier in a file without dot imports.
	HintBare
	// HintNotImported: a selector whose qualifier names none of the
	// file's imports.
	HintNotImported
	// HintImport + k: a selector whose qualifier names the file's import
	// k (FileFacts.Imports), and no other.
	HintImport
)

// HintedRef is a reference listed by name with its hint; Import is the
// path of the import HintImport+k names.
type HintedRef struct {
	RefID
	Hint   uint32
	Import string
}

// RefHinter is implemented by a workspace that lists references by name
// with their hints.
type RefHinter interface {
	HintedRefsNamed(name string) []HintedRef
}

// GoRefHints returns each reference's hint (GoRefHint); nil for other
// languages. The index stores it beside the reference postings.
func GoRefHints(f *analysis.FileFacts) []uint32 {
	if f.Lang != "go" {
		return nil
	}
	dot := false
	for _, imp := range f.Imports {
		dot = dot || imp.Wildcard
	}
	out := make([]uint32, len(f.Refs))
	for i, ref := range f.Refs {
		out[i] = goRefHint(f, ref, dot)
	}
	return out
}

func goRefHint(f *analysis.FileFacts, ref analysis.Ref, dot bool) uint32 {
	if ref.Role&analysis.RoleImport != 0 {
		return HintNone
	}
	if ref.Qualifier == "" {
		if dot {
			return HintNone
		}
		return HintBare
	}
	hint := HintNotImported
	for k, imp := range f.Imports {
		if ref.Qualifier != imp.Path && ref.Qualifier != goImportName(imp) {
			continue
		}
		if hint != HintNotImported {
			return HintNone // two imports of one name: the resolver tries both
		}
		hint = HintImport + uint32(k)
	}
	return hint
}

// topLevelGo reports whether def is a Go declaration at package level that
// is not a method: what hints can settle.
func (r *Resolver) topLevelGo(def DefID, f *analysis.FileFacts) bool {
	d := f.Defs[def.Index]
	return f.Lang == "go" && d.Container == analysis.None && d.Receiver == "" && d.Kind != analysis.KindMethod
}

// keepHinted keeps the references that may surely resolve to def, a
// top-level Go declaration, of those in the folders reach allows (all when
// reach is nil).
func (r *Resolver) keepHinted(def DefID, refs []HintedRef, reach map[string]bool) ([]RefID, bool) {
	dp, ok := r.ws.(GoImports)
	if !ok {
		return nil, false
	}
	home := filepath.Dir(def.Path)
	var out []RefID
	for _, ref := range refs {
		dir := filepath.Dir(ref.Path)
		if reach != nil && !reach[dir] {
			continue
		}
		switch {
		case ref.Hint == HintBare && dir != home:
			continue // its own package's, or the universe's
		case ref.Hint == HintNotImported:
			continue // a field or a method
		case ref.Hint >= HintImport && !r.mayImport(dp, ref.Import, home):
			continue // another package's
		}
		out = append(out, ref.RefID)
	}
	return out, true
}

// hintedTopLevel is ReferenceCandidates' certain list for a top-level Go
// declaration, pruned by folder (goReachers) and then by hint.
func (r *Resolver) hintedTopLevel(def DefID, f *analysis.FileFacts) ([]RefID, bool) {
	h, ok := r.ws.(RefHinter)
	if !ok {
		return nil, false
	}
	var refs []HintedRef
	for _, n := range r.UseNames(def) {
		refs = append(refs, h.HintedRefsNamed(n)...)
	}
	dirs := map[string]bool{}
	for _, ref := range refs {
		dirs[filepath.Dir(ref.Path)] = true
	}
	return r.keepHinted(def, refs, r.goReachers(def, f, dirs))
}
