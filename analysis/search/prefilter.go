package search

import (
	"bytes"
	"math"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
)

// A prefilter finds, far faster than the regexp, the places a match could
// be: the lines without one are never given to the regexp, as ripgrep does
// with its literal and byte-class scans. It runs on the raw bytes (the
// literals and byte sets below hold for them too: an invalid byte, searched
// as NUL, is in no literal, and every byte ≥ 0x80 is in each set that has a
// non-ASCII rune).
type prefilter interface {
	// next returns the offset of a possible match at or after from, or -1.
	next(hay []byte, from int) int
	// folded says the haystack must be ASCII-lowered first.
	folded() bool
}

// literalSet: a match contains one of these strings.
type literalSet struct {
	lits [][]byte
	fold bool
}

func (l *literalSet) folded() bool { return l.fold }

func (l *literalSet) next(hay []byte, from int) int {
	best := -1
	for _, lit := range l.lits {
		end := len(hay)
		if best >= 0 {
			end = min(len(hay), best+len(lit)) // only an earlier hit matters
		}
		if i := bytes.Index(hay[from:end], lit); i >= 0 {
			best = from + i
		}
	}
	return best
}

// byteRun: a match contains a run of n bytes each in set.
type byteRun struct {
	set [256]bool
	n   int
}

func (r *byteRun) folded() bool { return false }

// next looks at every n-th byte first: a byte outside the set rules out
// every run through it, so selective runs are found in sublinear time.
func (r *byteRun) next(hay []byte, from int) int {
	n, i := r.n, from
	for i+n <= len(hay) {
		p := i + n - 1
		if !r.set[hay[p]] {
			i = p + 1
			continue
		}
		j := p - 1
		for j >= i && r.set[hay[j]] {
			j--
		}
		if j < i {
			return i
		}
		i = j + 1
	}
	return -1
}

// newPrefilter picks the pattern's required literals, or else its most
// selective required byte run; nil when neither would skip much.
func newPrefilter(re *syntax.Regexp) prefilter {
	if lits := requiredLiterals(re); lits != nil {
		return lits
	}
	if r := requiredRun(re); r != nil {
		return r
	}
	return nil
}

// requiredLiterals is a set of literals (of three bytes or more) one of
// which every match holds.
func requiredLiterals(re *syntax.Regexp) *literalSet {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if fold && slices.ContainsFunc(re.Rune, func(r rune) bool { return r >= utf8.RuneSelf }) {
			return nil // non-ASCII folding is not a byte search
		}
		b := []byte(string(re.Rune))
		if fold {
			b = asciiLower(b)
		}
		if len(b) < 3 {
			return nil
		}
		return &literalSet{lits: [][]byte{b}, fold: fold}
	case syntax.OpConcat:
		var best *literalSet
		for _, s := range re.Sub {
			if l := requiredLiterals(s); l != nil && (best == nil || l.score() > best.score()) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		out := &literalSet{}
		for _, s := range re.Sub {
			l := requiredLiterals(s)
			if l == nil {
				return nil
			}
			out.lits = append(out.lits, l.lits...)
			out.fold = out.fold || l.fold
		}
		if len(out.lits) > maxExact {
			return nil
		}
		if out.fold { // searched in lowered text, so every literal is lowered
			for i := range out.lits {
				out.lits[i] = asciiLower(out.lits[i])
			}
		}
		return out
	}
	return nil
}

// score prefers long literals and few of them.
func (l *literalSet) score() int {
	short := math.MaxInt
	for _, b := range l.lits {
		short = min(short, len(b))
	}
	return short*4 - len(l.lits)
}

// runElem is one position of a run: a byte set repeated at least n times.
type runElem struct {
	set [256]bool
	n   int
}

