package search

import (
	"bytes"
	"context"
	"unsafe"
)

// A search with a hundred thousand matching lines used to allocate five
// times the size of its answer: per-file LineMatch slices and line texts
// grown by doubling, a string copy of the texts, and the per-file slices
// copied again into the result. Each file's matches are now kept compact
// (fileMatches: one exactly sized text, one spans array, small line
// records), built in two passes over per-worker scratch buffers, and the
// search's LineMatch values are made once, in their final array (fill).

// fileMatches is one file's matching lines, compact.
type fileMatches struct {
	path  string
	text  string // the lines' text, one after the other
	lines []hitLine
	spans [][2]int    // every line's match columns, one after the other
	ctx   [][2][]Line // each line's context before and after; nil without context
}

// hitLine is a matching line: its text is text[previous textEnd:textEnd],
// its columns spans[previous spanEnd:spanEnd].
type hitLine struct {
	line, offset     int
	textEnd, spanEnd int
}

// grepScratch is a worker's reusable buffers: a search keeps none of them.
type grepScratch struct {
	locs  [][2]int
	lines []hitLine // textEnd holds the line's width until the second pass
	spans [][2]int
}

// len is the number of matching lines.
func (f *fileMatches) len() int { return len(f.lines) }

// fill writes the file's LineMatch values into dst, len() of them.
func (f *fileMatches) fill(dst []LineMatch) {
	text, span := 0, 0
	for i, h := range f.lines {
		lm := &dst[i]
		*lm = LineMatch{Path: f.path, Line: h.line, Offset: h.offset, Text: f.text[text:h.textEnd],
			Matches: f.spans[span:h.spanEnd:h.spanEnd]}
		if f.ctx != nil {
			lm.Before, lm.After = f.ctx[i][0], f.ctx[i][1]
		}
		text, span = h.textEnd, h.spanEnd
	}
}

// grepText turns the matches in src into matching lines with context.
func (m *Matcher) grepText(ctx context.Context, path string, src []byte, before, after int) []LineMatch {
	f := m.scanText(ctx, path, src, before, after, &grepScratch{})
	if f.len() == 0 {
		return nil
	}
	out := make([]LineMatch, f.len())
	f.fill(out)
	return out
}

// scanText finds the matching lines of src, compact.
func (m *Matcher) scanText(ctx context.Context, path string, src []byte, before, after int, sc *grepScratch) fileMatches {
	sc.locs = m.find(ctx, src, sc.locs[:0])
	if len(sc.locs) == 0 {
		return fileMatches{path: path}
	}
	// First pass: the lines and their columns, into the scratch buffers.
	lines, spans := sc.lines[:0], sc.spans[:0]
	line, lineStart := 1, 0 // the line holding lineStart
	scanned := 0            // src[lineStart:scanned] holds no newline
	size := 0               // of the lines' text
	advance := func(pos int) {
		if pos <= scanned {
			return // still on the line: a long line with many matches is read once
		}
		if j := bytes.LastIndexByte(src[scanned:pos], '\n'); j >= 0 {
			ls := scanned + j + 1
			line += bytes.Count(src[scanned:ls], []byte{'\n'})
			lineStart = ls
		}
		scanned = pos
	}
	add := func(ls, start, end int) {
		if len(lines) == 0 || lines[len(lines)-1].line != line {
			width := len(lineBytes(src, ls))
			size += width
			lines = append(lines, hitLine{line: line, offset: ls, textEnd: width})
		}
		h := &lines[len(lines)-1]
		spans = append(spans, [2]int{start - ls, max(min(end-ls, h.textEnd), start-ls)})
		h.spanEnd = len(spans)
	}
	for _, loc := range sc.locs {
		if loc[0] == len(src) && (len(src) == 0 || src[len(src)-1] == '\n') {
			continue // after the final newline there is no line
		}
		advance(loc[0])
		add(lineStart, loc[0], loc[1])
		// A multi-line match reports every line it covers.
		for m.multiline {
			nl := bytes.IndexByte(src[lineStart:], '\n')
			if nl < 0 || lineStart+nl+1 >= loc[1] {
				break
			}
			advance(lineStart + nl + 1)
			add(lineStart, lineStart, loc[1])
		}
	}
	sc.lines, sc.spans = lines, spans
	if len(lines) == 0 {
		return fileMatches{path: path}
	}
	// Second pass: exactly sized copies; the text is never written again,
	// so the string shares its bytes.
	f := fileMatches{path: path, lines: make([]hitLine, len(lines)), spans: make([][2]int, len(spans))}
	copy(f.spans, spans)
	text := make([]byte, 0, size)
	for i, h := range lines {
		text = append(text, src[h.offset:h.offset+h.textEnd]...)
		h.textEnd = len(text)
		f.lines[i] = h
	}
	f.text = unsafe.String(unsafe.SliceData(text), len(text))
	if before > 0 || after > 0 {
		f.ctx = make([][2][]Line, len(lines))
		for i, h := range f.lines {
			f.ctx[i][0], f.ctx[i][1] = contextLines(src, h.offset, h.line, before, after)
		}
	}
	return f
}
