package document

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"unicode/utf8"
)

// A rope holds a text being edited as a balanced tree (a treap) of pieces,
// each a slice of an immutable source: the document's text or a change's
// inserted text. Converting a position and splicing a range cost O(log k)
// tree steps plus binary searches in the sources, so a didChange with k
// edits costs O((n + k) log k) instead of a copy of the whole text per edit.
//
// Columns in UTF-16 and UTF-32 are counted per byte of valid UTF-8: a rune
// counts on its first byte, two for a 4-byte rune in UTF-16. That equals
// byteColumn's rune-by-rune count on valid UTF-8, which is why Apply only
// takes this path when the document and every change text are valid.
type rope struct {
	root *node
	enc  Encoding
}

// source is an immutable text with the indexes the rope searches.
type source struct {
	text       []byte
	lineStarts []int // as Document.lineStarts: 0, then just after each '\n'
	units      []int // units[i]: column units in text[:i*blockSize]; nil for UTF-8
	enc        Encoding
}

// blockSize is the spacing of a source's column checkpoints: a column count
// scans at most this many bytes.
const blockSize = 128

func newSource(text []byte, starts []int, enc Encoding) *source {
	s := &source{text: text, lineStarts: starts, enc: enc}
	if enc != UTF8 {
		s.units = make([]int, len(text)/blockSize+1)
		n := 0
		for i := range s.units {
			s.units[i] = n
			for _, b := range text[i*blockSize : min(len(text), (i+1)*blockSize)] {
				n += weight(b, enc)
			}
		}
	}
	return s
}

// weight is the column units byte b adds in enc, in valid UTF-8.
func weight(b byte, enc Encoding) int {
	switch {
	case enc == UTF8:
		return 1
	case b&0xC0 == 0x80: // continuation byte
		return 0
	case b >= 0xF0 && enc == UTF16: // starts a surrogate pair
		return 2
	}
	return 1
}

// cum returns the column units of text[:x].
func (s *source) cum(x int) int {
	if s.enc == UTF8 {
		return x
	}
	i := x / blockSize
	n := s.units[i]
	for _, b := range s.text[i*blockSize : x] {
		n += weight(b, s.enc)
	}
	return n
}

// newlines counts the '\n' bytes in text[a:b].
func (s *source) newlines(a, b int) int {
	return sort.SearchInts(s.lineStarts, b+1) - sort.SearchInts(s.lineStarts, a+1)
}

// nthNewline returns the offset of the j-th (1-based) '\n' at or after a.
func (s *source) nthNewline(a, j int) int {
	return s.lineStarts[sort.SearchInts(s.lineStarts, a+1)+j-1] - 1
}

// find returns the smallest p >= a with cum(p+1)-cum(a) > t; it must exist.
func (s *source) find(a, t int) int {
	if s.enc == UTF8 {
		return a + t
	}
	target := s.cum(a) + t
	j := sort.Search(len(s.units), func(i int) bool { return s.units[i] > target }) - 1
	p := max(j*blockSize, a)
	n := s.cum(p)
	for ; ; p++ {
		if n += weight(s.text[p], s.enc); n > target {
			return p
		}
	}
}

// node is one piece, src.text[start:end], and the totals of its subtree.
type node struct {
	left, right *node
	prio        uint64
	src         *source
	start, end  int
	nl, units   int // the piece's newlines and column units
	size        int // subtree totals:
	nls, us     int
}

func newNode(src *source, start, end int, prio uint64) *node {
	n := &node{src: src, start: start, end: end, prio: prio}
	n.measure()
	n.fix()
	return n
}

func (n *node) measure() {
	n.nl = n.src.newlines(n.start, n.end)
	n.units = n.src.cum(n.end) - n.src.cum(n.start)
}

func (n *node) fix() {
	n.size = n.end - n.start + size(n.left) + size(n.right)
	n.nls = n.nl + nls(n.left) + nls(n.right)
	n.us = n.units + us(n.left) + us(n.right)
}

func size(n *node) int {
	if n == nil {
		return 0
	}
	return n.size
}

func nls(n *node) int {
	if n == nil {
		return 0
	}
	return n.nls
}

func us(n *node) int {
	if n == nil {
		return 0
	}
	return n.us
}

// split cuts t into the first pos bytes and the rest, splitting a piece if
// pos falls inside it.
func split(t *node, pos int) (*node, *node) {
	if t == nil {
		return nil, nil
	}
	ls, plen := size(t.left), t.end-t.start
	switch {
	case pos <= ls:
		l, r := split(t.left, pos)
		t.left = r
		t.fix()
		return l, t
	case pos >= ls+plen:
		l, r := split(t.right, pos-ls-plen)
		t.right = l
		t.fix()
		return t, r
	}
	cut := t.start + pos - ls
	right := &node{src: t.src, start: cut, end: t.end, prio: t.prio, right: t.right}
	right.measure()
	right.fix()
	t.end, t.right = cut, nil
	t.measure()
	t.fix()
	return t, right
}

