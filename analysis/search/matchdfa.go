package search

import (
	"bytes"
	"context"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
)

// lineDFA is the Matcher's DFA side: the byte NFA its workers' DFAs are
// built from, a pool of those DFAs (each caches the states it met, so
// reuse pays), and a switch that turns them off for good once one spends
// its state budget on this pattern.
//
// For a pattern without assertions or markers, whose matches are then the
// same whatever surrounds them, the offsets come from the DFAs too: a DFA
// of the reversed pattern, run backwards over the line, finds where the
// leftmost match starts, and the regexp, anchored there, only finds its
// end. Go's unanchored regexp instead tries every start of the line.
type lineDFA struct {
	nfa, rev   *byteNFA
	dfas, revs sync.Pool
	anchored   *regexp.Regexp // the pattern matched at the start of the text only
	off        atomic.Bool
}

// maxFastLine bounds the lines whose offsets the reverse DFA finds (it
// keeps a bit per byte of the line: 8 MiB at most).
const maxFastLine = 64 << 20

// newLineDFA prepares DFAs for a line-oriented pattern (the rewritten
// text, as compiled), or returns nil when they cannot decide it.
func newLineDFA(text string, markers bool) *lineDFA {
	re, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil
	}
	nfa := newByteNFA(prog, false)
	if nfa == nil || newLazyDFA(nfa) == nil {
		return nil
	}
	l := &lineDFA{nfa: nfa}
	if markers || slices.ContainsFunc(prog.Inst, func(i syntax.Inst) bool { return i.Op == syntax.InstEmptyWidth }) {
		return l
	}
	rprog, err := syntax.Compile(reverseRegexp(re))
	if err != nil {
		return l
	}
	if anchored, err := regexp.Compile(`\A(?:` + text + `)`); err == nil {
		if l.rev = newByteNFA(rprog, true); l.rev != nil && newLazyDFA(l.rev) != nil {
			l.anchored = anchored
		} else {
			l.rev = nil
		}
	}
	return l
}

// reverseRegexp is re spelled backwards: it matches the reversed strings.
func reverseRegexp(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = reverseRegexp(s)
	}
	switch c.Op {
	case syntax.OpConcat:
		slices.Reverse(c.Sub)
	case syntax.OpLiteral:
		c.Rune = slices.Clone(c.Rune)
		slices.Reverse(c.Rune)
	}
	return &c
}

func take(p *sync.Pool, nfa *byteNFA) *lazyDFA {
	if d, ok := p.Get().(*lazyDFA); ok {
		return d
	}
	return newLazyDFA(nfa)
}

// takeDFA returns a DFA for one goroutine's use, or nil when there is none.
func (m *Matcher) takeDFA() *lazyDFA {
	if m.dfa == nil || m.dfa.off.Load() {
		return nil
	}
	return take(&m.dfa.dfas, m.dfa.nfa)
}

func (m *Matcher) putDFA(d *lazyDFA) {
	if d != nil && !m.dfa.off.Load() {
		m.dfa.dfas.Put(d)
	}
}

// findByDFA runs the regexp only on the lines the DFA says match, a block
// at a time; false when the DFA gave up (then no DFA is used again for
// this pattern).
func (m *Matcher) findByDFA(ctx context.Context, src []byte, d *lazyDFA, out [][2]int) ([][2]int, bool) {
	for bs := 0; bs < len(src); {
		if ctx.Err() != nil {
			return nil, true
		}
		be := len(src)
		if bs+blockSize < len(src) {
			if i := bytes.IndexByte(src[bs+blockSize:], '\n'); i >= 0 {
				be = bs + blockSize + i + 1
			}
		}
		ok := d.matchingLines(src[bs:be], func(ls, le int) {
			out = m.findIn(src, bs+ls, bs+le, out)
		})
		if !ok {
			m.dfa.off.Store(true)
			return nil, false
		}
		bs = be
	}
	return out, true
}

// offsetsByDFA appends the matches of src[from:to] (a line, for a pattern
// with no assertions) found by the reverse DFA and the anchored regexp;
// false when it cannot, and the caller must search the line itself.
//
// One backward pass lists every offset a match starts at. Without
// assertions a match's extent does not depend on the text around it, so
// the leftmost match at or after any offset starts at the first listed
// offset there, and the regexp anchored at it gives the end grep's
// leftmost-first rule gives.
func (m *Matcher) offsetsByDFA(src []byte, from, to int, out [][2]int) ([][2]int, bool) {
	l := m.dfa
	if l == nil || l.rev == nil || to-from > maxFastLine || l.off.Load() {
		return out, false
	}
	r := take(&l.revs, l.rev)
	defer l.revs.Put(r)
	words := (to - from + 63) >> 6
	if cap(r.starts) < words {
		r.starts = make([]uint64, words)
	}
	starts := r.starts[:words]
	clear(starts)
	if !r.matchStarts(src[from:to], starts) {
		l.off.Store(true)
		return out, false
	}
	seg := matchable(src[from:to])
	n := len(out)
	for pos := 0; ; {
		s := nextStart(starts, pos)
		if s < 0 {
			break
		}
		loc := l.anchored.FindIndex(seg[s:])
		if loc == nil || loc[1] == 0 {
			return out[:n], false // cannot happen: the DFAs and the regexp agree
		}
		out = append(out, [2]int{from + s, from + s + loc[1]})
		pos = s + loc[1]
	}
	return out, true
}
