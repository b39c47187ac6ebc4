// Package indexer brings a storage.Index up to date with a workspace scan:
// it extracts changed files in parallel, writes them in batches, skips files
// whose mtime and size (or, failing those, content hash) are unchanged, and
// removes files that are gone.
package indexer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/storage"
	"github.com/kast-dev/kast/storage/scan"
)

// Extractor turns one file's content into facts. It runs concurrently on
// several goroutines and should honour ctx.
type Extractor func(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error)

// Progress reports how far a run is through the files it has to read.
type Progress struct {
	Done, Total           int
	DoneBytes, TotalBytes int64
}

// Options tunes Run. The zero value is usable.
type Options struct {
	// Workers is the number of concurrent extractions (default GOMAXPROCS).
	Workers int
	// Lang names the language of a path as the extractor will report it. When
	// set, content indexed before under another path (a rename, a copy, a
	// branch switch back) reuses the stored facts instead of being extracted.
	Lang func(path string) string
	// Progress is called from Run's goroutine after each file it reads,
	// starting with Done == 0; it should return quickly.
	Progress func(Progress)
	// Read reads a file the scan listed (default os.ReadFile); a file it
	// refuses is indexed as unreadable, so a stale entry is dropped.
	Read func(path string) ([]byte, error)
	// Release, when set, is handed the facts the extractor returned once
	// they are stored and nothing references them.
	Release func(*analysis.FileFacts)
	// First, when set, names folders whose files go before the rest, even
	// once the run has started.
	First *Priority
}

// Totals summarises a run. Files, Lines, Bytes, Defs and Refs describe the
// whole index afterwards; the other counts describe the work done.
type Totals struct {
	Files, Lines int
	Bytes        int64
	Defs, Refs   int

	Extracted int   // files parsed this run
	ReadBytes int64 // bytes of the files read this run (for MB/s)
	Reused    int   // changed files whose content was indexed before
	Touched   int   // mtime or size changed but content did not
	Unchanged int   // skipped on mtime and size alone
	Removed   int   // gone from the workspace
	Skipped   Skipped
	Elapsed   time.Duration
}

// Skipped counts files left out while reading them, by reason.
type Skipped struct {
	Unreadable int // vanished or unreadable since the scan
	Binary     int // became binary since the scan
	Malformed  int // the extractor failed or panicked
}

// batchFiles and batchBytes bound one write batch: large enough to amortise
// commits, small enough to bound memory and lose little on a crash.
const (
	batchFiles = 256
	batchBytes = 16 << 20
)

// queueFiles and queueBytes bound the results extracted but not yet taken by
// the writer. The queue absorbs the writer's pause at each batch flush, which
// with a queue of a few results left the extracting workers blocked for
// about a second of a cold index of the Go standard library; the byte bound
// (of source, whose facts take several times more) keeps the large files a
// run starts with from piling up.
const (
	queueFiles = 64
	queueBytes = 2 << 20
)

type outcome int

const (
	extracted outcome = iota
	reused
	touched
	unreadable
	binary
	malformed
)

type result struct {
	file    scan.File
	outcome outcome
	facts   *analysis.FileFacts
	indexed bool // the index holds an older state of the file
}

