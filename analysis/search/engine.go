// Package search is kast's code search over a workspace: regex narrowed by a
// trigram index and confirmed by Go's regexp, BM25 over identifier-split
// terms, semantic search through an Embedder, and hybrid reciprocal rank
// fusion. Chunks come from the analysis core's definitions. Postings,
// chunks and vectors live in the workspace's badger index, in tables of
// their own (see store.go).
//
// engine.go is long: the engine's state, its refresh and its persistence are
// one mechanism whose locking is easiest to check in one file.
package search

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/memlimit"
	"github.com/kast-dev/kast/storage"
	"github.com/kast-dev/kast/storage/scan"
)

// FactsFunc extracts a file's facts, or returns nil for a file without a
// grammar (it is then chunked in line windows).
type FactsFunc func(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error)

// Options configures Open.
type Options struct {
	Embedder Embedder  // default NewLearned(), trained on the workspace
	Facts    FactsFunc // default IndexFacts(ix)
	// Watch keeps the engine's walks fresh by watching the folders they
	// enter, so searches on an unchanged tree walk nothing (see fresh.go).
	// For long-lived engines; Close stops the watching.
	Watch bool
}

// Engine searches one workspace root. Queries may run concurrently; Refresh
// excludes them while it swaps in new state.
type Engine struct {
	root  string
	store *storage.SearchStore
	emb   Embedder
	facts FactsFunc
	fresh *freshness // nil: every refresh and listing walks

	refreshMu sync.Mutex   // one refresh at a time
	mu        sync.RWMutex // guards st
	st        *state
}

type state struct {
	meta        meta
	files       map[string]*fileEntry // by relative path
	byID        map[uint32]*fileEntry
	totalChunks int
	totalTerms  int64
	vecs        *vectorSet // loaded on first semantic query
	updated     time.Time
}

// IndexFacts reuses the facts the symbol index already holds for a file's
// content, and extracts them otherwise.
func IndexFacts(ix *storage.Index) FactsFunc {
	return func(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
		l, ok := lang.ForPath(path)
		if !ok {
			return nil, nil
		}
		if f, ok, err := ix.FactsByHash(storage.HashContent(src), l.ID); err == nil && ok {
			return f, nil
		}
		return l.Extract(ctx, path, src)
	}
}

// Open returns the search engine of the workspace at root over ix.
func Open(root string, ix *storage.Index, opts Options) (*Engine, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	e := &Engine{root: abs, store: ix.SearchStore(), emb: opts.Embedder, facts: opts.Facts}
	if e.emb == nil {
		e.emb = NewLearned()
	}
	if pw, ok := e.emb.(perWorkspace); ok {
		e.emb = pw.forWorkspace() // a model of this workspace's own
	}
	if e.facts == nil {
		e.facts = IndexFacts(ix)
	}
	if opts.Watch {
		e.fresh = newFreshness() // nil where the system cannot watch
	}
	return e, nil
}

// Close stops watching the workspace; the engine still answers, walking.
func (e *Engine) Close() {
	e.fresh.close()
}

// searchExcludes are the folders the search index never enters: storage/
// scan's, except vendor, which grep and ck search (Go's own tree vendors
// 26 MB), so it is indexed rather than scanned on every search.
var searchExcludes = slices.DeleteFunc(slices.Clone(scan.DefaultExcludes), func(d string) bool { return d == "vendor" })

// Root is the workspace root.
func (e *Engine) Root() string { return e.root }

// Embedder is the engine's embedder.
func (e *Engine) Embedder() Embedder { return e.emb }