// requiredRun finds the window of consecutive single-character parts of a
// top-level concatenation (zero-width parts skipped) least likely to occur
// by chance, if it is unlikely enough to pay for a scan. A part repeated a
// variable number of times (x*, x+, x{2,5}) joins a window with its set and
// its minimum count: every byte between the window's ends is in the union.
func requiredRun(re *syntax.Regexp) *byteRun {
	var seqs [][]runElem
	var cur []runElem
	flush := func() {
		if len(cur) > 0 {
			seqs = append(seqs, cur)
		}
		cur = nil
	}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				walk(s)
			}
		case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
			// zero width: the parts around it are adjacent
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				var e runElem
				addRune(&e.set, r, re.Flags&syntax.FoldCase != 0)
				e.n = 1
				cur = append(cur, e)
			}
		case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
			if e, ok := charElem(re); ok {
				e.n = 1
				cur = append(cur, e)
			} else {
				flush()
			}
		case syntax.OpPlus, syntax.OpRepeat, syntax.OpStar, syntax.OpQuest:
			// A repeated character: the run holds at least its minimum
			// count of it, and the parts on both sides touch those.
			n := 0
			switch re.Op {
			case syntax.OpPlus:
				n = 1
			case syntax.OpRepeat:
				n = re.Min
			}
			if e, ok := charElem(re.Sub[0]); ok {
				e.n = n
				cur = append(cur, e)
			} else {
				flush()
			}
		default:
			flush()
		}
	}
	walk(re)
	flush()
	var best *byteRun
	// The regexp runs on every line a run points at, so a run worth
	// scanning for is rare in a line; the scan costs little beside the
	// regexp on every line.
	bestP := 1e-3
	for _, seq := range seqs {
		for i := range seq {
			var r byteRun
			for j := i; j < len(seq); j++ {
				for b, in := range seq[j].set {
					r.set[b] = r.set[b] || in
				}
				r.n += seq[j].n
				if p := math.Pow(chance(&r.set), float64(r.n)); p < bestP {
					bestP, best = p, &byteRun{set: r.set, n: r.n}
				}
			}
		}
	}
	return best
}

func charElem(re *syntax.Regexp) (runElem, bool) {
	var e runElem
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return e, false
		}
		addRune(&e.set, re.Rune[0], re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= min(re.Rune[i+1], utf8.RuneSelf-1); r++ {
				e.set[r] = true
			}
			if re.Rune[i+1] >= utf8.RuneSelf {
				addEncodings(&e.set, max(re.Rune[i], utf8.RuneSelf), re.Rune[i+1])
			}
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		for b := range e.set {
			e.set[b] = b != '\n'
		}
	default:
		return e, false
	}
	return e, true
}

// addRune adds the bytes a rune can start with: itself when ASCII (both
// cases when folded), every byte from 0x80 otherwise.
func addRune(set *[256]bool, r rune, fold bool) {
	if r >= utf8.RuneSelf {
		for b := 0x80; b < 256; b++ {
			set[b] = true
		}
		return
	}
	c := byte(r)
	set[c] = true
	if fold {
		switch {
		case c >= 'a' && c <= 'z':
			set[c-32] = true
		case c >= 'A' && c <= 'Z':
			set[c+32] = true
		}
		if c|32 == 'k' || c|32 == 's' { // the Kelvin sign and the long s fold to them
			addRune(set, utf8.RuneSelf, false)
		}
	}
}

// addEncodings adds the bytes of the UTF-8 encodings of runes lo..hi (all
// ≥ 0x80): their lead bytes and every continuation byte. Text in other
// scripts (a run of CJK when the class is \p{Nd}) then breaks a run.
func addEncodings(set *[256]bool, lo, hi rune) {
	for b := 0x80; b < 0xC0; b++ {
		set[b] = true
	}
	lead := func(r rune) byte {
		var buf [utf8.UTFMax]byte
		utf8.EncodeRune(buf[:], r)
		return buf[0]
	}
	// Lead bytes ascend with the rune within each encoded length.
	for _, span := range [][2]rune{{0x80, 0x7FF}, {0x800, 0xFFFF}, {0x10000, utf8.MaxRune}} {
		a, b := max(lo, span[0]), min(hi, span[1])
		if a > b {
			continue
		}
		if a <= 0xDFFF && b >= 0xD800 { // surrogates do not encode
			a, b = min(a, 0xD7FF), max(b, 0xE000)
		}
		for c := lead(a); c <= lead(b) && c != 0; c++ {
			set[c] = true
			if c == 0xFF {
				break
			}
		}
	}
}

// chance is a rough probability that a byte of source text is in set:
// printable ASCII taken as equally likely, non-ASCII as rare.
func chance(set *[256]bool) float64 {
	n := 0.0
	for b := 0x20; b < 0x7f; b++ {
		if set[b] {
			n++
		}
	}
	if set['\t'] {
		n++
	}
	if set[0x80] {
		n += 2
	}
	return math.Min(1, n/96)
}

// lowerPool recycles the lowered copies folded prefilters search.
var lowerPool = sync.Pool{New: func() any { return new([]byte) }}

func lowerInto(dst *[]byte, src []byte) []byte {
	b := (*dst)[:0]
	b = slices.Grow(b, len(src))[:len(src)]
	for i, c := range src {
		if c >= 'A' && c <= 'Z' {
			c += 32
		}
		b[i] = c
	}
	*dst = b
	return b
}
