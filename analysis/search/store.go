package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Search tables, inside storage's 'Q' namespace (storage/searchstore.go):
//
//	m                      meta: layout version, embedding model and dimension,
//	                       id and segment counters
//	f <rel path>           file row: id, size, mtime, content hash, chunks
//	t <trigram:3> <seg:4>  file ids containing the trigram (ASCII-folded),
//	                       ascending, delta-varint
//	l <term> 0x00 <seg:4>  (file id delta, chunk index, term frequency) triples
//	v <chunk hash:8>       the chunk's vector: float32 scale + int8 components
//
// Postings are written in segments, one or more per refresh, and never
// rewritten in place: a changed file gets a new id, and ids without a file
// row are dead and skipped by queries. compact merges segments and drops dead
// ids and unused vectors once they pile up.
const (
	subMeta    = 'm'
	subFile    = 'f'
	subTrigram = 't'
	subTerm    = 'l'
	subVector  = 'v'
)

// layoutVersion changes with the tables' encoding; a mismatch rebuilds them.
const layoutVersion = 1

type meta struct {
	version  uint64
	model    string
	dim      int
	nextFile uint32
	nextSeg  uint32
	segments int   // live segments since the last compaction
	dead     int   // files dropped since the last compaction
	updated  int64 // unix nanoseconds of the last write; absent in older rows
}

func (m meta) encode() []byte {
	b := binary.AppendUvarint(nil, m.version)
	b = binary.AppendUvarint(b, uint64(len(m.model)))
	b = append(b, m.model...)
	for _, v := range []uint64{uint64(m.dim), uint64(m.nextFile), uint64(m.nextSeg), uint64(m.segments), uint64(m.dead)} {
		b = binary.AppendUvarint(b, v)
	}
	return binary.AppendUvarint(b, uint64(m.updated))
}

var errCorrupt = errors.New("search: corrupt index row")

type reader struct {
	b   []byte
	err error
}

func (r *reader) uv() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errCorrupt, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.err, r.b = errCorrupt, nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) str() string { return string(r.bytes(int(r.uv()))) }

func decodeMeta(b []byte) (meta, error) {
	r := &reader{b: b}
	m := meta{version: r.uv(), model: r.str()}
	m.dim, m.nextFile, m.nextSeg = int(r.uv()), uint32(r.uv()), uint32(r.uv())
	m.segments, m.dead = int(r.uv()), int(r.uv())
	if r.err == nil && len(r.b) > 0 {
		m.updated = int64(r.uv())
	}
	return m, r.err
}

// fileEntry is one indexed file with its chunks.
type fileEntry struct {
	id     uint32
	path   string // slash-separated, relative to the root
	size   int64
	mtime  int64 // unix nanoseconds
	hash   [32]byte
	chunks []Chunk
}

var kinds = []string{"function", "method", "class", "block", "text"}

func (f *fileEntry) encode() []byte {
	b := binary.BigEndian.AppendUint32(nil, f.id)
	b = binary.AppendUvarint(b, uint64(f.size))
	b = binary.AppendVarint(b, f.mtime)
	b = append(b, f.hash[:]...)
	b = binary.AppendUvarint(b, uint64(len(f.chunks)))
	for _, c := range f.chunks {
		b = binary.AppendUvarint(b, uint64(c.Start))
		b = binary.AppendUvarint(b, uint64(c.End-c.Start))
		b = binary.AppendUvarint(b, uint64(c.StartLine))
		b = binary.AppendUvarint(b, uint64(c.EndLine-c.StartLine))
		b = append(b, byte(max(0, slices.Index(kinds, c.Kind))))
		b = binary.AppendUvarint(b, uint64(len(c.Name)))
		b = append(b, c.Name...)
		b = binary.BigEndian.AppendUint64(b, c.Hash)
		b = binary.AppendUvarint(b, uint64(c.Terms))
	}
	return b
}

func decodeFile(path string, b []byte) (*fileEntry, error) {
	r := &reader{b: b}
	f := &fileEntry{path: path}
	if id := r.bytes(4); id != nil {
		f.id = binary.BigEndian.Uint32(id)
	}
	f.size = int64(r.uv())
	mt, n := binary.Varint(r.b)
	if n <= 0 {
		return nil, errCorrupt
	}
	f.mtime, r.b = mt, r.b[n:]
	copy(f.hash[:], r.bytes(32))
	count := int(r.uv())
	if count > len(r.b) {
		return nil, errCorrupt
	}
	f.chunks = make([]Chunk, count)
	for i := range f.chunks {
		c := &f.chunks[i]
		c.Start = int(r.uv())
		c.End = c.Start + int(r.uv())
		c.StartLine = int(r.uv())
		c.EndLine = c.StartLine + int(r.uv())
		if k := r.bytes(1); k != nil && int(k[0]) < len(kinds) {
			c.Kind = kinds[k[0]]
		}
		c.Name = r.str()
		if h := r.bytes(8); h != nil {
			c.Hash = binary.BigEndian.Uint64(h)
		}
		c.Terms = int(r.uv())
	}
	return f, r.err
}

func fileKey(path string) []byte { return append([]byte{subFile}, path...) }

func trigramPrefix(t uint32) []byte { return []byte{subTrigram, byte(t >> 16), byte(t >> 8), byte(t)} }

func trigramKey(t, seg uint32) []byte { return binary.BigEndian.AppendUint32(trigramPrefix(t), seg) }

func termPrefix(term string) []byte {
	return append(append([]byte{subTerm}, term...), 0)
}

func termKey(term string, seg uint32) []byte {
	return binary.BigEndian.AppendUint32(termPrefix(term), seg)
}

func vectorKey(h uint64) []byte { return binary.BigEndian.AppendUint64([]byte{subVector}, h) }

// encodeIDs writes ascending ids as deltas.
func encodeIDs(ids []uint32) []byte {
	b := make([]byte, 0, len(ids)+4)
	prev := uint32(0)
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id-prev))
		prev = id
	}
	return b
}

func decodeIDs(b []byte, out []uint32) ([]uint32, error) {
	prev := uint32(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return out, errCorrupt
		}
		prev += uint32(d)
		out = append(out, prev)
		b = b[n:]
	}
	return out, nil
}

// termPosting is one chunk's occurrences of a term.
type termPosting struct {
	file  uint32
	chunk uint32
	tf    uint32
}

func encodeTermPostings(ps []termPosting) []byte {
	var b []byte
	prev := uint32(0)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.file-prev))
		b = binary.AppendUvarint(b, uint64(p.chunk))
		b = binary.AppendUvarint(b, uint64(p.tf))
		prev = p.file
	}
	return b
}

func decodeTermPostings(b []byte, out []termPosting) ([]termPosting, error) {
	r := &reader{b: b}
	prev := uint32(0)
	for len(r.b) > 0 && r.err == nil {
		prev += uint32(r.uv())
		out = append(out, termPosting{file: prev, chunk: uint32(r.uv()), tf: uint32(r.uv())})
	}
	return out, r.err
}

// segmentKeySeg reads the segment number at the end of a posting key.
func segmentKeySeg(k []byte) (uint32, error) {
	if len(k) < 4 {
		return 0, fmt.Errorf("search: short posting key %q", k)
	}
	return binary.BigEndian.Uint32(k[len(k)-4:]), nil
}

// postingPrefix is the key of a posting row without its segment number.
func postingPrefix(k []byte) []byte { return bytes.Clone(k[:len(k)-4]) }