// load reads the file rows, or starts afresh when the layout changed.
func (e *Engine) load() (*state, error) {
	e.mu.RLock()
	st := e.st
	e.mu.RUnlock()
	if st != nil {
		return st, nil
	}
	st = &state{files: map[string]*fileEntry{}, byID: map[uint32]*fileEntry{}}
	raw, ok, err := e.store.Get([]byte{subMeta})
	if err != nil {
		return nil, err
	}
	if ok {
		st.meta, err = decodeMeta(raw)
	}
	if !ok || err != nil || st.meta.version != layoutVersion {
		if err := e.store.DropSearch(); err != nil {
			return nil, err
		}
		st.meta = meta{version: layoutVersion, nextFile: 1}
	} else {
		if le, ok := e.emb.(*learnedEmbedder); ok && le.model() == nil {
			m, err := e.loadModel(le.cfg.Dims)
			if err != nil {
				return nil, err
			}
			le.setModel(m)
		}
		err = e.store.Scan([]byte{subFile}, false, func(k, v []byte) error {
			f, err := decodeFile(string(k[1:]), v)
			if err != nil {
				return err
			}
			st.add(f)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	e.mu.Lock()
	if e.st == nil {
		e.st = st
	}
	st = e.st
	e.mu.Unlock()
	return st, nil
}

func (st *state) add(f *fileEntry) {
	st.files[f.path] = f
	st.byID[f.id] = f
	st.totalChunks += len(f.chunks)
	for _, c := range f.chunks {
		st.totalTerms += int64(c.Terms)
	}
}

func (st *state) remove(f *fileEntry) {
	delete(st.files, f.path)
	delete(st.byID, f.id)
	st.totalChunks -= len(f.chunks)
	for _, c := range f.chunks {
		st.totalTerms -= int64(c.Terms)
	}
}

// clone copies the maps so queries keep a consistent view during a refresh.
func (st *state) clone() *state {
	c := *st
	c.files = make(map[string]*fileEntry, len(st.files))
	c.byID = make(map[uint32]*fileEntry, len(st.byID))
	for k, v := range st.files {
		c.files[k] = v
	}
	for k, v := range st.byID {
		c.byID[k] = v
	}
	return &c
}

// Progress reports a refresh's reading and embedding.
type Progress struct {
	Stage      string // "scan", "index", "train", "embed"
	Done       int64
	Total      int64
	DoneFiles  int
	TotalFiles int
}

// IndexReport says what a refresh did; Duration is indexing time only.
type IndexReport struct {
	Files     int   `json:"files"`
	Indexed   int   `json:"filesIndexed"`
	Touched   int   `json:"filesTouched"`
	Removed   int   `json:"filesRemoved"`
	Chunks    int   `json:"chunks"`
	NewChunks int   `json:"chunksCreated"`
	Embedded  int   `json:"chunksEmbedded"`
	Reused    int   `json:"vectorsReused"`
	Bytes     int64 `json:"bytesRead"`
	Compacted bool  `json:"compacted"`
	Trained   bool  `json:"modelTrained"` // the learned embedder learned a new model
	// Skipped counts the files left out and why: over the index's size
	// limit (regex search still scans them), binary, unreadable.
	Skipped  scan.Skipped  `json:"filesSkipped"`
	Duration time.Duration `json:"-"`
}

// Refresh brings the search index up to date with the files under the root:
// only files whose size or mtime changed are read, only changed content is
// re-chunked, and only chunks without a vector for the current model are
// embedded. force drops the search index first.
func (e *Engine) Refresh(ctx context.Context, force bool, progress func(Progress)) (IndexReport, error) {
	e.refreshMu.Lock()
	defer e.refreshMu.Unlock()
	start := time.Now()
	if progress == nil {
		progress = func(Progress) {}
	}
	if force {
		if err := e.store.DropSearch(); err != nil {
			return IndexReport{}, err
		}
		e.mu.Lock()
		e.st = nil
		e.mu.Unlock()
		if le, ok := e.emb.(*learnedEmbedder); ok {
			le.setModel(nil)
		}
	}
	old, err := e.load()
	if err != nil {
		return IndexReport{}, err
	}
	if !force && e.fresh.fresh() {
		// Watched and unchanged since the last refresh: nothing to read.
		return IndexReport{Files: len(old.files), Duration: time.Since(start)}, nil
	}
	defer memlimit.Tighten(nonGoHeadroom)()
	var gen uint64
	if e.fresh != nil {
		gen = e.fresh.begin()
	}
	e.mu.RLock() // queries may be filling in old.vecs
	st := old.clone()
	e.mu.RUnlock()
	progress(Progress{Stage: "scan"})
	found, err := scan.Walk(ctx, e.root, scan.Options{Excludes: searchExcludes, Unchanged: func(path string, size int64, mtime time.Time) bool {
		cur, ok := st.files[e.rel(path)]
		return ok && cur.size == size && cur.mtime == mtime.UnixNano()
	}})
	if err != nil {
		return IndexReport{}, err
	}
	var rep IndexReport
	rep.Files, rep.Skipped = len(found.Files), found.Skipped
	seen := make(map[string]bool, len(found.Files))
	var changed []scan.File
	var total int64
	for _, f := range found.Files {
		rel := e.rel(f.Path)
		seen[rel] = true
		if cur, ok := st.files[rel]; ok && cur.size == f.Size && cur.mtime == f.ModTime.UnixNano() {
			continue
		}
		changed = append(changed, f)
		total += f.Size
	}
	var removed []*fileEntry
	for rel, f := range st.files {
		if !seen[rel] {
			removed = append(removed, f)
		}
	}
	b := &builder{e: e, emb: e.emb, old: old, st: st, pending: newPendingPostings()}
	if err := b.index(ctx, changed, total, &rep, progress); err != nil {
		return rep, err
	}
	for _, f := range removed {
		st.remove(f)
		st.meta.dead++
		rep.Removed++
		b.deleted = append(b.deleted, fileKey(f.path))
	}
	if err := b.flush(); err != nil {
		return rep, err
	}
	if b.emb, err = e.learnModel(ctx, st, &rep, progress); err != nil {
		return rep, err
	}
	modelChanged := st.meta.model != b.emb.Model() || st.meta.dim != b.emb.Dim()
	if err := b.embed(ctx, modelChanged, &rep, progress); err != nil {
		return rep, err
	}
	if modelChanged || rep.Embedded > 0 {
		st.vecs = nil // reloaded by the next semantic query
	}
	if st.meta.segments > 16 || st.meta.dead > 1000 && st.meta.dead > len(st.files)/4 {
		if err := e.compact(st); err != nil {
			return rep, err
		}
		rep.Compacted = true
	}
	for _, f := range st.files {
		rep.Chunks += len(f.chunks)
	}
	st.updated = time.Now()
	e.publishModel(b.emb) // with the state its vectors belong to
	e.mu.Lock()
	e.st = st
	e.mu.Unlock()
	if e.fresh != nil && e.fresh.watch(found.Dirs, gen) {
		e.fresh.setIndexed(gen)
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

func (e *Engine) rel(abs string) string {
	// The walks' paths are clean joins below the root: cut, not Rel's
	// cleaning, which was a sixth of a selective search.
	if r, ok := strings.CutPrefix(abs, e.root+string(filepath.Separator)); ok && cleanRel(r) {
		return filepath.ToSlash(r)
	}
	r, err := filepath.Rel(e.root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// cleanRel reports whether r, a path below a folder, is already clean.
func cleanRel(r string) bool {
	sep := string(filepath.Separator)
	if r == "" || r == "." || r == ".." || strings.HasPrefix(r, sep) || strings.HasSuffix(r, sep) ||
		strings.HasPrefix(r, ".."+sep) || strings.HasPrefix(r, "."+sep) || strings.HasSuffix(r, sep+".") || strings.HasSuffix(r, sep+"..") {
		return false
	}
	return !strings.Contains(r, sep+sep) && !strings.Contains(r, sep+"."+sep) && !strings.Contains(r, sep+".."+sep)
}

func (e *Engine) abs(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

func beUint64(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// Status describes the index for index_status.
type Status struct {
	Root        string    `json:"root"`
	Indexed     bool      `json:"indexed"`
	Files       int       `json:"file_count"`
	Chunks      int       `json:"chunk_count"`
	Embedded    int       `json:"embedded_chunks"`
	Model       string    `json:"embedding_model"`
	Dim         int       `json:"embedding_dimensions"`
	Segments    int       `json:"segments"`
	IndexBytes  int64     `json:"index_size_bytes"`
	SourceBytes int64     `json:"source_size_bytes"`
	Updated     time.Time `json:"last_updated"`
}

// Status reports what is indexed, without refreshing.
func (e *Engine) Status() (Status, error) {
	st, err := e.load()
	if err != nil {
		return Status{}, err
	}
	s := Status{Root: e.root, Indexed: len(st.files) > 0, Files: len(st.files), Chunks: st.totalChunks,
		Model: st.meta.model, Dim: st.meta.dim, Segments: st.meta.segments, Updated: st.updated}
	if s.Updated.IsZero() && st.meta.updated > 0 {
		s.Updated = time.Unix(0, st.meta.updated) // written by an earlier process
	}
	for _, f := range st.files {
		s.SourceBytes += f.size
	}
	if err := e.store.Scan([]byte{subVector}, true, func([]byte, []byte) error { s.Embedded++; return nil }); err != nil {
		return s, err
	}
	s.IndexBytes, err = e.store.Size()
	if err != nil {
		return s, fmt.Errorf("search: %w", err)
	}
	return s, nil
}
