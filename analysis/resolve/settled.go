package resolve

import (
	"path"
	"path/filepath"
	"slices"

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

// hintedNamed lists the hinted references named like names.
func (r *Resolver) hintedNamed(h RefHinter, names []string) []HintedRef {
	r.mu.Lock()
	if m := r.hinted; slices.Equal(m.names, names) && m.refs != nil {
		r.mu.Unlock()
		return m.refs
	}
	r.mu.Unlock()
	refs := []HintedRef{}
	for _, n := range names {
		refs = append(refs, h.HintedRefsNamed(n)...)
	}
	r.mu.Lock()
	r.hinted = hintedMemo{slices.Clone(names), refs}
	r.mu.Unlock()
	return refs
}

// settledKey is what a settled selector's resolution depends on (see
// hintSettled): the folder of its file, its import's path, its role, and
// whether its scopes are plain.
type settledKey struct {
	dir, imp string
	role     analysis.Role
	plain    bool
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
func (r *Resolver) settleReferences(def DefID, ids []RefID, found []Reference, ok []bool, whole WholeFile) []bool {
	f := r.file(def.Path)
	h, hinter := r.ws.(RefHinter)
	sp, spanner := r.ws.(RefSpanner)
	if f == nil || !hinter || !spanner || def.Index < 0 || int(def.Index) >= len(f.Defs) || f.Lang != "go" || len(ids) < 2 {
		return nil
	}
	name := f.Defs[def.Index].Name
	hints := map[RefID]HintedRef{}
	for _, ref := range r.hintedNamed(h, r.UseNames(def)) {
		if ref.Hint&hintSettled != 0 && ref.Import != "" {
			hints[ref.RefID] = ref
		}
	}
	groups := map[settledKey][]int{}
	var keys []settledKey // in order of first member, so that work is deterministic
	for i, id := range ids {
		ref, ok := hints[id]
		if !ok {
			continue
		}
		k := settledKey{filepath.Dir(id.Path), ref.Import, ref.Role, ref.Hint&hintPlainScopes != 0}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	done := make([]bool, len(ids))
	spans := map[string][]int{} // by file: the ids whose spans to read
	for _, k := range keys {
		members := groups[k]
		if len(members) < 2 {
			continue
		}
		first := ids[r.smallestFile(ids, members)]
		release := r.holdWhole(first.Path, []int32{first.Index}, whole)
		settles := r.settles(k, first, name)
		var rep Reference
		var hit bool
		if settles {
			rep, hit = r.ResolvesTo(first, def)
		}
		release()
		if !settles {
			continue
		}
		for _, i := range members {
			done[i], ok[i] = true, hit
			if hit {
				found[i] = rep
				found[i].Ref, found[i].Role = ids[i], k.role
				spans[ids[i].Path] = append(spans[ids[i].Path], i)
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
	return done
}

// FileSizer is implemented by a workspace that knows its files' sizes
// without reading them (0 when it does not).
type FileSizer interface {
	FileSize(path string) int64
}

// smallestFile returns, of the ids at the indexes members (a settled
// group), the one whose file is smallest: any member settles the group,
// and resolving it reads its file whole. Groups took their first member's
// file, as often a large one (a generated syscall file, a test file) as
// a small one: unsafe.Pointer's groups read 130 ms of files whole, most of
// its query.
func (r *Resolver) smallestFile(ids []RefID, members []int) int {
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

// settles reports whether the selectors of a group resolve alike, checking
// what their hints cannot say on the group's first member, rep: nothing
// in the folder is named like the qualifier (the package's other files
// are in scope), nothing that can be a member is so named anywhere when
// the scopes are not plain, and rep is what its hint says, resolved
// through its import.
func (r *Resolver) settles(k settledKey, rep RefID, name string) bool {
	q := goImportName(analysis.Import{Path: k.imp, Name: path.Base(k.imp)})
	for _, e := range r.defs(q) {
		if e.Lang == "go" && (filepath.Dir(e.Path) == k.dir || !k.plain && memberKind(e.Kind)) {
			return false
		}
	}
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

// memberKind reports whether a Go definition of kind k can be found among
// a type's members: a field (embedded ones too), a method, a type
// parameter (declared inside its type).
func memberKind(k analysis.Kind) bool {
	return k == analysis.KindField || k == analysis.KindMethod || k == analysis.KindTypeParameter
}
