// Package document holds the text of open documents: immutable versions,
// incremental edits, and conversion between byte offsets and editor positions
// in any of the LSP position encodings. Engines work in byte offsets; the
// protocol edge converts with this package.
package document

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is how a position's character column counts.
type Encoding string

const (
	UTF8  Encoding = "utf-8"
	UTF16 Encoding = "utf-16"
	UTF32 Encoding = "utf-32"
)

// Position is a 0-based line and a column counted in some Encoding.
type Position struct {
	Line, Character int
}

// Range is a half-open range of positions.
type Range struct {
	Start, End Position
}

// Document is one immutable version of a document's text.
type Document struct {
	URI        string
	LanguageID string
	Version    int32
	Text       []byte
	lineStarts []int
}

// New returns a document holding text.
func New(uri, languageID string, version int32, text []byte) *Document {
	return &Document{URI: uri, LanguageID: languageID, Version: version, Text: text, lineStarts: lineStarts(text)}
}

func lineStarts(text []byte) []int {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// LineCount returns the number of lines (a trailing newline starts an empty last line).
func (d *Document) LineCount() int { return len(d.lineStarts) }

// ErrPosition reports a position outside the document.
var ErrPosition = errors.New("position outside the document")

// Offset converts a position to a byte offset. A column past the end of its
// line clamps to the line end, as LSP asks; a line past the end is an error.
func (d *Document) Offset(p Position, enc Encoding) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("%w: line %d, character %d", ErrPosition, p.Line, p.Character)
	}
	if p.Line >= len(d.lineStarts) {
		if p.Line == len(d.lineStarts) && p.Character == 0 {
			return len(d.Text), nil
		}
		return 0, fmt.Errorf("%w: line %d of %d", ErrPosition, p.Line, len(d.lineStarts))
	}
	start := d.lineStarts[p.Line]
	end := len(d.Text)
	if p.Line+1 < len(d.lineStarts) {
		end = d.lineStarts[p.Line+1] - 1 // the '\n'
	}
	if end > start && d.Text[end-1] == '\r' {
		end--
	}
	return start + byteColumn(d.Text[start:end], p.Character, enc), nil
}

// byteColumn converts a column in enc to a byte count within line, clamped.
func byteColumn(line []byte, col int, enc Encoding) int {
	if enc == UTF8 {
		return min(col, len(line))
	}
	i, units := 0, 0
	for i < len(line) && units < col {
		r, size := utf8.DecodeRune(line[i:])
		n := 1
		if enc == UTF16 && utf16.RuneLen(r) == 2 {
			n = 2
		}
		if units+n > col {
			break // never split a surrogate pair
		}
		units += n
		i += size
	}
	return i
}

// Position converts a byte offset (clamped to the text) to a position in enc.
func (d *Document) Position(offset int, enc Encoding) Position {
	offset = max(0, min(offset, len(d.Text)))
	line := sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > offset }) - 1
	start := d.lineStarts[line]
	return Position{Line: line, Character: columnOf(d.Text[start:offset], enc)}
}

// columnOf counts the columns that prefix occupies in enc.
func columnOf(prefix []byte, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(prefix)
	case UTF32:
		return utf8.RuneCount(prefix)
	}
	n := 0
	for len(prefix) > 0 {
		r, size := utf8.DecodeRune(prefix)
		if utf16.RuneLen(r) == 2 {
			n += 2
		} else {
			n++
		}
		prefix = prefix[size:]
	}
	return n
}

// Change is one content change: a replacement of Range, or of the whole text
// when Range is nil.
type Change struct {
	Range *Range
	Text  string
}

// Apply returns a new version with changes applied in order, each to the
// result of the one before, as LSP asks. Several changes go through a rope,
// so that one didChange with many edits costs about its size, not edits ×
// document size.
func (d *Document) Apply(version int32, changes []Change, enc Encoding) (*Document, error) {
	if len(changes) > 1 && ropeApplies(d.Text, changes, enc) {
		text, err := d.applyRope(changes, enc)
		if err != nil {
			return nil, err
		}
		return New(d.URI, d.LanguageID, version, text), nil
	}
	return d.applyEach(version, changes, enc)
}

// applyEach applies the changes one at a time, rebuilding the text after
// each: the path for a single change, and for texts that are not valid
// UTF-8, where only rune-by-rune decoding of the result gives the columns.
func (d *Document) applyEach(version int32, changes []Change, enc Encoding) (*Document, error) {
	text := d.Text
	cur := d
	for i, c := range changes {
		if c.Range == nil {
			text = []byte(c.Text)
		} else {
			start, err := cur.Offset(c.Range.Start, enc)
			if err != nil {
				return nil, fmt.Errorf("change %d: %w", i, err)
			}
			end, err := cur.Offset(c.Range.End, enc)
			if err != nil {
				return nil, fmt.Errorf("change %d: %w", i, err)
			}
			if end < start {
				return nil, fmt.Errorf("change %d: range end before start", i)
			}
			next := make([]byte, 0, len(cur.Text)-(end-start)+len(c.Text))
			next = append(next, cur.Text[:start]...)
			next = append(next, c.Text...)
			text = append(next, cur.Text[end:]...)
		}
		cur = New(d.URI, d.LanguageID, version, text)
	}
	if cur == d {
		cur = New(d.URI, d.LanguageID, version, d.Text)
	}
	return cur, nil
}

// Store holds the open documents of one client connection.
type Store struct {
	mu   sync.Mutex
	docs map[string]*Document
	snap *Snapshot // cached until the next change
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{docs: map[string]*Document{}} }

// ErrNotOpen reports a change or close for a document that is not open.
var ErrNotOpen = errors.New("document is not open")

// Open records a newly opened document, replacing any previous one.
func (s *Store) Open(d *Document) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[d.URI] = d
	s.snap = nil
}

// Change applies content changes to an open document.
func (s *Store) Change(uri string, version int32, changes []Change, enc Encoding) (*Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotOpen, uri)
	}
	next, err := d.Apply(version, changes, enc)
	if err != nil {
		return nil, err
	}
	s.docs[uri] = next
	s.snap = nil
	return next, nil
}

// Close forgets a document.
func (s *Store) Close(uri string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.docs[uri]; !ok {
		return fmt.Errorf("%w: %s", ErrNotOpen, uri)
	}
	delete(s.docs, uri)
	s.snap = nil
	return nil
}

// Snapshot returns an immutable view of the open documents. It is cheap to
// take repeatedly: the view is shared until the next change.
func (s *Store) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil {
		docs := make(map[string]*Document, len(s.docs))
		for k, v := range s.docs {
			docs[k] = v
		}
		s.snap = &Snapshot{docs: docs}
	}
	return s.snap
}

// Snapshot is an immutable set of document versions.
type Snapshot struct {
	docs map[string]*Document
}

// Document returns the open document at uri.
func (s *Snapshot) Document(uri string) (*Document, bool) {
	if s == nil {
		return nil, false
	}
	d, ok := s.docs[uri]
	return d, ok
}

// URIs lists the open documents, sorted.
func (s *Snapshot) URIs() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.docs))
	for u := range s.docs {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
