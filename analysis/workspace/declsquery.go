package workspace

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// declsView is a snapshot as its reference queries' resolver reads it: the
// Go files resolution crosses into as declarations tables (storage's
// Decls), what the background pass reads of them too, and the files whose
// references are resolved whole (resolve.Resolver.ReferencesAmongWhole).
// Open documents and other languages are read as the snapshot reads them.
type declsView struct {
	*Snapshot
}

func (d declsView) File(path string) *analysis.FileFacts {
	if _, open := d.open[path]; open || !strings.HasSuffix(path, ".go") {
		return d.Snapshot.File(path)
	}
	w := owner(d.roots, path)
	if w == nil {
		return nil
	}
	w.view.touch() // a query: the pass yields to it
	return w.view.peekDecls(path)
}

// declsResolver returns the resolver of the snapshot's reference queries,
// made once; a snapshot equal to the indexes shares it with others like it.
func (s *Snapshot) declsResolver() *resolve.Resolver {
	if s.shared != nil {
		return s.shared.snapshot().declsResolver()
	}
	s.declsOnce.Do(func() { s.decls = resolve.NewWithBudget(declsView{s}, factsBudget(s.roots, snapshotFactsBytes)) })
	return s.decls
}

// referencesAmong lists the references among ids that resolve to def, as
// resolve.Resolver.ReferencesAmong does, crossing into other files through
// their declarations tables.
func (s *Snapshot) referencesAmong(def resolve.DefID, ids []resolve.RefID, certain bool) []resolve.Reference {
	var memo *resolve.ResolvedMemo
	if s.shared != nil {
		memo = s.shared.resolved
	}
	return s.declsResolver().ReferencesAmongWhole(def, ids, certain, s.wholeFile, memo)
}

// wholeFile is File for a file whose references at the indexes refs a
// query resolves (resolve.WholeFile): read from the caches, else decoded
// without filling them, as those files are read once and are many
// (thousands for a common method name). Of a Go file only those references
// are built: the Go resolver reads no other of the file it resolves.
// wholeRead, set by tests only, hears of each file a reference query
// reads whole to resolve its references.
var wholeRead func(path string)

func (s *Snapshot) wholeFile(path string, refs []int32) *analysis.FileFacts {
	f, w := s.held(path, func(sh *Snapshot, path string) *analysis.FileFacts { return sh.wholeFile(path, refs) })
	if w == nil {
		return f
	}
	if wholeRead != nil {
		wholeRead(path)
	}
	w.view.touch()
	if !strings.HasSuffix(path, ".go") {
		return w.view.peek(path)
	}
	return w.view.peekWith(path, func(path string) (*analysis.FileFacts, error) {
		return w.Index.FactsWithRefs(path, refs)
	})
}

// resolveReferences is resolve.Resolver's References (CertainReferences
// when certain) through referencesAmong.
func (s *Snapshot) resolveReferences(def resolve.DefID, certain bool) []resolve.Reference {
	return s.referencesAmong(def, s.Resolver().ReferenceCandidates(def, certain), certain)
}
