package indexer

import (
	"path/filepath"
	"sync"
)

// Priority has a running refresh take some folders' files before the rest:
// the folders of the documents an editor opens during a first index, whose
// package a definition or a completion there reads. Wants made while no
// refresh runs apply to the next one, the latest maxWanted of them. Safe
// for concurrent use; the zero value is ready.
type Priority struct {
	mu   sync.Mutex
	dirs []string // wanted, not yet taken by a refresh, oldest first
}

// maxWanted bounds the folders kept for the next refresh: an editor opens
// documents all day between two refreshes.
const maxWanted = 64

// Want asks for the files in dirs (folders, not their subfolders) next.
func (p *Priority) Want(dirs ...string) {
	if p == nil || len(dirs) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dirs = append(p.dirs, dirs...)
	if extra := len(p.dirs) - maxWanted; extra > 0 {
		p.dirs = append(p.dirs[:0:0], p.dirs[extra:]...)
	}
}

// take returns the folders wanted since the last call.
func (p *Priority) take() []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	dirs := p.dirs
	p.dirs = nil
	return dirs
}

// queue hands out a refresh's jobs in order, except that the jobs in folders
// a Priority wants go first.
type queue struct {
	todo  []job
	prio  *Priority
	sent  []bool
	next  int              // the first job of todo maybe not sent
	first []int            // wanted jobs, in the order wanted
	byDir map[string][]int // jobs by folder, built on the first want
}

func newQueue(todo []job, prio *Priority) *queue {
	return &queue{todo: todo, prio: prio, sent: make([]bool, len(todo))}
}

// pop returns the next job, false once every job was handed out.
func (q *queue) pop() (job, bool) {
	if dirs := q.prio.take(); len(dirs) > 0 {
		if q.byDir == nil {
			q.byDir = map[string][]int{}
			for i, j := range q.todo {
				d := filepath.Dir(j.file.Path)
				q.byDir[d] = append(q.byDir[d], i)
			}
		}
		for _, d := range dirs {
			q.first = append(q.first, q.byDir[d]...)
			delete(q.byDir, d) // a folder's files are queued once
		}
	}
	for len(q.first) > 0 {
		i := q.first[0]
		q.first = q.first[1:]
		if !q.sent[i] {
			q.sent[i] = true
			return q.todo[i], true
		}
	}
	for q.next < len(q.todo) && q.sent[q.next] {
		q.next++
	}
	if q.next == len(q.todo) {
		return job{}, false
	}
	q.sent[q.next] = true
	return q.todo[q.next], true
}
