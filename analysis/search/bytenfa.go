package search

import (
	"regexp/syntax"
	"slices"
	"unicode"
)

// A byteNFA is a compiled regexp program rewritten to step on bytes rather
// than runes: each rune instruction becomes a small trie of UTF-8 byte
// ranges. It is what the lazy DFA (dfa.go) determinizes.
type byteNFA struct {
	nodes []nfaNode
	start int32
}

type nfaOp uint8

const (
	nfaSplit nfaOp = iota // ε to each of outs (none: a dead end)
	nfaByte               // one byte in [lo, hi], then out
	nfaEmpty              // zero width, when cond holds, then out
	nfaMatch
)

type nfaNode struct {
	op     nfaOp
	lo, hi byte
	cond   syntax.EmptyOp
	out    int32
	outs   []int32
}

// lineConds are the assertions the DFA evaluates itself: it runs a line at
// a time, so line and text boundaries are the same.
const lineConds = syntax.EmptyBeginLine | syntax.EmptyEndLine | syntax.EmptyBeginText | syntax.EmptyEndText

// newByteNFA translates prog, or returns nil when the DFA cannot answer for
// it exactly: a word-boundary assertion (kast rewrites \b to markers, so it
// only comes from ASCII \b in (?-u) spellings), or a rune class that holds
// NUL or a newline (a line-oriented search has neither; NUL stands for
// invalid UTF-8 in the text the regexp runs on, which the DFA, reading raw
// bytes, would not match).
//
// Built reversed, each rune's bytes are read last to first: the NFA of a
// reversed pattern then runs over text read backwards.
func newByteNFA(prog *syntax.Prog, reversed bool) *byteNFA {
	n := &byteNFA{nodes: make([]nfaNode, len(prog.Inst)), start: int32(prog.Start)}
	for pc, inst := range prog.Inst {
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			n.nodes[pc] = nfaNode{op: nfaSplit, outs: []int32{int32(inst.Out), int32(inst.Arg)}}
		case syntax.InstCapture, syntax.InstNop:
			n.nodes[pc] = nfaNode{op: nfaSplit, outs: []int32{int32(inst.Out)}}
		case syntax.InstFail:
			n.nodes[pc] = nfaNode{op: nfaSplit}
		case syntax.InstMatch:
			n.nodes[pc] = nfaNode{op: nfaMatch}
		case syntax.InstEmptyWidth:
			cond := syntax.EmptyOp(inst.Arg)
			if cond&^lineConds != 0 {
				return nil
			}
			n.nodes[pc] = nfaNode{op: nfaEmpty, cond: cond, out: int32(inst.Out)}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			ranges := instRanges(inst)
			if classHas(ranges, 0) || classHas(ranges, '\n') {
				return nil
			}
			var seqs [][]byteRange
			for i := 0; i+1 < len(ranges); i += 2 {
				seqs = utf8Sequences(ranges[i], ranges[i+1], seqs)
			}
			if reversed {
				for _, seq := range seqs {
					slices.Reverse(seq)
				}
				slices.SortStableFunc(seqs, func(a, b []byteRange) int { return int(a[0].lo) - int(b[0].lo) })
			}
			n.nodes[pc] = nfaNode{op: nfaSplit, outs: n.trie(seqs, 0, int32(inst.Out))}
		default:
			return nil
		}
	}
	return n
}

// trie adds byte nodes for seqs (sorted, sharing prefixes) from position
// depth on, all ending at out, and returns the first level's nodes.
func (n *byteNFA) trie(seqs [][]byteRange, depth int, out int32) []int32 {
	var firsts []int32
	for i := 0; i < len(seqs); {
		r := seqs[i][depth]
		j := i
		var rest [][]byteRange
		for ; j < len(seqs) && seqs[j][depth] == r; j++ {
			if len(seqs[j]) > depth+1 {
				rest = append(rest, seqs[j])
			}
		}
		id := int32(len(n.nodes))
		n.nodes = append(n.nodes, nfaNode{op: nfaByte, lo: r.lo, hi: r.hi, out: out})
		if len(rest) > 0 {
			next := n.trie(rest, depth+1, out)
			split := int32(len(n.nodes))
			n.nodes = append(n.nodes, nfaNode{op: nfaSplit, outs: next})
			n.nodes[id].out = split
		}
		firsts = append(firsts, id)
		i = j
	}
	return firsts
}

// instRanges is the sorted, merged set of runes a rune instruction
// matches, as [lo, hi] pairs.
func instRanges(inst syntax.Inst) []rune {
	var rs []rune
	switch inst.Op {
	case syntax.InstRuneAny:
		return []rune{0, unicode.MaxRune}
	case syntax.InstRuneAnyNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	case syntax.InstRune1:
		return []rune{inst.Rune[0], inst.Rune[0]}
	}
	if len(inst.Rune) == 1 {
		r0 := inst.Rune[0]
		rs = []rune{r0, r0}
		if syntax.Flags(inst.Arg)&syntax.FoldCase != 0 {
			for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
				rs = append(rs, r, r)
			}
		}
	} else {
		rs = slices.Clone(inst.Rune)
	}
	return mergeRanges(rs)
}

func mergeRanges(rs []rune) []rune {
	pairs := make([][2]rune, 0, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		pairs = append(pairs, [2]rune{rs[i], rs[i+1]})
	}
	slices.SortFunc(pairs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	var out []rune
	for _, p := range pairs {
		if k := len(out); k > 0 && p[0] <= out[k-1]+1 {
			out[k-1] = max(out[k-1], p[1])
			continue
		}
		out = append(out, p[0], p[1])
	}
	return out
}

func classHas(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}
