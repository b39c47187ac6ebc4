package edit

import (
	"bytes"

	"github.com/kast-dev/kast/analysis"
)

// InsertionPoint returns the byte offset where a new declaration goes for a
// Kast insertion target. The class targets use the innermost type whose body
// encloses offset; ok is false when there is none.
func InsertionPoint(f *analysis.FileFacts, text []byte, offset int, target string) (int, bool) {
	switch target {
	case "FILE_TOP":
		return 0, true
	case "FILE_BOTTOM":
		return len(text), true
	case "AFTER_IMPORTS":
		end := 0
		for _, imp := range f.Imports {
			end = max(end, lineAfter(text, importEnd(text, imp.Span.Start, imp.Span.End)))
		}
		if end == 0 && bytes.HasPrefix(bytes.TrimLeft(text, " \t\r\n"), []byte("package ")) {
			end = lineAfter(text, bytes.Index(text, []byte("package ")))
		}
		return end, true
	}
	best := analysis.None
	for i, d := range f.Defs {
		if d.Kind.IsType() && d.FullSpan.Start <= offset && offset <= d.FullSpan.End &&
			(best == analysis.None || d.FullSpan.End-d.FullSpan.Start < f.Defs[best].FullSpan.End-f.Defs[best].FullSpan.Start) {
			if bytes.IndexByte(text[d.NameSpan.End:d.FullSpan.End], '{') >= 0 {
				best = int32(i)
			}
		}
	}
	if best == analysis.None {
		return 0, false
	}
	d := f.Defs[best]
	if target == "CLASS_BODY_START" {
		return lineAfter(text, d.NameSpan.End+bytes.IndexByte(text[d.NameSpan.End:d.FullSpan.End], '{')), true
	}
	return d.FullSpan.Start + bytes.LastIndexByte(text[d.FullSpan.Start:d.FullSpan.End], '}'), true
}

// lineAfter is the offset of the line after the one holding i.
func lineAfter(text []byte, i int) int {
	if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

// importEnd is where an import's own text ends: some grammars (Kotlin's)
// let an import's span run over the comments after it, such as the KDoc of
// the next declaration, and new code goes before those.
func importEnd(text []byte, start, end int) int {
	end = min(end, len(text))
	for {
		s := bytes.TrimRight(text[start:end], " \t\r\n")
		switch {
		case bytes.HasSuffix(s, []byte("*/")) && bytes.LastIndex(s, []byte("/*")) > 0:
			end = start + bytes.LastIndex(s, []byte("/*"))
		case lastLineIsComment(s):
			end = start + bytes.LastIndexByte(s, '\n')
		default:
			return start + len(s)
		}
	}
}

// lastLineIsComment reports whether s ends with a line comment on a line of
// its own (not the first line, which holds the import itself).
func lastLineIsComment(s []byte) bool {
	i := bytes.LastIndexByte(s, '\n')
	return i > 0 && bytes.HasPrefix(bytes.TrimLeft(s[i+1:], " \t"), []byte("//"))
}

// BodyEnd is where a statement or member goes at the end of the body that
// closes the span [start, end): at the start of the line of its last "}"
// when only blanks precede it there, else just before the brace; ok is
// false when the span has no braced body.
func BodyEnd(text []byte, start, end int) (int, bool) {
	end = min(end, len(text))
	i := bytes.LastIndexByte(text[start:end], '}')
	if i < 0 || bytes.IndexByte(text[start:start+i], '{') < 0 {
		return 0, false
	}
	brace := start + i
	line := bytes.LastIndexByte(text[:brace], '\n') + 1
	if len(bytes.TrimLeft(text[line:brace], " \t")) == 0 {
		return line, true
	}
	return brace, true
}

// LineStart is the offset of the start of the line holding i.
func LineStart(text []byte, i int) int {
	return bytes.LastIndexByte(text[:min(i, len(text))], '\n') + 1
}

// LineAfter is the offset of the line after the one holding i.
func LineAfter(text []byte, i int) int { return lineAfter(text, i) }
