package workspace

import (
	"container/list"
	"slices"
	"sync"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/storage"
)

// openedFactsBytes bounds the facts kept of documents' texts the index did
// not hold when they were opened: the largest files of the Go standard
// library and of a 10M-line module cache (a 374 KB generated test table)
// fit several times over.
const openedFactsBytes = 16 << 20

// openedFacts keeps, per path, the facts extracted from the last text an
// editor opened there that the index did not hold, within a byte budget
// (least recently used out). Parsing is most of the cost of a request on
// such a file (0.5 s for the largest), so:
//   - a document closed and opened again with the same text is not parsed
//     again (Session.overlay);
//   - the indexer, reaching a file whose text an editor opened first, takes
//     these facts instead of parsing it a second time (take).
type openedFacts struct {
	mu     sync.Mutex
	bytes  int64
	order  list.List // of *openedEntry, most recently used first
	byPath map[string]*list.Element
}

type openedEntry struct {
	path, hash string
	facts      *analysis.FileFacts
	size       int64
}

// get returns the facts kept for path's text of this hash, or nil.
func (c *openedFacts) get(path, hash string) *analysis.FileFacts {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byPath[path]
	if !ok || el.Value.(*openedEntry).hash != hash {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*openedEntry).facts
}

// put keeps facts as path's text of this hash, replacing what path had.
func (c *openedFacts) put(path, hash string, facts *analysis.FileFacts) {
	size := factsSize(facts)
	if size > openedFactsBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byPath == nil {
		c.byPath = map[string]*list.Element{}
	}
	if el, ok := c.byPath[path]; ok {
		c.remove(el)
	}
	c.byPath[path] = c.order.PushFront(&openedEntry{path: path, hash: hash, facts: facts, size: size})
	c.bytes += size
	for c.bytes > openedFactsBytes {
		c.remove(c.order.Back())
	}
}

func (c *openedFacts) remove(el *list.Element) {
	e := c.order.Remove(el).(*openedEntry)
	delete(c.byPath, e.path)
	c.bytes -= e.size
}

// take returns a copy of the facts kept for path if src is the text they
// were extracted from, else nil, and forgets them: once indexed, a reopened
// document's facts come from the index. The copy is the indexer's to keep:
// it stores it and recycles its slices (extract.Release), while the kept
// facts may still serve an open document.
func (c *openedFacts) take(path string, src []byte) *analysis.FileFacts {
	c.mu.Lock()
	_, ok := c.byPath[path]
	c.mu.Unlock()
	if !ok {
		return nil // the common case: no hash computed
	}
	hash := storage.HashContent(src)
	c.mu.Lock()
	var f *analysis.FileFacts
	if el, ok := c.byPath[path]; ok && el.Value.(*openedEntry).hash == hash {
		f = el.Value.(*openedEntry).facts
		c.remove(el)
	}
	c.mu.Unlock()
	if f == nil {
		return nil
	}
	own := *f
	own.Defs, own.Refs, own.Scopes, own.Calls = slices.Clone(f.Defs), slices.Clone(f.Refs), slices.Clone(f.Scopes), slices.Clone(f.Calls)
	return &own
}
