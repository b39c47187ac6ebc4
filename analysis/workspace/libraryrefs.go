package workspace

import (
	"slices"

	"github.com/kast-dev/kast/analysis/resolve"
)

// References and incoming calls list the workspace's uses of a definition,
// library ones included, as gopls does; a session that asks for them
// (Session.IncludeLibraryReferences) adds the uses inside the libraries'
// own sources: who in the standard library calls fmt.Errorf.

// IncludeLibraryReferences makes the session's reference queries list the
// uses in its libraries after the workspace's.
func (s *Session) IncludeLibraryReferences(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.libraryRefs = on
}

// withLibraryReferences appends to refs, the workspace's references of def,
// those in the libraries when the snapshot's session asks for them.
func (s *Snapshot) withLibraryReferences(def resolve.DefID, certain bool, refs []resolve.Reference) []resolve.Reference {
	if !s.libraryRefs {
		return refs
	}
	key := refsKey{def: def, certain: certain, libraries: true}
	var lib []resolve.Reference
	ok := false
	if s.shared != nil {
		lib, ok = s.shared.references(key)
	}
	if !ok {
		lib = s.libraryReferences(def, certain)
		if s.shared != nil {
			s.shared.remember(key, lib)
		}
	}
	if len(lib) == 0 {
		return refs
	}
	return append(slices.Clip(refs), lib...)
}

// libraryReferences resolves every reference in the libraries' indexes
// named as def: libraries keep no stored uses, and a query that asks for
// them reads each candidate's file once.
func (s *Snapshot) libraryReferences(def resolve.DefID, certain bool) []resolve.Reference {
	f := s.File(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) {
		return nil
	}
	name := f.Defs[def.Index].Name
	var ids []resolve.RefID
	for _, w := range s.roots {
		if w.Lib == nil {
			continue
		}
		for _, id := range w.view.RefsNamed(name) {
			if s.fromIndex(w, id.Path) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return s.referencesAmong(def, ids, certain)
}
