package host

import "sync"

// The editors' open documents, for the process: a language-server
// connection registers the texts of the documents its editor has open, so
// that the host's other users (the agent's code tools, whichever protocol
// drives them) answer from unsaved buffers as the language server does.

// OpenTexts lists a connection's open documents' current texts by absolute
// path. It is called on every use and must be cheap and safe to call from
// any goroutine.
type OpenTexts func() map[string][]byte

type openTexts struct {
	mu   sync.Mutex
	next int
	srcs map[int]OpenTexts
}

// AddOpenTexts registers a source of open documents until remove is called.
func (h *Host) AddOpenTexts(src OpenTexts) (remove func()) {
	o := &h.openTexts
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srcs == nil {
		o.srcs = map[int]OpenTexts{}
	}
	id := o.next
	o.next++
	o.srcs[id] = src
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.srcs, id)
	}
}

// OpenTexts is the texts of every registered connection's open documents,
// by absolute path; a fresh map, nil when no editor has any open.
func (h *Host) OpenTexts() map[string][]byte {
	o := &h.openTexts
	o.mu.Lock()
	srcs := make([]OpenTexts, 0, len(o.srcs))
	for _, s := range o.srcs {
		srcs = append(srcs, s)
	}
	o.mu.Unlock()
	var out map[string][]byte
	for _, src := range srcs {
		for p, t := range src() {
			if out == nil {
				out = map[string][]byte{}
			}
			out[p] = t
		}
	}
	return out
}
