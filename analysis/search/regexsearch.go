// The grep path: a regex query narrowed by the trigram index, then its
// candidate files verified in parallel.

package search

import (
	"context"
	"errors"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// RegexQuery is a grep-like search.
type RegexQuery struct {
	Pattern    string
	IgnoreCase bool
	WholeWord  bool
	Fixed      bool // the pattern is a literal string
	Multiline  bool // matches may span lines (-U)
	Before     int  // context lines
	After      int
	Scope      Scope
	Overlay    Overlay // editor texts searched in place of the disk's
}

// Compile builds the regexp the query runs (see regex.go for how the
// pattern is rewritten to grep's semantics).
func (q RegexQuery) Compile() (*regexp.Regexp, error) {
	m, err := NewMatcher(q)
	if err != nil {
		return nil, err
	}
	return m.Regexp(), nil
}

// Line is one line of a file.
type Line struct {
	Number int    `json:"line"` // 1-based
	Text   string `json:"text"`
}

// LineMatch is one matching line with the byte columns of its matches.
type LineMatch struct {
	Path    string   `json:"path"` // absolute
	Line    int      `json:"line"`
	Text    string   `json:"text"`
	Offset  int      `json:"byte_offset"` // of the line in the file
	Matches [][2]int `json:"matches"`     // byte columns [start, end) within Text
	Before  []Line   `json:"before,omitempty"`
	After   []Line   `json:"after,omitempty"`
}

// RegexResult lists matching lines by file, in path order.
type RegexResult struct {
	Lines      []LineMatch
	Files      []string // files with a match
	Searched   []string // every file searched, for files-without-match
	Candidates int      // files the trigram index left to the regexp
	Binary     int      // files skipped for holding a NUL byte
	Skipped    []SkipError
	Elapsed    time.Duration
}

// Regex runs a regular-expression search on the files of the scope: those
// the index holds are narrowed by its trigrams; the others (over its size
// limit, UTF-16, or let in by the filter) are scanned directly.
func (e *Engine) Regex(ctx context.Context, q RegexQuery) (*RegexResult, error) {
	start := time.Now()
	m, err := NewMatcher(q)
	if err != nil {
		return nil, err
	}
	st, err := e.load()
	if err != nil {
		return nil, err
	}
	list, err := e.List(ctx, q.Scope)
	if err != nil {
		return nil, err
	}
	res := &RegexResult{Skipped: list.Skipped}
	cands, err := e.evalQuery(st, m.trigrams)
	if err != nil {
		return nil, err
	}
	slices.Sort(list.Files)
	// While the index is stale (the watcher saw a change that no refresh has
	// taken in yet, say because one is still running), a file the trigrams
	// rule out may have changed since it was indexed: it is searched after
	// all when its size or mtime is no longer the indexed one.
	stale := e.fresh != nil && !e.fresh.fresh()
	var recheck map[string]*fileEntry
	var files []string
	for _, p := range list.Files {
		if _, ok := q.Overlay[p]; ok {
			files = append(files, p) // its trigrams are the disk's, not the editor's
			continue
		}
		if f, ok := st.files[e.rel(p)]; ok && cands != nil && !cands[f.id] {
			if !stale {
				res.Searched = append(res.Searched, p)
				continue
			}
			if recheck == nil {
				recheck = map[string]*fileEntry{}
			}
			recheck[p] = f
		}
		files = append(files, p)
	}
	for p := range q.Overlay {
		if !slices.Contains(list.Files, p) && e.overlayApplies(p, q.Scope, false) {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	type outcome struct {
		found    fileMatches
		err      error
		ruledOut bool // unchanged since indexed, and the trigrams rule it out
	}
	perFile := make([]outcome, len(files))
	// Each worker takes the next file itself: no goroutine hands them out,
	// so on a loaded machine no worker waits for another to be scheduled.
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(max(1, runtime.GOMAXPROCS(0)), max(1, len(files))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // reused: matches copy the text they keep
			var sc grepScratch
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				if src, ok := q.Overlay[files[i]]; ok {
					perFile[i].found = m.scanText(ctx, files[i], src, q.Before, q.After, &sc)
					continue
				}
				if f := recheck[files[i]]; f != nil && unchanged(files[i], f) {
					perFile[i].ruledOut = true
					continue
				}
				t, err := openTextInto(files[i], &buf)
				if err != nil {
					perFile[i].err = err
					continue
				}
				perFile[i].found = m.scanText(ctx, files[i], t.data, q.Before, q.After, &sc)
				t.close()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := 0
	for _, o := range perFile {
		total += o.found.len()
	}
	res.Lines = make([]LineMatch, total) // the one array of the answer
	filled := 0
	for i, o := range perFile {
		if !o.ruledOut {
			res.Candidates++
		}
		var skip *SkipError
		switch {
		case errors.Is(o.err, ErrBinary):
			res.Binary++
			continue
		case errors.As(o.err, &skip):
			res.Skipped = append(res.Skipped, *skip)
			continue
		case o.err != nil:
			res.Skipped = append(res.Skipped, SkipError{Path: files[i], Reason: statReason(o.err)})
			continue
		}
		res.Searched = append(res.Searched, files[i])
		if n := o.found.len(); n > 0 {
			res.Files = append(res.Files, files[i])
			o.found.fill(res.Lines[filled : filled+n])
			filled += n
		}
	}
	res.Lines = res.Lines[:filled]
	slices.Sort(res.Searched)
	res.Elapsed = time.Since(start)
	return res, nil
}

// unchanged reports whether the file at path still has the size and mtime
// it was indexed with.
func unchanged(path string, f *fileEntry) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Size() == f.size && fi.ModTime().UnixNano() == f.mtime
}

// evalQuery returns the live file ids satisfying q, or nil for "every file".
func (e *Engine) evalQuery(st *state, q *Query) (map[uint32]bool, error) {
	cache := map[uint32][]uint32{}
	var eval func(q *Query) ([]uint32, bool, error) // ids, all
	eval = func(q *Query) ([]uint32, bool, error) {
		switch q.Op {
		case QAll:
			return nil, true, nil
		case QNone:
			return nil, false, nil
		}
		var acc []uint32
		all := q.Op == QAnd
		combine := func(ids []uint32, isAll bool) {
			switch {
			case q.Op == QAnd && isAll:
			case q.Op == QAnd && all:
				acc, all = ids, false
			case q.Op == QAnd:
				acc = intersect(acc, ids)
			case isAll:
				all = true
			default:
				acc = unionIDs(acc, ids)
			}
		}
		for _, t := range q.Trigrams {
			ids, ok := cache[t]
			if !ok {
				var err error
				if ids, err = e.trigramIDs(st, t); err != nil {
					return nil, false, err
				}
				cache[t] = ids
			}
			combine(ids, false)
			if q.Op == QAnd && len(acc) == 0 {
				return nil, false, nil
			}
		}
		for _, s := range q.Sub {
			ids, isAll, err := eval(s)
			if err != nil {
				return nil, false, err
			}
			combine(ids, isAll)
		}
		return acc, all, nil
	}
	ids, all, err := eval(q)
	if err != nil || all {
		return nil, err
	}
	m := make(map[uint32]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m, nil
}

// trigramIDs reads a trigram's postings across segments, live ids only.
func (e *Engine) trigramIDs(st *state, t uint32) ([]uint32, error) {
	var ids []uint32
	err := e.store.Scan(trigramPrefix(t), false, func(_, v []byte) error {
		var err error
		ids, err = decodeIDs(v, ids)
		return err
	})
	ids = slices.DeleteFunc(ids, func(id uint32) bool { return st.byID[id] == nil })
	slices.Sort(ids)
	return slices.Compact(ids), err
}

func intersect(a, b []uint32) []uint32 {
	var out []uint32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

func unionIDs(a, b []uint32) []uint32 {
	return slices.Compact(slices.Sorted(slices.Values(slices.Concat(a, b))))
}
