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
	bytes    int // encoded bytes held, the measure of the flush budget
}

// postingRun is one row's postings in the making.
type postingRun struct {
	last uint32 // file id of the last posting: the next one is a delta from it
	buf  []byte
}

// pendingBudget is how many encoded posting bytes a refresh holds before it
// writes them out as a segment (about five million postings).
const pendingBudget = 16 << 20

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
	}
	n := len(r.buf)
	r.buf = binary.AppendUvarint(r.buf, uint64(file-r.last))
	r.buf = binary.AppendUvarint(r.buf, uint64(chunk))
	r.buf = binary.AppendUvarint(r.buf, uint64(tf))
	r.last = file
	p.bytes += len(r.buf) - n
}

// addTrigram records that file holds trigram t; each file adds a trigram once.
func (p *pendingPostings) addTrigram(t, file uint32) {
	r := p.trigrams[t]
	if r == nil {
		r = &postingRun{}
		p.trigrams[t] = r
	}
	n := len(r.buf)
	r.buf = binary.AppendUvarint(r.buf, uint64(file-r.last))
	r.last = file
	p.bytes += len(r.buf) - n
}

func (p *pendingPostings) empty() bool { return len(p.terms) == 0 && len(p.trigrams) == 0 }

// reset drops the written postings; new maps rather than clear, which would
// keep the largest tables' buckets for the rest of the process.
func (p *pendingPostings) reset() {
	p.terms, p.trigrams, p.bytes = map[string]*postingRun{}, map[uint32]*postingRun{}, 0
}
