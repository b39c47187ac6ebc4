package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"slices"
)

// A lazyDFA answers "does this line hold a match" at one table lookup per
// byte, which Go's regexp (an NFA simulation or a backtracker) cannot:
// states are sets of byteNFA nodes, built on first use and cached, as RE2
// and Rust's regex do. It only decides which lines match; the regexp then
// runs on those lines alone to find the match offsets. A lazyDFA is not
// safe for concurrent use: each worker takes its own from the Matcher's
// pool.
type lazyDFA struct {
	nfa       *byteNFA
	states    []dfaState
	trans     []int32 // by state<<8 | byte: tUnknown, a state, or ^state when the line matched
	index     map[string]int32
	lineStart int32   // the state at the start of a line
	midStart  []int32 // the start's closure mid-line: the unanchored restart
	// scratch
	seen  []uint32 // by node: the closure generation that added it
	gen   uint32
	stack []int32
	set   []int32
	key   []byte
	// starts is matchStarts' reused bit set
	starts []uint64
}

type dfaState struct {
	nodes     []int32 // sorted: byte, match and pending end-of-line nodes
	match     bool
	atStart   bool // nothing read on this line yet: ^ holds
	endKnown  bool
	endsMatch bool // a match completes at the end of the line
}

const (
	tUnknown = int32(-1 << 31)
	// maxDFAStates bounds a DFA's cache (256 transitions of 4 bytes each);
	// past it the search falls back to the regexp.
	maxDFAStates = 2048
)

// newLazyDFA returns a DFA for nfa, or nil when every line matches (the
// pattern matches the empty string at a line start): the DFA would skip
// nothing.
func newLazyDFA(nfa *byteNFA) *lazyDFA {
	d := &lazyDFA{nfa: nfa, index: map[string]int32{}, seen: make([]uint32, len(nfa.nodes))}
	d.midStart = slices.Clone(d.closure([]int32{nfa.start}, false, false))
	d.lineStart = d.intern(d.closure([]int32{nfa.start}, true, false), true)
	if d.states[d.lineStart].match {
		return nil
	}
	return d
}

