package workspace

import (
	"slices"
	"sync"

	"github.com/kast-dev/kast/analysis/resolve"
)

// Requests come one after another on the same unchanged indexes, and most
// open documents are as indexed: the editor opens a file and asks about it.
// Each such request gets a snapshot equal to the indexes alone, so what one
// works out (decoded facts, the resolver's name tables and resolved types,
// reference lists) holds for the next, until an index changes. shared keeps
// it, within bounds.

const (
	// sharedFactsBytes bounds the estimated size of the facts the shared
	// resolver keeps; past it the next request starts a fresh one. A query
	// over a very common name reads most of a large workspace, more than
	// this, and the resolver holds all of it until the query ends. Like
	// maxCachedFactsBytes, it leaves the live heap room under the soft
	// memory limit.
	sharedFactsBytes = 64 << 20
	// snapshotFactsBytes bounds the facts one snapshot keeps, and its
	// resolver's memo: a reference query over a common name, before the
	// pass has stored its uses, reads hundreds of files, which were all
	// kept until the query ended (125 MB of the standard library's in one
	// heap profile of a cold start).
	snapshotFactsBytes = 32 << 20
	// maxRememberedRefs bounds the references remembered across requests.
	maxRememberedRefs = 1 << 18
	// maxResolvedRefs bounds the resolved references remembered across
	// queries (about 150 bytes each): Pos, the commonest member name of
	// the Go standard library, has 12,000.
	maxResolvedRefs = 1 << 16
)

// shared is what snapshots equal to the indexes share while no index
// changes: a snapshot of the indexes alone with its resolver and the facts
// it read, and the references found through it.
type shared struct {
	roots []*Workspace
	gens  []uint64 // each root's view generation

	mu    sync.Mutex
	base  *Snapshot
	refs  map[refsKey][]resolve.Reference
	nrefs int // total length of refs' lists
	// resolved is what reference queries' candidates resolved to.
	resolved *resolve.ResolvedMemo
}

// refsKey names a remembered list: a definition's references, or its
// certain ones only; in the workspace, or in the libraries.
type refsKey struct {
	def       resolve.DefID
	certain   bool
	libraries bool
}

// sharedFor returns the shared state for the roots at their current
// generations, starting a new one when an index changed.
func (s *Session) sharedFor(roots []*Workspace) *shared {
	gens := make([]uint64, len(roots))
	for i, w := range roots {
		gens[i] = w.view.gen.Load()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sh := s.shared; sh != nil && slices.Equal(sh.roots, roots) && slices.Equal(sh.gens, gens) {
		sh.trim()
		return sh
	}
	sh := &shared{roots: roots, gens: gens, base: newSnapshot(roots), refs: map[refsKey][]resolve.Reference{},
		resolved: &resolve.ResolvedMemo{Max: maxResolvedRefs}}
	s.shared = sh
	return sh
}

func (sh *shared) snapshot() *Snapshot {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.base
}

// trim replaces the shared resolver once it holds too many facts. Requests
// still using the old one finish with it.
func (sh *shared) trim() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.base.cachedBytes() > factsBudget(sh.roots, sharedFactsBytes) {
		sh.base = newSnapshot(sh.roots)
	}
}

func (sh *shared) references(key refsKey) ([]resolve.Reference, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	refs, ok := sh.refs[key]
	return refs, ok
}

func (sh *shared) remember(key refsKey, refs []resolve.Reference) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(refs) > maxRememberedRefs {
		return
	}
	if sh.nrefs+len(refs) > maxRememberedRefs {
		clear(sh.refs)
		sh.nrefs = 0
	}
	sh.refs[key] = refs
	sh.nrefs += len(refs)
}

// References lists the references that resolve to def, as
// resolve.Resolver.References does, remembering them for later snapshots
// equal to the indexes; the libraries' too when the session asks for them.
// The result must not be modified.
func (s *Snapshot) References(def resolve.DefID) []resolve.Reference {
	return s.withLibraryReferences(def, false, s.workspaceReferences(def))
}

func (s *Snapshot) workspaceReferences(def resolve.DefID) []resolve.Reference {
	if s.shared != nil {
		if refs, ok := s.shared.references(refsKey{def: def}); ok {
			return refs
		}
	}
	refs, ok := s.storedReferences(def, false)
	if !ok {
		refs = s.resolveReferences(def, false)
	}
	if s.shared != nil {
		s.shared.remember(refsKey{def: def}, refs)
		s.shared.trim()
	}
	return refs
}

// CertainReferences is References without the guesses (what navigation
// lists). Before the stored uses answer for def, it resolves only the files
// that may surely name def (resolve.Resolver.CertainReferences), so it is
// remembered apart from References' answer.
func (s *Snapshot) CertainReferences(def resolve.DefID) []resolve.Reference {
	return s.withLibraryReferences(def, true, s.certainWorkspaceReferences(def))
}

func (s *Snapshot) certainWorkspaceReferences(def resolve.DefID) []resolve.Reference {
	if s.shared != nil {
		if refs, ok := s.shared.references(refsKey{def: def}); ok {
			return certainOnly(refs)
		}
		if refs, ok := s.shared.references(refsKey{def: def, certain: true}); ok {
			return refs
		}
	}
	refs, ok := s.storedReferences(def, true)
	if ok {
		refs = certainOnly(refs)
	} else {
		refs = s.resolveReferences(def, true)
	}
	if s.shared != nil {
		s.shared.remember(refsKey{def: def, certain: true}, refs)
		s.shared.trim()
	}
	return refs
}

func certainOnly(refs []resolve.Reference) []resolve.Reference {
	var out []resolve.Reference
	for _, r := range refs {
		if !r.Uncertain {
			out = append(out, r)
		}
	}
	return out
}
