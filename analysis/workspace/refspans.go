package workspace

import "github.com/kast-dev/kast/analysis"

// spansRead, set by tests only, hears of each file whose reference spans a
// query reads without resolving them.
var spansRead func(path string, n int)

// RefSpans implements resolve.RefSpanner.
func (s *Snapshot) RefSpans(path string, refs []int32) ([]analysis.Span, bool) {
	if o, ok := s.open[path]; ok {
		return spansOf(o.facts, refs)
	}
	if s.shared != nil {
		return s.shared.snapshot().RefSpans(path, refs)
	}
	if spansRead != nil {
		spansRead(path, len(refs))
	}
	s.mu.Lock()
	f, ok := s.cached[path]
	s.mu.Unlock()
	if ok {
		return spansOf(f, refs)
	}
	if w := owner(s.roots, path); w != nil {
		return w.view.refSpans(path, refs)
	}
	return nil, false
}

// refSpans reads some of path's reference spans: from its facts when
// cached, else from the index without decoding them.
func (v *view) refSpans(path string, refs []int32) ([]analysis.Span, bool) {
	v.mu.Lock()
	e, ok := v.facts[path]
	v.mu.Unlock()
	if ok {
		return spansOf(e.Value.(*cachedFacts).facts, refs)
	}
	spans, err := v.ix.RefSpans(path, refs)
	if err != nil {
		v.log.Debug("reading reference spans failed", "path", path, "err", err)
		return nil, false
	}
	return spans, true
}

// spansOf lists some of f's reference spans.
func spansOf(f *analysis.FileFacts, refs []int32) ([]analysis.Span, bool) {
	if f == nil {
		return nil, false
	}
	out := make([]analysis.Span, len(refs))
	for i, r := range refs {
		if r < 0 || int(r) >= len(f.Refs) {
			return nil, false
		}
		out[i] = f.Refs[r].Span
	}
	return out, true
}