// closure follows ε edges from seeds, with ^ holding at a line start and $
// at its end, and returns the sorted nodes that matter to a state: those
// that read a byte, the match, and the $ assertions still pending. It
// reuses d.set.
func (d *lazyDFA) closure(seeds []int32, atStart, atEnd bool) []int32 {
	d.gen++
	if d.gen == 0 { // wrapped: forget every mark
		clear(d.seen)
		d.gen = 1
	}
	holds := syntax.EmptyOp(0)
	if atStart {
		holds |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if atEnd {
		holds |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	d.set = d.set[:0]
	d.stack = append(d.stack[:0], seeds...)
	for len(d.stack) > 0 {
		id := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[id] == d.gen {
			continue
		}
		d.seen[id] = d.gen
		n := &d.nfa.nodes[id]
		switch n.op {
		case nfaSplit:
			for i := len(n.outs) - 1; i >= 0; i-- {
				d.stack = append(d.stack, n.outs[i])
			}
		case nfaEmpty:
			switch {
			case n.cond&^holds == 0:
				d.stack = append(d.stack, n.out)
			case n.cond&(syntax.EmptyBeginLine|syntax.EmptyBeginText)&^holds == 0:
				// Only $ is missing, and it may hold at the line's end.
				d.set = append(d.set, id)
			}
		default:
			d.set = append(d.set, id)
		}
	}
	slices.Sort(d.set)
	return d.set
}

// intern returns the state for a node set, adding it if new.
func (d *lazyDFA) intern(nodes []int32, atStart bool) int32 {
	d.key = d.key[:0]
	if atStart {
		d.key = append(d.key, 1)
	}
	for _, id := range nodes {
		d.key = binary.LittleEndian.AppendUint32(d.key, uint32(id))
	}
	if s, ok := d.index[string(d.key)]; ok {
		return s
	}
	st := dfaState{nodes: slices.Clone(nodes), atStart: atStart}
	for _, id := range nodes {
		if d.nfa.nodes[id].op == nfaMatch {
			st.match = true
		}
	}
	s := int32(len(d.states))
	d.states = append(d.states, st)
	d.index[string(d.key)] = s
	for range 256 {
		d.trans = append(d.trans, tUnknown)
	}
	return s
}

// endsMatch reports whether a match completes when the line ends in state s.
func (d *lazyDFA) endsMatch(s int32) bool {
	st := &d.states[s]
	if !st.endKnown {
		st.endKnown = true
		for _, id := range d.closure(st.nodes, st.atStart, true) {
			if d.nfa.nodes[id].op == nfaMatch {
				st.endsMatch = true
			}
		}
	}
	return st.endsMatch
}

// step computes and caches the transition of s on b; false when the state
// budget is spent.
func (d *lazyDFA) step(s int32, b byte) (int32, bool) {
	var t int32
	if b == '\n' {
		t = d.lineStart
		if d.endsMatch(s) {
			t = ^t
		}
	} else {
		if len(d.states) >= maxDFAStates {
			return 0, false
		}
		seeds := slices.Clone(d.midStart)
		for _, id := range d.states[s].nodes {
			if n := &d.nfa.nodes[id]; n.op == nfaByte && n.lo <= b && b <= n.hi {
				seeds = append(seeds, n.out)
			}
		}
		t = d.intern(d.closure(seeds, false, false), false)
		if d.states[t].match {
			t = ^t
		}
	}
	d.trans[int(s)<<8|int(b)] = t
	return t, true
}

// matchingLines calls emit with the start and end (the newline's offset,
// or len(hay)) of each line of hay that holds a match; false when the DFA
// gave up, and the caller must search hay another way.
func (d *lazyDFA) matchingLines(hay []byte, emit func(ls, le int)) bool {
	s, trans := d.lineStart, d.trans
	for i := 0; i < len(hay); i++ {
		t := trans[int(s)<<8|int(hay[i])]
		if t == tUnknown {
			var ok bool
			if t, ok = d.step(s, hay[i]); !ok {
				return false
			}
			trans = d.trans
		}
		if t >= 0 {
			s = t
			continue
		}
		// The line holding i matches: report it and go on after it.
		ls := bytes.LastIndexByte(hay[:i], '\n') + 1
		le := len(hay)
		if j := bytes.IndexByte(hay[i:], '\n'); j >= 0 {
			le = i + j
		}
		emit(ls, le)
		i, s = le, d.lineStart
	}
	if n := len(hay); n > 0 && hay[n-1] != '\n' && d.endsMatch(s) {
		emit(bytes.LastIndexByte(hay, '\n')+1, n)
	}
	return true
}

// lineMatches reports whether line (without its newline) holds a match;
// ok is false when the DFA gave up.
func (d *lazyDFA) lineMatches(line []byte) (match, ok bool) {
	s, trans := d.lineStart, d.trans
	for _, b := range line {
		t := trans[int(s)<<8|int(b)]
		if t == tUnknown {
			if t, ok = d.step(s, b); !ok {
				return false, false
			}
			trans = d.trans
		}
		if t < 0 {
			return true, true
		}
		s = t
	}
	return d.endsMatch(s), true
}

// matchStarts runs a DFA of the reversed pattern backwards over line and
// sets, in starts (a bit per byte of line, cleared by the caller), every
// offset a match starts at; ok is false when the DFA gave up.
func (d *lazyDFA) matchStarts(line []byte, starts []uint64) (ok bool) {
	s, trans := d.lineStart, d.trans
	for i := len(line) - 1; i >= 0; i-- {
		t := trans[int(s)<<8|int(line[i])]
		if t == tUnknown {
			if t, ok = d.step(s, line[i]); !ok {
				return false
			}
			trans = d.trans
		}
		if t < 0 {
			starts[i>>6] |= 1 << (i & 63)
			t = ^t
		}
		s = t
	}
	return true
}

// nextStart is the first offset at or after from set in starts, or -1.
func nextStart(starts []uint64, from int) int {
	for w := from >> 6; w < len(starts); w++ {
		word := starts[w]
		if w == from>>6 {
			word &= ^uint64(0) << (from & 63)
		}
		if word != 0 {
			return w<<6 + bits.TrailingZeros64(word)
		}
	}
	return -1
}
