package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"sort"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Chunk is a unit of lexical and semantic search: a function, method, type,
// top-level block, or a window of a file without a grammar.
type Chunk struct {
	Start, End         int    // byte span [Start, End)
	StartLine, EndLine int    // 1-based, inclusive
	Kind               string // function, method, class, block or text
	Name               string // breadcrumb: "Type.method", "" for blocks
	Hash               uint64 // of the chunk's bytes: unchanged chunks keep their vectors
	Terms              int    // number of lexical terms (BM25 document length)
}

// Chunk sizes: a chunk longer than maxChunk bytes is split into windows of
// about maxChunk bytes overlapping by chunkOverlap, on line boundaries, so an
// embedder's context is not overrun and a match near a cut is in both halves.
const (
	maxChunk     = 3000
	chunkOverlap = 600
	textLines    = 60 // window height for files without a grammar
)

// Chunks cuts src into chunks using facts (nil for a file without a grammar).
func Chunks(facts *analysis.FileFacts, src []byte) []Chunk {
	lines := lineStarts(src)
	var out []Chunk
	add := func(start, end int, kind, name string) {
		start = lineStartOf(lines, start)
		for _, w := range windows(src, lines, start, end) {
			c := Chunk{Start: w[0], End: w[1], Kind: kind, Name: name}
			c.StartLine = lineOf(lines, c.Start) + 1
			c.EndLine = lineOf(lines, max(c.Start, c.End-1)) + 1
			c.Hash = hashChunk(src[c.Start:c.End])
			Terms(string(src[c.Start:c.End]), func(string) { c.Terms++ })
			out = append(out, c)
		}
	}
	if facts == nil {
		for i := 0; i < len(lines); i += textLines - textLines/6 {
			end := len(src)
			if j := i + textLines; j < len(lines) {
				end = lines[j]
			}
			if len(bytes.TrimSpace(src[lines[i]:end])) > 0 {
				add(lines[i], end, "text", "")
			}
			if end == len(src) {
				break
			}
		}
		return out
	}
	covered := 0 // end of the last top-level chunk, for the blocks between them
	for _, item := range facts.Outline() {
		d := &facts.Defs[item.Def]
		kind := chunkKind(d.Kind)
		if kind == "" || d.FullSpan.End <= d.FullSpan.Start || d.FullSpan.End > len(src) {
			continue
		}
		start := withLeadingComments(src, lines, d.FullSpan.Start)
		if item.Depth == 0 {
			if start > covered && len(bytes.TrimSpace(src[covered:start])) > 0 {
				add(covered, start, "block", "")
			}
			covered = max(covered, d.FullSpan.End)
		}
		add(start, d.FullSpan.End, kind, breadcrumb(facts, item.Def))
	}
	if covered < len(src) && len(bytes.TrimSpace(src[covered:])) > 0 {
		add(covered, len(src), "block", "")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

func chunkKind(k analysis.Kind) string {
	switch k {
	case analysis.KindFunction:
		return "function"
	case analysis.KindMethod, analysis.KindConstructor:
		return "method"
	case analysis.KindClass, analysis.KindInterface, analysis.KindObject, analysis.KindEnum,
		analysis.KindStruct, analysis.KindTrait, analysis.KindTypeAlias:
		return "class"
	}
	return ""
}

func breadcrumb(f *analysis.FileFacts, i int32) string {
	name := f.Defs[i].Name
	if r := strings.TrimLeft(f.Defs[i].Receiver, "*&"); r != "" {
		if j := strings.IndexAny(r, "[<"); j > 0 {
			r = r[:j] // generic arguments are noise in a breadcrumb
		}
		name = r + "." + name
	}
	for c := f.Defs[i].Container; c != analysis.None && int(c) < len(f.Defs); c = f.Defs[c].Container {
		name = f.Defs[c].Name + "." + name
	}
	// A definition's name is a slice of its parsed file's whole text: the
	// index keeps chunks as long as it runs, and must not keep every file.
	return strings.Clone(name)
}

// withLeadingComments moves start up over the comment and annotation lines
// directly above it, so a doc comment belongs to its declaration.
func withLeadingComments(src []byte, lines []int, start int) int {
	l := lineOf(lines, start)
	for l > 0 {
		prev := bytes.TrimSpace(src[lines[l-1]:lines[l]])
		if len(prev) == 0 || !(bytes.HasPrefix(prev, []byte("//")) || bytes.HasPrefix(prev, []byte("#")) ||
			bytes.HasPrefix(prev, []byte("/*")) || bytes.HasPrefix(prev, []byte("*")) || bytes.HasPrefix(prev, []byte("@"))) {
			break
		}
		l--
	}
	return min(start, lines[l])
}

// windows splits [start, end) into pieces of at most about maxChunk bytes,
// cut at line starts, each overlapping the previous by about chunkOverlap.
func windows(src []byte, lines []int, start, end int) [][2]int {
	if end-start <= maxChunk {
		return [][2]int{{start, end}}
	}
	var out [][2]int
	for s := start; ; {
		e := end
		if s+maxChunk < end {
			e = lineStartOf(lines, s+maxChunk)
			if e <= s { // one very long line: cut inside it
				e = s + maxChunk
			}
		}
		out = append(out, [2]int{s, e})
		if e >= end {
			return out
		}
		next := lineStartOf(lines, e-chunkOverlap)
		if next <= s {
			next = e
		}
		s = next
	}
}

func hashChunk(b []byte) uint64 {
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// lineStarts returns the byte offset of every line's start.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf returns the 0-based line holding offset.
func lineOf(lines []int, offset int) int {
	return sort.SearchInts(lines, offset+1) - 1
}

func lineStartOf(lines []int, offset int) int { return lines[max(0, lineOf(lines, offset))] }
