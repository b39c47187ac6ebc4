package search

import (
	"encoding/binary"
	"strings"
)

// pendingPostings are a refresh's postings not yet written as a segment.
// Each term's and trigram's postings are kept already in their row encoding
// (store.go: delta-varint file ids, then chunk and frequency for terms), so
// a posting costs two to four bytes until it is written instead of a
// struct in a slice that doubles as it grows: the building of a large
// workspace's index stays within kast's memory limit.
type pendingPostings struct {
	terms    map[string]*postingRun
	trigrams map[uint32]*postingRun
	bytes    int // memory held (buffers' capacity and each row's overhead), the flush budget's measure
}

// postingRun is one row's postings in the making.
type postingRun struct {
	last uint32 // file id of the last posting: the next one is a delta from it
	buf  []byte
}

// pendingBudget is how much memory a refresh's postings hold before they are
// written out as a segment. It counts what the heap holds, not the encoded
// bytes: buffers grow by doubling and every row costs a map entry, a run and
// its key, which made 16 MB of encoded postings hold 42 MB on the Go tree.
// 24 MB of heap is about 9 MB encoded, three million postings.
var pendingBudget = 24 << 20 // a variable so tests can force many segments

// rowOverhead is what a row costs besides its buffer and key: its map
// entry's share of the buckets, the run and its slice header.
const rowOverhead = 64

func newPendingPostings() *pendingPostings {
	return &pendingPostings{terms: map[string]*postingRun{}, trigrams: map[uint32]*postingRun{}}
}

// addTerm appends a chunk's frequency of term; files arrive in ascending id
// order and a file's chunks in order, as the rows list them.
func (p *pendingPostings) addTerm(term string, file, chunk, tf uint32) {
	r := p.terms[term]
	if r == nil {
		r = &postingRun{}
		// A term is often a slice of its chunk's text: the key must not
		// keep that text alive until the segment is written.
		p.terms[strings.Clone(term)] = r
		p.bytes += rowOverhead + len(term)
	}
	n := cap(r.buf)
	r.buf = binary.AppendUvarint(r.buf, uint64(file-r.last))
	r.buf = binary.AppendUvarint(r.buf, uint64(chunk))
	r.buf = binary.AppendUvarint(r.buf, uint64(tf))
	r.last = file
	p.bytes += cap(r.buf) - n
}

// addTrigram records that file holds trigram t; each file adds a trigram once.
func (p *pendingPostings) addTrigram(t, file uint32) {
	r := p.trigrams[t]
	if r == nil {
		r = &postingRun{}
		p.trigrams[t] = r
		p.bytes += rowOverhead
	}
	n := cap(r.buf)
	r.buf = binary.AppendUvarint(r.buf, uint64(file-r.last))
	r.last = file
	p.bytes += cap(r.buf) - n
}

func (p *pendingPostings) empty() bool { return len(p.terms) == 0 && len(p.trigrams) == 0 }

// reset drops the written postings; new maps rather than clear, which would
// keep the largest tables' buckets for the rest of the process.
func (p *pendingPostings) reset() {
	p.terms, p.trigrams, p.bytes = map[string]*postingRun{}, map[uint32]*postingRun{}, 0
}

// fileTerms are a file's lexical terms per chunk, compactly: each distinct
// term of the file once in one string, and a (term, chunk, frequency) row per
// chunk that holds it — a tenth of a map per chunk, for the files extracted
// ahead of the one being applied.
type fileTerms struct {
	text string
	rows []termRow
}

type termRow struct {
	off, n    uint32 // the term is text[off : off+n]
	chunk, tf uint32
}

func (ft *fileTerms) term(r termRow) string { return ft.text[r.off : r.off+r.n] }

// termsBuilder makes fileTerms; one per worker, its maps reused.
type termsBuilder struct {
	counts map[string]uint32 // one chunk's term frequencies
	offs   map[string]uint32 // the file's terms' offsets in text
	text   []byte
}

func newTermsBuilder() *termsBuilder {
	return &termsBuilder{counts: map[string]uint32{}, offs: map[string]uint32{}}
}

// of counts the terms of each chunk of src.
func (tb *termsBuilder) of(src []byte, chunks []Chunk) fileTerms {
	clear(tb.offs)
	tb.text = tb.text[:0]
	var rows []termRow
	for ci, c := range chunks {
		clear(tb.counts)
		Terms(string(src[c.Start:c.End]), func(t string) { tb.counts[t]++ })
		for t, tf := range tb.counts {
			off, ok := tb.offs[t]
			if !ok {
				off = uint32(len(tb.text))
				tb.text = append(tb.text, t...)
				tb.offs[string(tb.text[off:])] = off // a key the next chunk's text does not pin
			}
			rows = append(rows, termRow{off: off, n: uint32(len(t)), chunk: uint32(ci), tf: tf})
		}
	}
	return fileTerms{text: string(tb.text), rows: rows}
}
