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
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
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
	defer tightenMemoryLimit()()
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

// builder accumulates one refresh's writes.
type builder struct {
	e       *Engine
	emb     Embedder // e.emb, or a newly trained model not yet published
	old     *state   // the published state: read-only, shared with workers
	st      *state
	pending *pendingPostings
	files   []*fileEntry // rows to write
	deleted [][]byte     // rows to delete
}

type extracted struct {
	f        scan.File
	hash     [32]byte
	chunks   []Chunk
	trigrams []uint32
	terms    fileTerms
	err      error
}

// index reads, chunks and tokenizes the changed files in parallel; the
// results are applied in order so file ids (and thus postings) ascend. At
// most a few files per worker are extracted ahead of the one applied, so a
// slow write of a segment does not pile up extracted files.
func (b *builder) index(ctx context.Context, files []scan.File, total int64, rep *IndexReport, progress func(Progress)) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	results := make([]chan extracted, len(files))
	for i := range results {
		results[i] = make(chan extracted, 1)
	}
	slots := make(chan struct{}, 4*workers)
	// One large file is parsed at a time: its syntax tree (in C, unseen by
	// Go's memory limit) and its facts are tens of times its size.
	large := make(chan struct{}, 1)
	next := make(chan int)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			set, tb := NewTrigramSet(), newTermsBuilder()
			for i := range next {
				if files[i].Size <= largeFile {
					results[i] <- b.extract(ctx, files[i], set, tb)
					continue
				}
				select {
				case large <- struct{}{}:
				case <-ctx.Done():
					results[i] <- extracted{f: files[i], err: ctx.Err()}
					continue
				}
				// Hand the heap's idle pages back first, so the parser's C
				// memory lands on Go's live heap rather than on top of
				// garbage already collected but still resident.
				debug.FreeOSMemory()
				x := b.extract(ctx, files[i], set, tb)
				<-large
				results[i] <- x
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range files {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	var done int64
	for i := range files {
		var x extracted
		select {
		case x = <-results[i]:
			<-slots
		case <-ctx.Done():
			return ctx.Err()
		}
		done += files[i].Size
		progress(Progress{Stage: "index", Done: done, Total: total, DoneFiles: i + 1, TotalFiles: len(files)})
		if x.err != nil {
			continue // unreadable now: left out like scan's skips
		}
		rep.Bytes += x.f.Size
		rel := b.e.rel(x.f.Path)
		cur, ok := b.st.files[rel]
		if ok && cur.hash == x.hash {
			t := *cur
			t.size, t.mtime = x.f.Size, x.f.ModTime.UnixNano()
			b.st.files[rel], b.st.byID[t.id] = &t, &t
			b.files = append(b.files, &t)
			rep.Touched++
			continue
		}
		if ok {
			b.st.remove(cur)
			b.st.meta.dead++
		}
		f := &fileEntry{id: b.st.meta.nextFile, path: rel, size: x.f.Size, mtime: x.f.ModTime.UnixNano(), hash: x.hash, chunks: x.chunks}
		b.st.meta.nextFile++
		b.st.add(f)
		b.files = append(b.files, f)
		rep.Indexed++
		rep.NewChunks += len(f.chunks)
		for _, t := range x.trigrams {
			b.pending.addTrigram(t, f.id)
		}
		for _, r := range x.terms.rows {
			b.pending.addTerm(x.terms.term(r), f.id, r.chunk, r.tf)
		}
		if b.pending.bytes > pendingBudget {
			if err := b.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// largeFile is the size from which files are extracted one at a time.
const largeFile = 256 << 10

func (b *builder) extract(ctx context.Context, f scan.File, set *TrigramSet, tb *termsBuilder) extracted {
	x := extracted{f: f}
	src, err := os.ReadFile(f.Path)
	if err != nil {
		x.err = err
		return x
	}
	x.hash = sha256.Sum256(src)
	rel := b.e.rel(f.Path)
	if cur, ok := b.old.files[rel]; ok && cur.hash == x.hash {
		return x
	}
	facts, err := b.e.facts(ctx, f.Path, src)
	if err != nil {
		facts = nil // unparsable: chunk it as text rather than lose it
	}
	x.chunks = Chunks(facts, src)
	x.trigrams = slices.Clone(set.Of(src))
	x.terms = tb.of(src, x.chunks)
	return x
}

// flush writes the pending postings as a new segment, then the file rows,
// then the meta row: a crash in between leaves only unreferenced postings.
func (b *builder) flush() error {
	if len(b.files) == 0 && len(b.deleted) == 0 && b.pending.empty() {
		return nil
	}
	seg := b.st.meta.nextSeg
	if !b.pending.empty() {
		b.st.meta.nextSeg++
		b.st.meta.segments++
	}
	b.st.meta.updated = time.Now().UnixNano()
	err := b.e.store.Write(func(w *storage.SearchWriter) error {
		if err := w.Set([]byte{subMeta}, b.st.meta.encode()); err != nil {
			return err
		}
		for t, r := range b.pending.trigrams {
			if err := w.Set(trigramKey(t, seg), r.buf); err != nil {
				return err
			}
		}
		for term, r := range b.pending.terms {
			if err := w.Set(termKey(term, seg), r.buf); err != nil {
				return err
			}
		}
		for _, f := range b.files {
			if err := w.Set(fileKey(f.path), f.encode()); err != nil {
				return err
			}
		}
		for _, k := range b.deleted {
			if _, ok := b.st.files[string(k[1:])]; ok {
				continue // re-added in this refresh
			}
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	b.pending.reset()
	b.files, b.deleted = b.files[:0], b.deleted[:0]
	return err
}

// embed computes vectors for the chunks that have none for this model. A
// model or dimension change drops every vector first.
func (b *builder) embed(ctx context.Context, modelChanged bool, rep *IndexReport, progress func(Progress)) error {
	have := map[uint64]bool{}
	if modelChanged {
		if err := b.e.dropPrefix([]byte{subVector}); err != nil {
			return err
		}
	} else if err := b.e.store.Scan([]byte{subVector}, true, func(k, _ []byte) error {
		have[beUint64(k[1:])] = true
		return nil
	}); err != nil {
		return err
	}
	type job struct {
		hash uint64
		file *fileEntry
		c    Chunk
	}
	var jobs []job
	queued := map[uint64]bool{}
	for _, f := range b.st.files {
		for _, c := range f.chunks {
			if have[c.Hash] {
				rep.Reused++
			} else if !queued[c.Hash] {
				queued[c.Hash] = true
				jobs = append(jobs, job{c.Hash, f, c})
			}
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].file.path < jobs[j].file.path })
	const batch = 64
	var srcPath string
	var src []byte
	for i := 0; i < len(jobs); i += batch {
		part := jobs[i:min(i+batch, len(jobs))]
		texts := make([]string, 0, len(part))
		for _, j := range part {
			if j.file.path != srcPath {
				srcPath = j.file.path
				var err error
				if src, err = os.ReadFile(b.e.abs(j.file.path)); err != nil {
					src = nil
				}
			}
			texts = append(texts, embedText(j.c, src))
		}
		vecs, err := b.emb.Embed(ctx, texts)
		if err != nil {
			return err
		}
		err = b.e.store.Write(func(w *storage.SearchWriter) error {
			for k, j := range part {
				if err := w.Set(vectorKey(j.hash), quantize(vecs[k])); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		rep.Embedded += len(part)
		progress(Progress{Stage: "embed", Done: int64(i + len(part)), Total: int64(len(jobs))})
	}
	if modelChanged || len(jobs) > 0 {
		b.st.meta.model, b.st.meta.dim = b.emb.Model(), b.emb.Dim()
		return b.e.store.Write(func(w *storage.SearchWriter) error {
			return w.Set([]byte{subMeta}, b.st.meta.encode())
		})
	}
	return nil
}

// embedText is what a chunk's vector is computed from: its breadcrumb and
// text, cut to what embedders take comfortably.
func embedText(c Chunk, src []byte) string {
	text := ""
	if c.End <= len(src) {
		text = string(src[c.Start:c.End])
	}
	if c.Name != "" {
		text = c.Name + "\n" + text
	}
	return text[:min(len(text), 4*maxChunk)]
}

func beUint64(b []byte) uint64 {
	if len(b) < 8 {
		return 0
	}
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

func (e *Engine) dropPrefix(prefix []byte) error {
	var keys [][]byte
	if err := e.store.Scan(prefix, true, func(k, _ []byte) error {
		keys = append(keys, slices.Clone(k))
		return nil
	}); err != nil {
		return err
	}
	return e.store.Write(func(w *storage.SearchWriter) error {
		for _, k := range keys {
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// compact merges every posting row's segments into segment 0, dropping dead
// file ids, and deletes vectors no live chunk uses.
func (e *Engine) compact(st *state) error {
	for _, sub := range []byte{subTrigram, subTerm} {
		var group []byte
		var rows [][]byte // keys of the current group
		var ids []uint32
		var ps []termPosting
		writeGroup := func(w *storage.SearchWriter) error {
			if group == nil {
				return nil
			}
			for _, k := range rows {
				if err := w.Delete(k); err != nil {
					return err
				}
			}
			var v []byte
			if sub == subTrigram {
				ids = slices.DeleteFunc(ids, func(id uint32) bool { return st.byID[id] == nil })
				slices.Sort(ids)
				if len(ids) > 0 {
					v = encodeIDs(ids)
				}
			} else {
				ps = slices.DeleteFunc(ps, func(p termPosting) bool { return st.byID[p.file] == nil })
				sort.SliceStable(ps, func(i, j int) bool { return ps[i].file < ps[j].file })
				if len(ps) > 0 {
					v = encodeTermPostings(ps)
				}
			}
			if v != nil {
				return w.Set(binaryAppendSeg(group, 0), v)
			}
			return nil
		}
		err := e.store.Write(func(w *storage.SearchWriter) error {
			return e.store.Scan([]byte{sub}, false, func(k, v []byte) error {
				p := k[:len(k)-4]
				if !bytes.Equal(p, group) {
					if err := writeGroup(w); err != nil {
						return err
					}
					group, rows, ids, ps = slices.Clone(p), rows[:0], ids[:0], ps[:0]
				}
				rows = append(rows, slices.Clone(k))
				var err error
				if sub == subTrigram {
					ids, err = decodeIDs(v, ids)
				} else {
					ps, err = decodeTermPostings(v, ps)
				}
				return err
			})
		})
		if err != nil {
			return err
		}
		if err := e.store.Write(writeGroup); err != nil {
			return err
		}
	}
	used := map[uint64]bool{}
	for _, f := range st.files {
		for _, c := range f.chunks {
			used[c.Hash] = true
		}
	}
	var unused [][]byte
	if err := e.store.Scan([]byte{subVector}, true, func(k, _ []byte) error {
		if !used[beUint64(k[1:])] {
			unused = append(unused, slices.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	st.meta.segments, st.meta.dead = 1, 0
	return e.store.Write(func(w *storage.SearchWriter) error {
		for _, k := range unused {
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		return w.Set([]byte{subMeta}, st.meta.encode())
	})
}

func binaryAppendSeg(prefix []byte, seg uint32) []byte {
	return append(slices.Clone(prefix), byte(seg>>24), byte(seg>>16), byte(seg>>8), byte(seg))
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