// Run indexes files, the complete current list of workspace files, into ix;
// indexed files missing from the list are removed. A file whose mtime and size
// match the index is not read, so a same-size rewrite within the file system's
// mtime granularity goes unnoticed until its next change (editors report such
// edits through the LSP anyway). On cancellation Run stops early, keeps what
// was written and returns ctx.Err().
func Run(ctx context.Context, ix *storage.Index, files []scan.File, extract Extractor, opts Options) (Totals, error) {
	start := time.Now()
	var tot Totals
	indexed, err := ix.Files()
	if err != nil {
		return tot, err
	}
	known := make(map[string]storage.FileState, len(indexed))
	for _, st := range indexed {
		known[st.Path] = st
	}

	var todo []job
	var progress Progress
	for _, f := range files {
		st, ok := known[f.Path]
		delete(known, f.Path) // what is left at the end was removed
		if ok && !st.Incomplete && st.Size == f.Size && st.ModTime.Equal(f.ModTime) {
			tot.Unchanged++
			continue
		}
		todo = append(todo, job{file: f, prev: st})
		progress.TotalBytes += f.Size
	}
	progress.Total = len(todo)
	todo = inQueryOrder(todo)

	w := &worker{ix: ix, extract: extract, lang: opts.Lang, read: opts.Read, queued: newBudget(queueBytes),
		parsing: newBudget(parseBytes)}
	if w.read == nil {
		w.read = os.ReadFile
	}
	results := w.start(ctx, newQueue(todo, opts.First), opts.Workers)
	if opts.Progress != nil {
		opts.Progress(progress)
	}
	err = writeResults(ix, results, &tot, opts.Release, func(r result) {
		w.queued.release(r.cost())
		progress.Done++
		progress.DoneBytes += r.file.Size
		if opts.Progress != nil {
			opts.Progress(progress)
		}
	})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = removeGone(ix, known, &tot)
	}
	if err == nil && tot.Extracted+tot.Reused+tot.Removed > 0 {
		err = ix.CollectGarbage() // replaced and removed files left blobs behind
	}
	if stats, serr := ix.Stats(); serr == nil {
		tot.Files, tot.Lines, tot.Bytes, tot.Defs, tot.Refs = stats.Files, stats.Lines, stats.Bytes, stats.Defs, stats.Refs
	} else if err == nil {
		err = serr
	}
	tot.Elapsed = time.Since(start)
	return tot, err
}

// writeResults stores results in batches; it drains the channel even after a
// write error so the workers can exit.
func writeResults(ix *storage.Index, results <-chan result, tot *Totals, release func(*analysis.FileFacts), done func(result)) error {
	var b *storage.Batch
	var err error
	files, size := 0, int64(0)
	for r := range results {
		done(r)
		tot.ReadBytes += r.file.Size
		switch r.outcome {
		case unreadable, binary:
			if r.outcome == binary {
				tot.Skipped.Binary++
			} else {
				tot.Skipped.Unreadable++
			}
			if !r.indexed || err != nil {
				continue
			}
			// An indexed file that turned binary or unreadable is no
			// longer a source file: drop its old facts.
			if b == nil {
				b = ix.NewBatch()
			}
			if err = b.RemoveFile(r.file.Path); err == nil {
				tot.Removed++
			}
			continue
		case malformed:
			tot.Skipped.Malformed++
			continue
		case extracted:
			tot.Extracted++
		case reused:
			tot.Reused++
		case touched:
			tot.Touched++
		}
		if err != nil {
			continue
		}
		if b == nil {
			b = ix.NewBatch()
		}
		if r.outcome == touched {
			err = b.TouchFile(r.file.Path, r.file.ModTime)
		} else {
			err = b.PutFile(r.file.Path, r.file.ModTime, r.facts)
			if r.outcome == extracted && release != nil {
				release(r.facts) // reused facts may be the index's cached copy
			}
		}
		if files, size = files+1, size+r.file.Size; files >= batchFiles || size >= batchBytes {
			err = errors.Join(err, b.Flush())
			b, files, size = nil, 0, 0
		}
	}
	if b != nil {
		err = errors.Join(err, b.Flush())
	}
	return err
}

func removeGone(ix *storage.Index, gone map[string]storage.FileState, tot *Totals) error {
	if len(gone) == 0 {
		return nil
	}
	b := ix.NewBatch()
	var err error
	for path := range gone {
		if err = b.RemoveFile(path); err != nil {
			break
		}
		tot.Removed++
	}
	return errors.Join(err, b.Flush())
}

// bigFile is the size from which a file is parsed amid the others rather
// than in size order (inQueryOrder).
const bigFile = 256 << 10

// inQueryOrder orders a refresh's files smallest first: while a first index
// runs, queries (symbols, definitions, completion) answer from the files
// indexed so far, and the most files are indexed soonest this way. Largest
// first, the standard library's first seconds went to twenty generated
// tables (13 MB of opGen.go, rewriteAMD64.go, zzipdata.go…) and a
// workspace/symbol query found nothing for 7 s. The files over bigFile are
// spread evenly over the middle half of the others: last, one worker
// parsing the last of them finished alone while the others idled; side by
// side in the middle, each waited for the one before (parseBytes) and the
// standard library's index ran on one core for 4 s.
func inQueryOrder(todo []job) []job {
	slices.SortStableFunc(todo, func(a, b job) int { return cmp.Compare(a.file.Size, b.file.Size) })
	small := len(todo)
	for small > 0 && todo[small-1].file.Size > bigFile {
		small--
	}
	if small == len(todo) {
		return todo
	}
	smalls, big := slices.Clone(todo[:small]), slices.Clone(todo[small:])
	out := todo[:0]
	from, span := small/4, small/2
	next := 0
	for i, j := range smalls {
		for next < len(big) && i >= from+next*span/len(big) {
			out = append(out, big[next])
			next++
		}
		out = append(out, j)
	}
	return append(out, big[next:]...)
}

