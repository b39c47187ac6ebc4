package workspace

import (
	"runtime"
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
)

// shared is what snapshots equal to the indexes share while no index
// changes: a snapshot of the indexes alone with its resolver and the facts
// it read, and the references found through it.
type shared struct {
	roots []*Workspace
	gens  []uint64 // each root's view generation

	mu    sync.Mutex
	base  *Snapshot
	refs  map[resolve.DefID][]resolve.Reference
	nrefs int // total length of refs' lists
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
	sh := &shared{roots: roots, gens: gens, base: newSnapshot(roots), refs: map[resolve.DefID][]resolve.Reference{}}
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
	if sh.base.cachedBytes() > sharedFactsBytes {
		sh.base = newSnapshot(sh.roots)
	}
}

func (sh *shared) references(def resolve.DefID) ([]resolve.Reference, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	refs, ok := sh.refs[def]
	return refs, ok
}

func (sh *shared) remember(def resolve.DefID, refs []resolve.Reference) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(refs) > maxRememberedRefs {
		return
	}
	if sh.nrefs+len(refs) > maxRememberedRefs {
		clear(sh.refs)
		sh.nrefs = 0
	}
	sh.refs[def] = refs
	sh.nrefs += len(refs)
}

// References lists the references that resolve to def, as
// resolve.Resolver.References does, remembering them for later snapshots
// equal to the indexes. The result must not be modified.
func (s *Snapshot) References(def resolve.DefID) []resolve.Reference {
	if s.shared != nil {
		if refs, ok := s.shared.references(def); ok {
			return refs
		}
	}
	refs, ok := s.storedReferences(def)
	if !ok {
		s.prefetchReferences(def)
		refs = s.Resolver().References(def)
	}
	if s.shared != nil {
		s.shared.remember(def, refs)
		s.shared.trim()
	}
	return refs
}

// prefetchReferences decodes the files holding references named like def
// on every core, before the resolver reads them one by one: decoding is
// most of the work of finding the references of a common name.
func (s *Snapshot) prefetchReferences(def resolve.DefID) {
	f := s.File(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) || resolve.DeclaredInBody(f, def.Index) {
		return // the resolver looks in def's own file only
	}
	target := s
	if s.shared != nil {
		target = s.shared.snapshot()
	}
	var paths []string
	seen := map[string]bool{}
	for _, id := range s.RefsNamed(f.Defs[def.Index].Name) {
		if !seen[id.Path] && !s.IsOpen(id.Path) {
			seen[id.Path] = true
			paths = append(paths, id.Path)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 8, len(paths)/minPrefetchPerWorker)
	if workers < 2 {
		return // reading them in order is as quick
	}
	var wg sync.WaitGroup
	next := make(chan string)
	for range workers {
		wg.Go(func() {
			for p := range next {
				if target.cachedBytes() >= snapshotFactsBytes {
					continue // more would not be kept
				}
				target.File(p)
			}
		})
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
}

// minPrefetchPerWorker is the least work that pays for a goroutine.
const minPrefetchPerWorker = 16
