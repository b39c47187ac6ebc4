package ck

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis/search"
)

// DefaultIndexWait is how long an MCP tool call waits for its workspace's
// index before answering without it: MCP clients give up on a call after
// 60 s by default (the TypeScript SDK's DEFAULT_REQUEST_TIMEOUT_MSEC), and
// a first index of a large tree takes longer than that.
const DefaultIndexWait = 30 * time.Second

// indexRun is one refresh of an engine's index, run in the background and
// shared by every call that arrived before it started.
type indexRun struct {
	force   bool
	started bool      // under Service.mu
	prev    *indexRun // the refresh it waits for, if any; under mu once started
	done    chan struct{}
	rep     search.IndexReport
	err     error

	mu        sync.Mutex
	last      search.Progress
	listeners map[int]Progress
	nextID    int
}

func (r *indexRun) report(p search.Progress) {
	r.mu.Lock()
	r.last = p
	ls := make([]Progress, 0, len(r.listeners))
	for _, l := range r.listeners {
		ls = append(ls, l)
	}
	r.mu.Unlock()
	for _, l := range ls {
		l(p)
	}
}

func (r *indexRun) listen(p Progress) (stop func()) {
	if p == nil {
		return func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.nextID
	r.nextID++
	if r.listeners == nil {
		r.listeners = map[int]Progress{}
	}
	r.listeners[id] = p
	return func() {
		r.mu.Lock()
		delete(r.listeners, id)
		r.mu.Unlock()
	}
}

// progress is the refresh's last report, or that of the one it waits for.
func (r *indexRun) progress() search.Progress {
	r.mu.Lock()
	p, prev := r.last, r.prev
	r.mu.Unlock()
	if p.Stage == "" && prev != nil {
		return prev.progress()
	}
	return p
}

// startIndex returns a refresh of eng's index that starts no earlier than
// this call, so it sees every change made before the call: the queued one
// when there is one (coalescing callers), else a new one, which waits for
// the one running. The refresh is not the call's: a call that stops
// waiting or is cancelled leaves it running for the next.
func (s *Service) startIndex(eng *search.Engine, force bool) *indexRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[*search.Engine]*indexRun{}
	}
	last := s.runs[eng]
	if last != nil && !last.started {
		last.force = last.force || force
		return last
	}
	if last != nil {
		select {
		case <-last.done:
			last = nil
		default:
		}
	}
	run := &indexRun{prev: last, done: make(chan struct{}), force: force}
	s.runs[eng] = run
	go func() {
		defer close(run.done)
		if run.prev != nil {
			<-run.prev.done
		}
		s.mu.Lock()
		run.started, force = true, run.force
		s.mu.Unlock()
		run.rep, run.err = eng.Refresh(context.Background(), force, run.report)
		s.mu.Lock()
		if s.indexed == nil {
			s.indexed = map[*search.Engine]int{}
		}
		s.indexed[eng] += run.rep.Indexed
		s.mu.Unlock()
		run.mu.Lock()
		run.prev = nil // let the finished chain go
		run.mu.Unlock()
	}()
	return run
}

// Warm starts indexing every root in the background, so the first search
// finds the index built or on its way.
func (s *Service) Warm() {
	s.init()
	for _, root := range s.roots() {
		if eng, err := s.Engine(root); err == nil {
			s.startIndex(eng, false)
		}
	}
}

// notReady is a call's answer when the index is still being built after
// the wait: a tool error the model can read and act on, not an empty list
// it would take for "nothing found".
func notReady(root string, run *indexRun) *Result {
	p := run.progress()
	msg := fmt.Sprintf("the search index of %s is still being built", root)
	if p.TotalFiles > 0 {
		msg += fmt.Sprintf(" (%s: %d of %d files)", p.Stage, p.DoneFiles, p.TotalFiles)
	} else if p.Stage != "" {
		msg += fmt.Sprintf(" (%s)", p.Stage)
	}
	msg += "; try again shortly. regex_search answers meanwhile, scanning the files directly."
	res := jsonResult(map[string]any{"status": "indexing", "message": msg,
		"indexing": map[string]any{"in_progress": true, "stage": p.Stage, "files_done": p.DoneFiles,
			"files_total": p.TotalFiles, "done": p.Done, "total": p.Total}})
	res.Text, res.IsError = msg, true
	return res
}

// regexIndexWait is how long regex_search waits for an index being built
// when calls wait at all: it answers as well without it, scanning the
// files the index does not hold yet, so it waits only for a quick refresh.
const regexIndexWait = 2 * time.Second

// awaitIndex brings eng's index up to date for a call, waiting at most
// wait (0: as long as it takes). ready is false when the wait ran out; the
// refresh goes on in the background.
func (s *Service) awaitIndex(ctx context.Context, eng *search.Engine, force bool, wait time.Duration, progress Progress) (run *indexRun, ready bool, err error) {
	run = s.startIndex(eng, force)
	defer run.listen(progress)()
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-run.done:
		return run, true, run.err
	case <-timeout:
		return run, false, nil
	case <-ctx.Done():
		return run, false, ctx.Err()
	}
}

// indexingStatus says whether eng's index is being built and how many files
// this process has (re)indexed in it: 0 when it found the index another
// process built up to date.
func (s *Service) indexingStatus(eng *search.Engine) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := map[string]any{"in_progress": false, "files_indexed_since_start": s.indexed[eng]}
	if run := s.runs[eng]; run != nil {
		select {
		case <-run.done:
		default:
			p := run.progress()
			st["in_progress"], st["stage"], st["files_done"], st["files_total"] = true, p.Stage, p.DoneFiles, p.TotalFiles
		}
	}
	return st
}
