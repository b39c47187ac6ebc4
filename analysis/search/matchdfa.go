package search

import (
	"bytes"
	"context"
	"regexp/syntax"
	"sync"
	"sync/atomic"
)

// lineDFA is the Matcher's DFA side: the byte NFA its workers' DFAs are
// built from, a pool of those DFAs (each caches the states it met, so
// reuse pays), and a switch that turns them off for good once one spends
// its state budget on this pattern.
type lineDFA struct {
	nfa  *byteNFA
	dfas sync.Pool
	off  atomic.Bool
}

// newLineDFA prepares DFAs for a line-oriented pattern (the rewritten
// text, as compiled), or returns nil when they cannot decide it.
func newLineDFA(text string) *lineDFA {
	re, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	nfa := newByteNFA(prog)
	if nfa == nil || newLazyDFA(nfa) == nil {
		return nil
	}
	return &lineDFA{nfa: nfa}
}

// takeDFA returns a DFA for one goroutine's use, or nil when there is none.
func (m *Matcher) takeDFA() *lazyDFA {
	if m.dfa == nil || m.dfa.off.Load() {
		return nil
	}
	if d, ok := m.dfa.dfas.Get().(*lazyDFA); ok {
		return d
	}
	return newLazyDFA(m.dfa.nfa)
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
