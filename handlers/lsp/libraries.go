package lsp

import (
	"fmt"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/golang"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/libraries"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/storage/indexer"
)

// indexLibraries waits for a root's first refresh, then adds the libraries
// it depends on to the session and indexes them in the background (once for
// the process, or not at all when an earlier run built them), with one
// $/progress for them all. Queries answer from what is indexed meanwhile.
func (s *session) indexLibraries(root string, indexed <-chan struct{}) {
	defer s.wg.Done()
	// Settled however it ends: none found, all indexed, some failed.
	defer func() {
		s.mu.Lock()
		s.libsPending--
		s.mu.Unlock()
	}()
	select {
	case <-indexed:
	case <-s.ctx.Done():
		return
	}
	found := s.l.pool.DiscoverLibraries(s.ctx, root)
	for _, sk := range found.Skipped {
		s.logf(protocol.MessageTypeWarning, "kast: library %s skipped (%s): %s", sk.Library, sk.Reason, sk.Detail)
	}
	// Each library is opened when its turn comes, not all first: an index
	// being built is writable, and a writable badger database holds a
	// 20.8 MB memtable on the Go heap, which the soft memory limit counts
	// (a module with 140 libraries held 2.9 GB so). A built one is sealed
	// read-only without it (storage.Index.Seal).
	libs := found.Libraries
	// Reports come from the goroutine that builds a library, which may
	// still be reporting as the next library starts.
	var mu sync.Mutex
	var bar *server.Progress
	opened := 0
	for i, lib := range libs {
		ws, err := s.l.pool.Library(lib)
		if err != nil {
			s.logf(protocol.MessageTypeWarning, "kast: cannot open the index of library %s: %v", lib, err)
			continue
		}
		s.engine.AddLibrary(ws)
		opened++
		if lib.Lang == "go" && lib.Module == "std" {
			// Go completion dates the standard library's names by its
			// toolchain's api files: read them now (once per process),
			// not in the first completion (60-110 ms).
			go golang.StdAPIOf(filepath.Dir(lib.Dir))
		}
		last := uint32(0)
		st, err := s.l.pool.IndexLibrary(s.ctx, lib, func(p indexer.Progress) {
			if p.Total == 0 {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if bar == nil {
				bar = s.conn.BeginProgress(s.ctx, nil, "kast: indexing libraries", lib.String(), false)
			}
			// The bar spans every library; each library's files move it
			// within its share.
			pct := uint32((i*100 + p.Done*100/p.Total) / len(libs))
			if pct != last {
				last = pct
				bar.Report(s.ctx, fmt.Sprintf("%s: %d/%d files (%d/%d libraries)", lib, p.Done, p.Total, i+1, len(libs)), pct)
			}
		})
		if err != nil {
			break // the session closed
		}
		if st.Error != "" {
			s.logf(protocol.MessageTypeWarning, "kast: indexing library %s failed: %s", lib, st.Error)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	bar.End(s.ctx, fmt.Sprintf("%d libraries indexed", opened))
}

// libraryStatus is what kast.status says of the libraries: those open in
// the process, those discovery skipped for this session's roots, the
// problems met reading the standard library's api files, and
// whether this session's library work has settled (a client waits for
// that, not for a count: a project may have no libraries at all).
func (s *session) libraryStatus() map[string]any {
	s.mu.Lock()
	settled := s.libsPending == 0
	s.mu.Unlock()
	skipped := []libraries.Skip{}
	for _, w := range s.engine.Roots() {
		skipped = append(skipped, s.l.pool.DiscoverLibraries(s.ctx, w.Root).Skipped...)
	}
	libs := s.l.pool.LibraryStatuses()
	if libs == nil {
		libs = []host.LibraryStatus{}
	}
	// Toolchains whose api files could not date the standard library's
	// names: completion then offers them whatever the file's Go version.
	return map[string]any{"settled": settled, "indexed": libs, "skipped": skipped, "stdApiProblems": golang.StdAPIProblems()}
}
