package workspace

import (
	"log/slog"
	"sync"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
)

// maxCachedFacts bounds the decoded facts kept between queries; resolution
// touches the same few files repeatedly, so a small cache saves most decoding.
const maxCachedFacts = 4096

// view adapts the storage index to resolve.Workspace. Decoded facts and the
// package table are cached until the next Refresh.
type view struct {
	ix  *storage.Index
	log *slog.Logger

	mu    sync.Mutex
	facts map[string]*analysis.FileFacts
	paths []string
	pkgs  map[[2]string][]string
}

func newView(ix *storage.Index, log *slog.Logger) *view {
	return &view{ix: ix, log: log, facts: map[string]*analysis.FileFacts{}}
}

// forget drops what the cache knows of one file after it was reindexed.
func (v *view) forget(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.facts, path)
	v.paths, v.pkgs = nil, nil
}

// invalidate drops what the cache knows after the index changed.
func (v *view) invalidate() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.facts = map[string]*analysis.FileFacts{}
	v.paths, v.pkgs = nil, nil
}

func (v *view) File(path string) *analysis.FileFacts {
	v.mu.Lock()
	f, ok := v.facts[path]
	v.mu.Unlock()
	if ok {
		return f
	}
	f, err := v.ix.Facts(path)
	if err != nil {
		v.log.Debug("index has no facts", "path", path, "err", err)
		return nil
	}
	v.mu.Lock()
	if len(v.facts) >= maxCachedFacts {
		v.facts = map[string]*analysis.FileFacts{}
	}
	v.facts[path] = f
	v.mu.Unlock()
	return f
}

func (v *view) Files() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.paths
}

func (v *view) FilesInPackage(lang, pkg string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.pkgs[[2]string{lang, pkg}]
}

// loadFilesLocked reads the file table once per refresh.
func (v *view) loadFilesLocked() {
	if v.paths != nil {
		return
	}
	files, err := v.ix.Files()
	if err != nil {
		v.log.Warn("listing indexed files failed", "err", err)
	}
	v.paths = make([]string, 0, len(files))
	v.pkgs = map[[2]string][]string{}
	for _, f := range files {
		v.paths = append(v.paths, f.Path)
		key := [2]string{f.Lang, f.Package}
		v.pkgs[key] = append(v.pkgs[key], f.Path)
	}
}

func (v *view) DefsNamed(name string) []resolve.DefID {
	hits, err := v.ix.DefsNamed(name)
	if err != nil {
		v.log.Warn("definition lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.DefID, len(hits))
	for i, h := range hits {
		out[i] = resolve.DefID{Path: h.Path, Index: int32(h.Index)}
	}
	return out
}

func (v *view) RefsNamed(name string) []resolve.RefID {
	hits, err := v.ix.RefsNamed(name)
	if err != nil {
		v.log.Warn("reference lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.RefID, len(hits))
	for i, h := range hits {
		out[i] = resolve.RefID{Path: h.Path, Index: int32(h.Index)}
	}
	return out
}

func (v *view) SupertypesNamed(name string) []resolve.SupertypeID {
	edges, err := v.ix.Subtypes(name)
	if err != nil {
		v.log.Warn("subtype lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.SupertypeID, len(edges))
	for i, e := range edges {
		out[i] = resolve.SupertypeID{Path: e.Path, Index: int32(e.Index)}
	}
	return out
}
