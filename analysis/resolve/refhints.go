package resolve

import (
	"hash/fnv"
	"path"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Before the reference pass, a query for a common Go name resolves every
// reference so named in the files that may import the definition's package:
// for Size or Errorf, thousands, each decoding its file's facts. Most of
// them are settled by their own file alone. A top-level declaration is
// named by a bare identifier only in its own package's folder (or in a file
// that dot-imports), and behind a selector only through the file's import
// that the qualifier names, or (code that does not compile) through a
// package named like the qualifier (inModule's last resort); whatever else
// the qualifier is, x.Size is a field or a method. The index stores one
// number per reference posting, a hint, so that such candidates are set
// aside from the posting without decoding their file.

// The parts of a hint: its kind in the low bits, then for a selector the
// qualifier's hash, then the import the qualifier names (its index + 1)
// or, for a typed selector, its qualifier's type's hash (see
// memberhints.go), and in the top bits what settles a selector or a bare
// name (hintSettled), hintTypeDecl and hintChain. Hints stored before
// those bits existed lack them, and their references are resolved as
// before.
const (
	hintKindBits  = 2
	hintQualBits  = 10
	hintQualShift = hintKindBits
	hintImpShift  = hintKindBits + hintQualBits
	hintImpBits   = 16
)

// hintTypeDecl marks a type named in a Go type declaration `type A B` or
// `type A = B`: A has B's fields (and, an alias, its methods), which a
// query looks for (see memberCarriers).
const hintTypeDecl = 1 << 28

// hintChain marks a settled typed selector whose qualifier's type is
// reached through a chain from a typed variable (`x := b.Controls[i]`,
// see chainType): its hashes are the chain's, not a type name's, so that
// which types carry a member cannot set it aside; its group settles it.
const hintChain = 1 << 29

// The settled flag. Of fmt.Println, the resolver asks first whether fmt is
// a declaration the file sees (its scopes, its package's other files, its
// dot imports); only if not does it look in the imported package. When
// the file declares nothing so named, has no dot import and imports one
// package by that plain name (hintSettled), the answer depends on the file
// only through that import's path: every such reference to one name from
// one folder resolves alike, and resolving one of them settles all (see
// settledReferences). On a bare name, hintSettled says that the file
// neither declares nor imports the name and has no dot import
// (bareSettles): such names of one folder's package resolve alike too.
// Go looks through no scope's owner for a plain name (inScope), so where
// the reference sits in its file does not matter.
const hintSettled = 1 << 31

// Hint kinds.
const (
	hintNone     = 0 // nothing known: resolve the reference
	hintBare     = 1 // a bare identifier no dot import brings in (see hintDotBare)
	hintSelector = 2 // x.Name, with x's hash and the import x names, if one
	hintTyped    = 3 // x.Name, x a local or parameter of a written type: x's hash and its type's
)

// HintedRef is a reference listed by name with its stored hint (see
// GoRefHints); Import is the path of the import the hint names, if any.
type HintedRef struct {
	RefID
	Hint   uint64
	Import string
	Role   analysis.Role
	// Span is where the reference is, when Spanned: the index stores it
	// with the hints that have HintSpanned set.
	Span    analysis.Span
	Spanned bool
}

// HintSpanned is the bit of a hint whose reference's span the index keeps
// beside it (storage.HintSpan): a settled selector's, which a query
// answers from its hint alone.
const HintSpanned = hintSettled

// hintDotBare marks a bare reference to an exported name in a file with
// one dot import, which may bring the name in: the import's index + 1 is
// where a selector's is. A bare name of a file with several dot imports is
// hintNone; a lower-case one is never a dot import's (goDotImported).
const hintDotBare = 1 << hintQualShift

// HintImport returns the index into the file's imports that a hint names,
// or -1.
func HintImport(hint uint64) int {
	switch hint & (1<<hintKindBits - 1) {
	case hintTyped:
		if hint&hintSettled == 0 {
			return -1
		}
		return int(hint>>hintTypeImpShift&(1<<hintTypeImpBits-1)) - 1
	case hintSelector:
	case hintBare:
		if hint&hintDotBare == 0 {
			return -1
		}
	default:
		return -1
	}
	return int(hint>>hintImpShift&(1<<hintImpBits-1)) - 1
}

// RefHinter is implemented by a workspace that lists references by name
// with their hints.
type RefHinter interface {
	HintedRefsNamed(name string) []HintedRef
}

// GoRefHints returns each reference's hint; nil for other languages. The
// index stores it beside the reference postings.
func GoRefHints(f *analysis.FileFacts) []uint64 {
	if f.Lang != "go" {
		return nil
	}
	out := make([]uint64, len(f.Refs))
	h := newFileHinter(f)
	for i, ref := range f.Refs {
		out[i] = h.hint(ref)
	}
	return out
}

func newFileHinter(f *analysis.FileFacts) *fileHinter {
	dots, dot := 0, -1
	for k, imp := range f.Imports {
		if imp.Wildcard {
			dots, dot = dots+1, k
		}
	}
	if dots > 1 {
		dot = len(f.Imports) // several: none of them is hinted
	}
	names := make([]string, len(f.Imports))
	for k, imp := range f.Imports {
		names[k] = goImportName(imp)
	}
	return &fileHinter{f: f, dot: dot, importNames: names}
}

// fileHinter works out a file's hints, with what they share.
type fileHinter struct {
	f   *analysis.FileFacts
	dot int // the index of the file's dot import: -1 none, len(Imports) several
	// importNames are the names the file's imports give their packages.
	importNames []string
	// named counts the file's definitions by name, scoped lists them by
	// scope and name, and typeParams names its type parameters, once
	// asked.
	named      map[string]int
	scoped     map[scopedName][]int32
	typeParams map[string]bool
}

func (h *fileHinter) hint(ref analysis.Ref) uint64 {
	out := h.goRefHint(ref)
	if ref.Role&analysis.RoleType != 0 && h.inTypeDecl(ref.Enclosing) {
		out |= hintTypeDecl
	}
	if out&(1<<hintKindBits-1) == hintSelector && HintImport(out) < 0 {
		if t, ok := h.qualifierType(ref); ok {
			out = h.typedHint(out, t)
		}
	}
	if out&(1<<hintKindBits-1) == hintBare && h.bareSettles(ref.Name) {
		out |= hintSettled
	}
	k := HintImport(out)
	if k < 0 || out&(1<<hintKindBits-1) != hintSelector || h.dot >= 0 && exported(ref.Qualifier) {
		// An exported qualifier may be a dot-imported package's name; a
		// lower-case one never is.
		return out
	}
	if imp := h.f.Imports[k]; imp.Alias != "" || imp.Wildcard || imp.Name != path.Base(imp.Path) ||
		strings.HasPrefix(imp.Path, ".") || ref.Qualifier != goImportName(imp) || k+1 >= 1<<hintImpBits {
		return out
	}
	if h.declares(ref.Qualifier) {
		return out
	}
	return out | hintSettled
}

// typedHint turns a selector's hint into a typed selector's, of type t.
func (h *fileHinter) typedHint(out uint64, t varType) uint64 {
	imp, settles := h.typeSettles(t)
	if t.chain != "" {
		if !settles {
			return out // what a chain's type carries is known only by resolving it
		}
		// Settled by group, never set aside by a type's name (hintChain).
		key := t.name + "|" + t.chain
		return out&^(1<<hintKindBits-1) | hintTyped | hintChain | typeHash(key)<<hintTypeShift |
			hintSettled | uint64(imp)<<hintTypeImpShift | typeID(key)<<hintTypeIDShift
	}
	out = out&^(1<<hintKindBits-1) | hintTyped | typeHash(t.name)<<hintTypeShift
	if settles {
		out |= hintSettled | uint64(imp)<<hintTypeImpShift | typeID(t.name)<<hintTypeIDShift
	}
	return out
}

// imports reports whether one of the file's imports is named name.
func (h *fileHinter) imports(name string) bool {
	for k, imp := range h.f.Imports {
		if imp.Path == name || h.importNames[k] == name {
			return true
		}
	}
	return false
}

// declares reports whether the file declares anything named name.
func (h *fileHinter) declares(name string) bool {
	h.index()
	return h.named[name] > 0
}

// bareSettles reports whether a bare name in plain scopes resolves as it
// does in every file of its folder and package (see bareSettled): the file
// declares nothing so named, at any level, imports nothing so named and
// has no dot import. What it names is then one of its package's other
// files' declarations, the universe's or a guess, none of which depends on
// the file.
func (h *fileHinter) bareSettles(name string) bool {
	return h.dot < 0 && !h.declares(name) && !h.imports(name)
}

func (h *fileHinter) goRefHint(ref analysis.Ref) uint64 {
	f, dot := h.f, h.dot
	switch {
	case ref.Role&analysis.RoleImport != 0:
		return hintNone
	case ref.Qualifier == "" && dot >= 0 && exported(ref.Name):
		if dot >= len(f.Imports) || dot+1 >= 1<<hintImpBits {
			return hintNone // several dot imports: the resolver tries each
		}
		return hintBare | hintDotBare | uint64(dot+1)<<hintImpShift
	case ref.Qualifier == "":
		return hintBare
	}
	named := 0
	for k, imp := range f.Imports {
		if ref.Qualifier != imp.Path && ref.Qualifier != h.importNames[k] {
			continue
		}
		if named != 0 {
			return hintNone // two imports of one name: the resolver tries both
		}
		named = k + 1
	}
	if named >= 1<<hintImpBits {
		return hintNone
	}
	return hintSelector | qualifierHash(ref.Qualifier)<<hintQualShift | uint64(named)<<hintImpShift
}

// qualifierHash is a qualifier's hint bits: equal qualifiers hash alike.
func qualifierHash(q string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(q))
	return uint64(h.Sum32()) & (1<<hintQualBits - 1)
}

