package search

import (
	"bytes"
	"context"
	"unicode/utf8"
)

// blockSize is how much text the matcher runs on between cancellation
// checks; blocks end at line ends, so no match is cut.
const blockSize = 8 << 20

// find appends the matches in src (raw bytes: see matchable) to out as
// [start, end) byte pairs. Outside multi-line mode they are line-local by
// construction (see rewrite): a prefilter, when the pattern has one, picks
// the lines the regexp runs on; otherwise the text is searched a block at
// a time when the pattern has no markers.
func (m *Matcher) find(ctx context.Context, src []byte, out [][2]int) [][2]int {
	if m.multiline {
		return m.findIn(src, 0, len(src), out)
	}
	d := m.takeDFA()
	defer m.putDFA(d)
	if m.pre != nil {
		return m.findByPrefilter(ctx, src, d, out)
	}
	if d != nil {
		if lines, ok := m.findByDFA(ctx, src, d, out); ok {
			return lines
		}
	}
	for bs := 0; bs < len(src) || bs == 0; {
		if ctx.Err() != nil {
			return nil
		}
		be := len(src)
		if bs+blockSize < len(src) {
			if i := bytes.IndexByte(src[bs+blockSize:], '\n'); i >= 0 {
				be = bs + blockSize + i + 1
			}
		}
		if m.markers == nil {
			for _, loc := range m.re.FindAllIndex(matchable(src[bs:be]), -1) {
				out = append(out, [2]int{bs + loc[0], bs + loc[1]})
			}
		} else {
			for ls := bs; ls < be || ls == 0; {
				le := be
				if i := bytes.IndexByte(src[ls:be], '\n'); i >= 0 {
					le = ls + i
				}
				out = m.findIn(src, ls, le, out)
				ls = le + 1
			}
		}
		if be >= len(src) {
			break
		}
		bs = be
	}
	return out
}

// findByPrefilter runs the matcher only on the lines the prefilter points
// at, as grep does with a required literal, and of those, when there is a
// DFA, only on the lines it says match.
func (m *Matcher) findByPrefilter(ctx context.Context, src []byte, d *lazyDFA, out [][2]int) [][2]int {
	hay := src
	if m.pre.folded() {
		buf := lowerPool.Get().(*[]byte)
		defer lowerPool.Put(buf)
		hay = lowerInto(buf, src) // keeps byte offsets, unlike Unicode lowering
	}
	// The DFA checks a line before the regexp runs on it, unless the
	// offsets come from the DFAs (then a line without a match costs one
	// backward pass already).
	check, checked, rejected := d, 0, 0
	if m.dfa != nil && m.dfa.rev != nil {
		check = nil
	}
	for off, n := 0, 0; off < len(hay); n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return nil
		}
		start := m.pre.next(hay, off)
		if start < 0 {
			break
		}
		ls := bytes.LastIndexByte(src[:start], '\n') + 1
		le := len(src)
		if j := bytes.IndexByte(src[start:], '\n'); j >= 0 {
			le = start + j
		}
		if check != nil {
			match, ok := check.lineMatches(src[ls:le])
			if !ok {
				m.dfa.off.Store(true)
				check = nil
			}
			checked++
			if ok && !match {
				rejected++
				off = le + 1
				continue
			}
			if checked == 64 && rejected < 16 {
				check = nil // the prefilter's lines mostly match: checking them first only costs
			}
		}
		out = m.findIn(src, ls, le, out)
		off = le + 1
	}
	return out
}

// findIn finds the matches within src[from:to], a line (or, multi-line,
// the whole text). Markers are checked on src, so the characters around
// the range count; a candidate failing them is retried one character on,
// with ^ no longer matching.
func (m *Matcher) findIn(src []byte, from, to int, out [][2]int) [][2]int {
	if m.markers == nil {
		if out, ok := m.offsetsByDFA(src, from, to, out); ok {
			return out
		}
	}
	seg := matchable(src[from:to]) // same offsets as src
	if m.markers == nil {
		for _, loc := range m.re.FindAllIndex(seg, -1) {
			out = append(out, [2]int{from + loc[0], from + loc[1]})
		}
		return out
	}
	span := 0
	if len(m.markers) > 2 && m.markers[1].kind == markWordStart {
		span = 2 // the -w wrapper's group around the pattern
	}
	for pos, prevEnd := from, -1; pos <= to; {
		re := m.re
		if pos > from {
			re = m.noBegin
		}
		loc := re.FindSubmatchIndex(seg[pos-from:])
		if loc == nil {
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += pos
			}
		}
		start, end := loc[2*span], loc[2*span+1]
		if m.verify(src, loc) && !(start == end && start == prevEnd) {
			out = append(out, [2]int{start, end})
			prevEnd = end
			if loc[1] > loc[0] {
				pos = loc[1]
				continue
			}
		}
		_, size := utf8.DecodeRune(src[loc[0]:to])
		pos = loc[0] + max(size, 1)
	}
	return out
}

func isWordBefore(src []byte, p int) bool {
	if p <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(src[:p])
	return r != utf8.RuneError && IsWordRune(r)
}

func isWordAt(src []byte, p int) bool {
	if p >= len(src) {
		return false
	}
	r, _ := utf8.DecodeRune(src[p:])
	return r != utf8.RuneError && IsWordRune(r)
}

// verify checks a candidate's markers against the text around them.
func (m *Matcher) verify(src []byte, loc []int) bool {
	for g, mk := range m.markers {
		if mk.kind == markNone || 2*g >= len(loc) || loc[2*g] < 0 {
			continue
		}
		p := loc[2*g]
		before, after := isWordBefore(src, p), isWordAt(src, p)
		switch mk.kind {
		case markBoundary:
			if before == after {
				return false
			}
		case markNoBoundary:
			if before != after {
				return false
			}
		case markWordStart:
			if before {
				return false
			}
		case markWordEnd:
			if after {
				return false
			}
		}
	}
	return true
}

// matchable is the text the matcher runs on: src, or, when src is not valid
// UTF-8, a copy with each invalid byte replaced by NUL. RE2 decodes an
// invalid byte as U+FFFD, so . and [^x] would match it; NUL is taken out of
// every class instead (see rewrite), and binary files, the only ones with a
// real NUL, are never searched. Offsets are kept, so lines are cut from src.
func matchable(src []byte) []byte {
	if utf8.Valid(src) {
		return src
	}
	out := make([]byte, 0, len(src))
	for len(src) > 0 {
		r, size := utf8.DecodeRune(src)
		if r == utf8.RuneError && size == 1 {
			out = append(out, 0)
		} else {
			out = append(out, src[:size]...)
		}
		src = src[size:]
	}
	return out
}

// lineAt is the text of the line starting at ls, without its terminator.
func lineAt(src []byte, ls int) string { return string(lineBytes(src, ls)) }

func lineBytes(src []byte, ls int) []byte {
	le := len(src)
	if i := bytes.IndexByte(src[ls:], '\n'); i >= 0 {
		le = ls + i
	}
	return bytes.TrimRight(src[ls:le], "\r")
}

func contextLines(src []byte, ls, line, before, after int) (b, a []Line) {
	for n, s := 1, ls; n <= before && s > 0; n++ {
		s = bytes.LastIndexByte(src[:s-1], '\n') + 1
		b = append([]Line{{line - n, lineAt(src, s)}}, b...)
	}
	next := ls
	for n := 1; n <= after; n++ {
		i := bytes.IndexByte(src[next:], '\n')
		if i < 0 || next+i+1 >= len(src) {
			break
		}
		next += i + 1
		a = append(a, Line{line + n, lineAt(src, next)})
	}
	return b, a
}
