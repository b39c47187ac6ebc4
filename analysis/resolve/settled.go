package resolve

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// RefSpanner is implemented by a workspace that reads some of a file's
// reference spans without decoding the rest of its facts. ok is false
// when it cannot.
type RefSpanner interface {
	RefSpans(path string, refs []int32) (spans []analysis.Span, ok bool)
}

// hintedMemo keeps the last hinted references listed: a reference query
// lists them to pick its candidates, then again to settle them.
type hintedMemo struct {
	names []string
	refs  []HintedRef
}

// hintedNamed lists the hinted references named like names, for reading
// only: one name's list is the workspace's own.
func (r *Resolver) hintedNamed(h RefHinter, names []string) []HintedRef {
	r.mu.Lock()
	if m := r.hinted; slices.Equal(m.names, names) && m.refs != nil {
		r.mu.Unlock()
		return m.refs
	}
	r.mu.Unlock()
	var refs []HintedRef
	if len(names) == 1 {
		refs = slices.Clip(h.HintedRefsNamed(names[0])) // shared: read only
	} else {
		for _, n := range names {
			refs = append(refs, h.HintedRefsNamed(n)...)
		}
	}
	if refs == nil {
		refs = []HintedRef{}
	}
	r.mu.Lock()
	r.hinted = hintedMemo{slices.Clone(names), refs}
	r.mu.Unlock()
	return refs
}

// settledKey is what a settled selector's resolution depends on (see
// hintSettled): the folder of its file, its import's path and its role.
type settledKey struct {
	dir, imp string
	role     analysis.Role
	// pkg is the package of a settled bare name's files (see bareSettles),
	// or of a typed selector's whose type is its package's; "" for others.
	pkg string
	// typ is a settled typed selector's type (typedSettled), 0 for others.
	typ uint64
}

// FilePackager is implemented by a workspace that knows the package
// clause of its files without reading their facts.
type FilePackager interface {
	FilePackage(path string) (pkg string, ok bool)
}