func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.fix()
		return a
	}
	b.left = merge(a, b.left)
	b.fix()
	return b
}

// lineStart returns the offset of line l, 0 < l <= newlines.
func (r *rope) lineStart(l int) int {
	t, base := r.root, 0
	for {
		if l <= nls(t.left) {
			t = t.left
			continue
		}
		l -= nls(t.left)
		base += size(t.left)
		if l <= t.nl {
			return base + t.src.nthNewline(t.start, l) - t.start + 1
		}
		l -= t.nl
		base += t.end - t.start
		t = t.right
	}
}

func (r *rope) byteAt(pos int) byte {
	t := r.root
	for {
		if pos < size(t.left) {
			t = t.left
			continue
		}
		pos -= size(t.left)
		if pos < t.end-t.start {
			return t.src.text[t.start+pos]
		}
		pos -= t.end - t.start
		t = t.right
	}
}

// unitsBefore returns the column units of the first pos bytes.
func (r *rope) unitsBefore(pos int) int {
	t, n := r.root, 0
	for t != nil {
		if pos < size(t.left) {
			t = t.left
			continue
		}
		pos -= size(t.left)
		n += us(t.left)
		if pos <= t.end-t.start {
			return n + t.src.cum(t.start+pos) - t.src.cum(t.start)
		}
		pos -= t.end - t.start
		n += t.units
		t = t.right
	}
	return n
}

// findUnits returns the smallest offset p whose byte takes the column count
// past target: the rune at p does not fit. The text length if none does.
func (r *rope) findUnits(target int) int {
	t, base := r.root, 0
	for t != nil {
		if target < us(t.left) {
			t = t.left
			continue
		}
		target -= us(t.left)
		base += size(t.left)
		if target < t.units {
			return base + t.src.find(t.start, target) - t.start
		}
		target -= t.units
		base += t.end - t.start
		t = t.right
	}
	return base
}

// offset converts a position against the current text, as Document.Offset.
func (r *rope) offset(p Position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("%w: line %d, character %d", ErrPosition, p.Line, p.Character)
	}
	lines, total := nls(r.root)+1, size(r.root)
	if p.Line >= lines {
		if p.Line == lines && p.Character == 0 {
			return total, nil
		}
		return 0, fmt.Errorf("%w: line %d of %d", ErrPosition, p.Line, lines)
	}
	start, end := 0, total
	if p.Line > 0 {
		start = r.lineStart(p.Line)
	}
	if p.Line+1 < lines {
		end = r.lineStart(p.Line+1) - 1 // the '\n'
	}
	if end > start && r.byteAt(end-1) == '\r' {
		end--
	}
	if r.enc == UTF8 {
		return start + min(p.Character, end-start), nil
	}
	return min(r.findUnits(r.unitsBefore(start)+p.Character), end), nil
}

// replace puts text in place of bytes [start, end).
func (r *rope) replace(start, end int, text string) {
	left, rest := split(r.root, start)
	_, right := split(rest, end-start)
	if text != "" {
		b := []byte(text)
		left = merge(left, newNode(newSource(b, lineStarts(b), r.enc), 0, len(b), rand.Uint64()))
	}
	r.root = merge(left, right)
}

// bytes returns the current text.
func (r *rope) bytes() []byte {
	out := make([]byte, 0, size(r.root))
	var walk func(*node)
	walk = func(t *node) {
		if t != nil {
			walk(t.left)
			out = append(out, t.src.text[t.start:t.end]...)
			walk(t.right)
		}
	}
	walk(r.root)
	return out
}

// applyRope applies changes in order; see rope.
func (d *Document) applyRope(changes []Change, enc Encoding) ([]byte, error) {
	r := &rope{enc: enc}
	reset := func(text []byte, starts []int) {
		r.root = nil
		if len(text) > 0 {
			r.root = newNode(newSource(text, starts, enc), 0, len(text), rand.Uint64())
		}
	}
	reset(d.Text, d.lineStarts)
	for i, c := range changes {
		if c.Range == nil {
			b := []byte(c.Text)
			reset(b, lineStarts(b))
			continue
		}
		start, err := r.offset(c.Range.Start)
		if err != nil {
			return nil, fmt.Errorf("change %d: %w", i, err)
		}
		end, err := r.offset(c.Range.End)
		if err != nil {
			return nil, fmt.Errorf("change %d: %w", i, err)
		}
		if end < start {
			return nil, fmt.Errorf("change %d: range end before start", i)
		}
		r.replace(start, end, c.Text)
	}
	return r.bytes(), nil
}

// ropeApplies reports whether applyRope gives exactly what applying the
// changes one by one gives: always for UTF-8 columns (bytes), and for the
// others when every text is valid UTF-8 (see rope).
func ropeApplies(text []byte, changes []Change, enc Encoding) bool {
	if enc == UTF8 {
		return true
	}
	if !utf8.Valid(text) {
		return false
	}
	for _, c := range changes {
		if !utf8.ValidString(c.Text) {
			return false
		}
	}
	return true
}
