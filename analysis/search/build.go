package search

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/kast-dev/kast/storage"
	"github.com/kast-dev/kast/storage/scan"
)

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
