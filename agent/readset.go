package agent

import "sync"

// ReadSet is the set of absolute paths read in a session: an existing file
// may only be written or edited after it was read.
type ReadSet struct {
	mu    sync.Mutex
	paths map[string]bool
}

// Mark records path as read.
func (r *ReadSet) Mark(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paths == nil {
		r.paths = map[string]bool{}
	}
	r.paths[path] = true
}

// Has reports whether path was read.
func (r *ReadSet) Has(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paths[path]
}

// Clear forgets every read, so files must be read again before writes.
func (r *ReadSet) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paths = nil
}