// settleReferences fills found and ok, for the ids (candidates for a Go
// declaration def) whose hints settle them, by resolving one of each group
// that resolves alike and reading the others' spans; it returns which it
// filled. The others are left to ResolvesTo. A group resolves through its
// import whatever def is: for a field or method (base.Pos, where Pos is
// also a field of obj.Prog), one resolution rules the group out.
//
// whole, when set, supplies the whole facts of a file whose references are
// resolved (see ReferencesAmongWhole); nil reads them through the resolver.
// The files read whole for the groups are read with all their candidates,
// and kept in reps for the rest of the query (see groupReads). Both are
// nil when no hint can settle the ids (not a Go declaration, no hints).
func (r *Resolver) settleReferences(def DefID, ids []RefID, found []Reference, ok []bool, whole WholeFile) (settled []bool, reps *groupReads) {
	f := r.file(def.Path)
	h, hinter := r.ws.(RefHinter)
	sp, spanner := r.ws.(RefSpanner)
	if f == nil || !hinter || !spanner || def.Index < 0 || int(def.Index) >= len(f.Defs) || f.Lang != "go" || len(ids) < 2 {
		return nil, nil
	}
	name := f.Defs[def.Index].Name
	// The settled ones among the hinted references, by their index there
	// (a HintedRef is large to copy, and unsafe.Pointer has 11k).
	hinted := r.hintedNamed(h, r.UseNames(def))
	fp, packager := r.ws.(FilePackager)
	hints := make(map[RefID]int32, len(ids))
	for j := range hinted {
		ref := &hinted[j]
		_, typed := typedSettled(ref.Hint)
		if ref.Hint&hintSettled != 0 && (ref.Import != "" || packager && (bareSettled(ref.Hint) || typed)) {
			hints[ref.RefID] = int32(j)
		}
	}
	groups := map[settledKey][]int{}
	var keys []settledKey       // in order of first member, so that work is deterministic
	pkgs := map[string]string{} // by path, "" when unknown
	packageOf := func(path string) string {
		pkg, ok := pkgs[path]
		if !ok {
			pkg, _ = fp.FilePackage(path)
			pkgs[path] = pkg
		}
		return pkg
	}
	for i, id := range ids {
		j, ok := hints[id]
		if !ok {
			continue
		}
		ref := &hinted[j]
		k := settledKey{dir: filepath.Dir(id.Path), imp: ref.Import, role: ref.Role}
		k.typ, _ = typedSettled(ref.Hint)
		if ref.Import == "" {
			if k.pkg = packageOf(id.Path); k.pkg == "" {
				continue
			}
		}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	// Groups of one are settled only by a group of another folder (see
	// importSettled): the others come first.
	slices.SortStableFunc(keys, func(a, b settledKey) int {
		return cmp.Compare(min(len(groups[b]), 2), min(len(groups[a]), 2))
	})
	done := make([]bool, len(ids))
	reps = newGroupReads(ids, whole)
	spans := map[string][]int{} // by file: the ids whose spans to read
	// What a group settled through an import resolved to, for the groups
	// of other folders with that import (see importSettled).
	shared := map[importGroup]settledAnswer{}
	oneName := slices.Equal(r.UseNames(def), []string{name})
	for _, k := range keys {
		members := groups[k]
		g := importGroup{k.imp, k.role, k.typ}
		a, known := shared[g]
		switch {
		case k.typ != 0 && known && k.imp != "" && r.folderSettles(k):
			// Another folder's group settled the type's member for all.
		case k.typ != 0:
			if len(members) < 2 {
				continue
			}
			first, release := r.holdGroupRep(ids, members, reps)
			settles := r.typedSettlesAs(k, first, name)
			var sure bool
			if settles {
				res := r.resolved(first)
				a.rep, a.hit = res.To(first, def)
				sure = res.sure()
			}
			release()
			if !settles {
				continue
			}
			if oneName && sure && k.imp != "" {
				shared[g] = a
			}
		case k.pkg != "":
			// A settled bare name: one folder's package.
			if len(members) < 2 {
				continue
			}
			first, release := r.holdGroupRep(ids, members, reps)
			settles := r.bareSettlesAs(k, first, name)
			if settles {
				a.rep, a.hit = r.ResolvesTo(first, def)
			}
			release()
			if !settles {
				continue
			}
		case known && r.folderSettles(k):
			// Resolved alike whatever its folder: no file is read, and a
			// group of one is settled too.
		case len(members) < 2:
			continue
		default:
			first, release := r.holdGroupRep(ids, members, reps)
			settles := r.settles(k, first, name)
			if settles {
				a.rep, a.hit = r.ResolvesTo(first, def)
			}
			release()
			if !settles {
				continue
			}
			if oneName && r.importSettled(k, name) {
				shared[g] = a
			}
		}
		rep, hit := a.rep, a.hit
		for _, i := range members {
			done[i], ok[i] = true, hit
			if hit {
				found[i] = rep
				found[i].Ref, found[i].Role = ids[i], k.role
				if h := &hinted[hints[ids[i]]]; h.Spanned {
					found[i].Span = h.Span
				} else {
					spans[ids[i].Path] = append(spans[ids[i].Path], i)
				}
			}
		}
	}
	for p, members := range spans {
		idx := make([]int32, len(members))
		for j, i := range members {
			idx[j] = ids[i].Index
		}
		got, read := sp.RefSpans(p, idx)
		for j, i := range members {
			if read && len(got) == len(idx) {
				found[i].Span = got[j]
			} else {
				done[i], ok[i], found[i] = false, false, Reference{} // resolved one by one instead
			}
		}
	}
	return done, reps
}

// FileSizer is implemented by a workspace that knows its files' sizes
// without reading them (0 when it does not).
type FileSizer interface {
	FileSize(path string) int64
}

// holdGroupRep picks a group's member to resolve (groupRep) and holds
// its file whole until release.
func (r *Resolver) holdGroupRep(ids []RefID, members []int, reps *groupReads) (first RefID, release func()) {
	first = ids[r.groupRep(ids, members, reps)]
	return first, r.holdWhole(first.Path, []int32{first.Index}, reps.read())
}

// groupRep returns, of the ids at the indexes members (a settled group),
// the one whose file another group had read already, else the one whose
// file is smallest: any member settles the group, and resolving it reads
// its file whole. Groups took their first member's file, as often a large
// one (a generated syscall file, a test file) as a small one:
// unsafe.Pointer's groups read 130 ms of files whole, most of its query.
func (r *Resolver) groupRep(ids []RefID, members []int, reps *groupReads) int {
	for _, i := range members {
		if reps.has(ids[i].Path) {
			return i
		}
	}
	best := members[0]
	fs, ok := r.ws.(FileSizer)
	if !ok {
		return best
	}
	size := fs.FileSize(ids[best].Path)
	for _, i := range members[1:] {
		if ids[i].Path == ids[best].Path {
			continue
		}
		if n := fs.FileSize(ids[i].Path); n > 0 && (size <= 0 || n < size) {
			best, size = i, n
		}
	}
	return best
}

// maxGroupReads bounds the files a query keeps whole for its groups: each
// is a file's facts with its candidates, tens of kilobytes.
const maxGroupReads = 64

// groupReads keeps the whole facts settleReferences read for its groups'
// first members. Such a file is read with every candidate of the query in
// it, so that the groups after and the candidates left to resolve one by
// one use the same read: they read it again, once with one reference and
// once with the others, a fifth of a cold start's whole reads.
type groupReads struct {
	whole  WholeFile
	ids    []RefID
	byPath map[string][]int32 // the candidates' indexes by file, once asked
	kept   map[string]*analysis.FileFacts
}

func newGroupReads(ids []RefID, whole WholeFile) *groupReads {
	return &groupReads{whole: whole, ids: ids, kept: map[string]*analysis.FileFacts{}}
}

// read is whole through the files kept (see readKeeping); nil without
// whole, for the resolver to read files itself.
func (g *groupReads) read() WholeFile {
	if g.whole == nil {
		return nil
	}
	return g.readKeeping
}

// readKeeping is whole for the file at path with every candidate in it,
// kept.
func (g *groupReads) readKeeping(path string, refs []int32) *analysis.FileFacts {
	if f := g.kept[path]; f != nil && hasRefs(f, refs) {
		return f
	}
	if len(g.kept) >= maxGroupReads {
		return g.whole(path, refs)
	}
	if g.byPath == nil {
		g.byPath = map[string][]int32{}
		for _, id := range g.ids {
			g.byPath[id.Path] = append(g.byPath[id.Path], id.Index)
		}
	}
	f := g.whole(path, slices.Concat(g.byPath[path], refs))
	if f != nil {
		g.kept[path] = f
	}
	return f
}

// has reports whether path was read; false on a nil g.
func (g *groupReads) has(path string) bool { return g != nil && g.kept[path] != nil }

// reading is whole through the files kept, for the rest of the query: it
// reads any other file as whole does, without keeping it. Safe for
// concurrent use once the groups are settled.
func (g *groupReads) reading(whole WholeFile) WholeFile {
	if g == nil || len(g.kept) == 0 {
		return whole
	}
	return func(path string, refs []int32) *analysis.FileFacts {
		if f := g.kept[path]; f != nil && hasRefs(f, refs) {
			return f
		}
		return whole(path, refs)
	}
}

// settles reports whether the selectors of a group resolve alike, checking
// what their hints cannot say on the group's first member, rep: nothing
// in the folder is named like the qualifier (the package's other files
// are in scope), and rep is what its hint says, resolved through its
// import.
func (r *Resolver) settles(k settledKey, rep RefID, name string) bool {
	if !r.folderSettles(k) {
		return false
	}
	q := settledQualifier(k.imp)
	f := r.file(rep.Path)
	if f == nil || rep.Index < 0 || int(rep.Index) >= len(f.Refs) {
		return false
	}
	ref := f.Refs[rep.Index]
	if ref.Qualifier != q || ref.Name != name || ref.Role != k.role || f.Lang != "go" {
		return false
	}
	qref := ref
	qref.Role, qref.Qualifier, qref.Name = analysis.RoleRead, "", q
	return len(r.unqualified(f, qref, 1)) == 0 && len(r.inModule(f, ref)) > 0
}

// bareSettled reports whether a hint is a bare name's that bareSettles
// vouched for.
func bareSettled(hint uint64) bool {
	return hint&(1<<hintKindBits-1) == hintBare && hint&(hintSettled|hintDotBare) == hintSettled
}

// bareSettlesAs reports whether rep, the first member of a group of
// settled bare names, is what the group's key says: a bare Go reference
// named name with the group's role, in a file of the group's package.
// What else its resolution reads of its file, its hint vouches for: no
// scope around it looks through members, and the file declares and
// imports nothing so named and has no dot import. So the resolver finds
// it (Go looks through no scope's owner: inScope) among the
// package's other files' declarations (inPackage: by folder and package),
// else in the universe or by name, all alike for every file of the group;
// which files' platforms fit orders tied candidates only.
func (r *Resolver) bareSettlesAs(k settledKey, rep RefID, name string) bool {
	f := r.file(rep.Path)
	if f == nil || f.Lang != "go" || f.Package != k.pkg || rep.Index < 0 || int(rep.Index) >= len(f.Refs) {
		return false
	}
	ref := f.Refs[rep.Index]
	return ref.Qualifier == "" && ref.Name == name && ref.Role == k.role
}

// settledQualifier is the name a settled selector's import gives its
// package (its hint says the import has no alias and is named by its
// path's last element).
func settledQualifier(imp string) string {
	return goImportName(analysis.Import{Path: imp, Name: path.Base(imp)})
}

// folderSettles is what settles checks of a group's folder rather than of
// its first member: no definition in the folder is named like the
// qualifier (the package-level names of its other files are in scope; not
// what is declared inside a type or function, such as a field fmt beside
// fmt.Println, which Go never finds plainly).
func (r *Resolver) folderSettles(k settledKey) bool {
	q := settledQualifier(k.imp)
	for _, e := range r.defs(q) {
		if e.Lang == "go" && filepath.Dir(e.Path) == k.dir && !e.Nested {
			return false
		}
	}
	return true
}

// importGroup is a settled group's key but for its folder.
type importGroup struct {
	imp  string
	role analysis.Role
	typ  uint64
}

// settledAnswer is what a settled group's first member resolved to.
type settledAnswer struct {
	rep Reference
	hit bool
}

// importSettled reports whether the settled groups of k's import and role
// resolve alike in every folder once one of them settles, so that
// the others need no file read: unsafe.Pointer's groups, one per folder,
// each read a file whole. Of the rest of settles' checks, the hints
// vouch for the file's (it declares nothing named like the qualifier and
// has no dot import; the reference's name, role and qualifier are the
// group's), folderSettles is asked of each folder, and the universe's
// names are the same everywhere. What is left is the import: an import of
// a path (not a relative one) that goImportMember finds the name in gives
// the members found by that path alone, whichever file imports it.
func (r *Resolver) importSettled(k settledKey, name string) bool {
	return !strings.HasPrefix(k.imp, ".") && len(r.goImportMember(k.imp, name, k.role)) > 0
}

// typedSettlesAs reports whether rep, the first member of a group of
// settled typed selectors, is what the group's key says, and its type
// resolves alike in every file of the group (see typeSettles for what
// the hints vouch for of each file): a type of the group's package; or
// one its import's package declares, whose qualifier nothing in the folder
// shadows (folderSettles). Otherwise the resolver would look the bare name
// up in the file (members.go's resolveType).
func (r *Resolver) typedSettlesAs(k settledKey, rep RefID, name string) bool {
	f := r.file(rep.Path)
	if f == nil || f.Lang != "go" || rep.Index < 0 || int(rep.Index) >= len(f.Refs) {
		return false
	}
	ref := f.Refs[rep.Index]
	if ref.Name != name || ref.Role != k.role {
		return false
	}
	h := newFileHinter(f)
	hint := h.hint(ref)
	if typ, ok := typedSettled(hint); !ok || typ != k.typ {
		return false
	}
	t, _ := h.qualifierType(ref)
	if k.imp == "" {
		return f.Package == k.pkg && HintImport(hint) < 0
	}
	imp := HintImport(hint)
	if imp < 0 || imp >= len(f.Imports) || f.Imports[imp].Path != k.imp || !r.folderSettles(k) {
		return false
	}
	if t.pkgRoot {
		// A chain from the package: its first member is the package's.
		return len(r.goImportMember(k.imp, t.name, analysis.RoleRead)) > 0 ||
			len(r.goImportMember(k.imp, t.name, analysis.RoleCall)) > 0
	}
	return len(r.goImportMember(k.imp, t.name, analysis.RoleType)) > 0
}