// job is a file to read with its indexed state (zero if new).
type job struct {
	file scan.File
	prev storage.FileState
}

type worker struct {
	ix      *storage.Index
	extract Extractor
	lang    func(string) string
	read    func(string) ([]byte, error)
	queued  *budget // source bytes of the results waiting for the writer
	parsing *budget // source bytes being extracted
}

// parseBytes bounds the source extracted at once. A syntax tree (in C,
// outside the Go heap and its limit) takes about 30 times its source:
// the Go standard library's largest files (3 and 1.9 MB), parsed side by
// side, took the resident set 150 MB over the Go heap for a moment. A big
// file holds at most parseBytes-bigFile of it, so that files up to bigFile
// go on beside it while two big ones wait for each other.
const parseBytes = 1 << 20

// parseCost is what extracting a file of size bytes holds of parseBytes.
func parseCost(size int) int64 {
	return min(max(int64(size), 1), parseBytes-bigFile)
}

// cost is what a result holds of the queue's byte budget: its source size
// when it carries facts, at most the whole budget.
func (r result) cost() int64 {
	if r.facts == nil {
		return 0
	}
	return min(max(r.file.Size, 1), queueBytes)
}

// budget is a counting semaphore of bytes.
type budget struct {
	mu   sync.Mutex
	cond sync.Cond
	left int64
}

func newBudget(n int64) *budget {
	b := &budget{left: n}
	b.cond.L = &b.mu
	return b
}

func (b *budget) acquire(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	for b.left < n {
		b.cond.Wait()
	}
	b.left -= n
	b.mu.Unlock()
}

func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// start reads and extracts files on n goroutines and returns their results;
// the channel closes when all are done or ctx is cancelled.
func (w *worker) start(ctx context.Context, todo *queue, n int) <-chan result {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan job)
	results := make(chan result, queueFiles)
	go func() {
		defer close(jobs)
		for j, ok := todo.pop(); ok; j, ok = todo.pop() {
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for j := range jobs {
				r := w.process(ctx, j)
				w.queued.acquire(r.cost())
				results <- r
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	return results
}

// process decides what a changed file needs: a new mtime only (same content),
// stored facts of identical content, or extraction.
func (w *worker) process(ctx context.Context, j job) result {
	f := j.file
	indexed := j.prev.Path != ""
	src, err := w.read(f.Path)
	if err != nil {
		return result{file: f, outcome: unreadable, indexed: indexed}
	}
	if scan.IsBinary(src) {
		return result{file: f, outcome: binary, indexed: indexed}
	}
	f.Size = int64(len(src)) // the file may have changed since the scan
	hash := storage.HashContent(src)
	if !j.prev.Incomplete && j.prev.Hash == hash {
		return result{file: f, outcome: touched}
	}
	if w.lang != nil {
		if facts, ok, err := w.ix.FactsByHash(hash, w.lang(f.Path)); err == nil && ok {
			facts.Path = f.Path
			return result{file: f, outcome: reused, facts: facts}
		}
	}
	cost := parseCost(len(src))
	w.parsing.acquire(cost)
	facts, err := w.safeExtract(ctx, f.Path, src)
	w.parsing.release(cost)
	if err != nil || facts == nil {
		return result{file: f, outcome: malformed}
	}
	facts.Path, facts.Hash, facts.Size = f.Path, hash, len(src)
	if facts.Lines == 0 {
		facts.Lines = countLines(src)
	}
	return result{file: f, outcome: extracted, facts: facts}
}

// safeExtract turns an extractor panic (say, on a pathological file) into an
// error so one file cannot take the whole run down.
func (w *worker) safeExtract(ctx context.Context, path string, src []byte) (facts *analysis.FileFacts, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("extracting %s: panic: %v", path, p)
		}
	}()
	return w.extract(ctx, path, src)
}

func countLines(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}