// topLevelGo reports whether def is a Go declaration at package level that
// is not a method: what hints can settle.
func topLevelGo(f *analysis.FileFacts, def DefID) bool {
	d := f.Defs[def.Index]
	return f.Lang == "go" && d.Container == analysis.None && d.Receiver == "" && d.Kind != analysis.KindMethod
}

// hintedReachers lists the hinted candidate references of def's names and
// the folders that may reach def (goReachers; nil when any may).
func (r *Resolver) hintedReachers(h RefHinter, def DefID, f *analysis.FileFacts) ([]HintedRef, map[string]bool) {
	refs := r.hintedNamed(h, r.UseNames(def))
	dirs := map[string]bool{}
	for _, ref := range refs {
		dirs[filepath.Dir(ref.Path)] = true
	}
	return refs, r.goReachers(def, f, dirs)
}

// hintedTopLevel is ReferenceCandidates' certain list for a top-level Go
// declaration: pruned by folder (goReachers), then by hint. ok is false
// when the workspace keeps no hints.
func (r *Resolver) hintedTopLevel(def DefID, f *analysis.FileFacts) ([]RefID, bool) {
	h, ok := r.ws.(RefHinter)
	dp, imports := r.ws.(GoImports)
	if !ok || !imports {
		return nil, false
	}
	refs, reach := r.hintedReachers(h, def, f)
	home := filepath.Dir(def.Path)
	pkgHash := qualifierHash(f.Package)
	var out []RefID
	for _, ref := range refs {
		dir := filepath.Dir(ref.Path)
		if reach != nil && !reach[dir] {
			continue
		}
		switch ref.Hint & (1<<hintKindBits - 1) {
		case hintBare:
			if dir != home && (ref.Hint&hintDotBare == 0 || ref.Import == "" || !r.mayNameHome(dp, ref, def, f.Package)) {
				continue // its own package's, the universe's or another dot import's
			}
		case hintSelector, hintTyped:
			// A package named like the qualifier is the resolver's last
			// resort: kept whenever the hashes allow it. (The import a
			// typed selector's hint names is its qualifier's type's.)
			if (ref.Hint>>hintQualShift)&(1<<hintQualBits-1) != pkgHash &&
				(ref.Import == "" || ref.Hint&(1<<hintKindBits-1) == hintTyped || !r.mayNameHome(dp, ref, def, f.Package)) {
				continue // a field or a method, or another package's
			}
		}
		out = append(out, ref.RefID)
	}
	return out, true
}

// mayNameHome reports whether the import a selector's qualifier names may
// be def's package by any of the ways inModule follows an import: the
// folder the workspace or the resolver maps it to, a package of its name,
// a file its path matches, a folder ending like it.
func (r *Resolver) mayNameHome(dp GoImports, ref HintedRef, def DefID, pkg string) bool {
	home := filepath.Dir(def.Path)
	if ref.Import == pkg || r.mayImport(dp, ref.Import, home) || moduleMatches(ref.Path, def.Path, ref.Import) {
		return true
	}
	score, _ := matchDirSegments(strings.Split(ref.Import, "/"), path.Clean(filepath.ToSlash(home)))
	return score > 0
}
