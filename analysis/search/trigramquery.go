package search

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// Query is a boolean formula over trigrams that every match of a regular
// expression implies, after Russ Cox's codesearch: a file whose trigrams do
// not satisfy it cannot match, so the regexp only runs on candidates.
type Query struct {
	Op       QueryOp
	Trigrams []uint32 // for QAnd/QOr: trigrams all (or any) of which must appear
	Sub      []*Query // for QAnd/QOr: subqueries all (or any) of which must hold
}

// QueryOp is a Query's operator.
type QueryOp uint8

const (
	QAll  QueryOp = iota // every file is a candidate
	QNone                // no file can match
	QAnd
	QOr
)

var allQuery = &Query{Op: QAll}

// maxExact bounds the set of exact strings tracked per node; beyond it the
// set is turned into a trigram query.
const maxExact = 16

// info is what the analysis knows about a subexpression: either the exact,
// finite set of (ASCII-folded) strings it matches, or a query its matches
// satisfy.
type info struct {
	exact []string // nil: unknown (see q)
	q     *Query
}

// TrigramQuery analyses a parsed regexp.
func TrigramQuery(re *syntax.Regexp) *Query {
	i := analyze(re.Simplify())
	return simplify(i.toQuery())
}

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpNoMatch:
		return info{q: &Query{Op: QNone}}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return info{exact: []string{""}}
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		b := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf && fold {
				return info{q: allQuery} // non-ASCII case folding changes bytes
			}
			b = utf8.AppendRune(b, r)
		}
		for j := range b {
			b[j] = foldByte(b[j])
		}
		return info{exact: []string{string(b)}}
	case syntax.OpCharClass:
		var set []string
		for j := 0; j+1 < len(re.Rune); j += 2 {
			lo, hi := re.Rune[j], re.Rune[j+1]
			if hi-lo >= maxExact || len(set) > maxExact {
				return info{q: allQuery}
			}
			for r := lo; r <= hi; r++ {
				if r >= utf8.RuneSelf {
					set = append(set, string(r))
				} else {
					set = append(set, string([]byte{foldByte(byte(r))}))
				}
			}
		}
		slices.Sort(set)
		set = slices.Compact(set)
		if len(set) > maxExact {
			return info{q: allQuery}
		}
		return info{exact: set}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		s := analyze(re.Sub[0])
		if s.exact != nil && len(s.exact) < maxExact {
			return info{exact: union(s.exact, []string{""})}
		}
		return info{q: allQuery}
	case syntax.OpStar:
		return info{q: allQuery}
	case syntax.OpPlus:
		return info{q: analyze(re.Sub[0]).toQuery()}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return info{q: allQuery}
		}
		return info{q: analyze(re.Sub[0]).toQuery()}
	case syntax.OpConcat:
		acc := info{exact: []string{""}}
		var qs []*Query
		for _, sub := range re.Sub {
			s := analyze(sub)
			if acc.exact != nil && s.exact != nil && len(acc.exact)*len(s.exact) <= maxExact {
				acc.exact = cross(acc.exact, s.exact)
				continue
			}
			// The run of exact strings ends here: keep what it implies.
			if acc.exact != nil {
				qs = append(qs, acc.toQuery())
			}
			if s.exact != nil {
				acc = s
			} else {
				qs = append(qs, s.q)
				acc = info{exact: []string{""}}
			}
		}
		if len(qs) == 0 {
			return acc
		}
		qs = append(qs, acc.toQuery())
		return info{q: &Query{Op: QAnd, Sub: qs}}
	case syntax.OpAlternate:
		var exact []string
		var qs []*Query
		allExact := true
		for _, sub := range re.Sub {
			s := analyze(sub)
			if s.exact == nil {
				allExact = false
			}
			exact = union(exact, s.exact)
			qs = append(qs, s.toQuery())
		}
		if allExact && len(exact) <= maxExact {
			return info{exact: exact}
		}
		return info{q: &Query{Op: QOr, Sub: qs}}
	}
	return info{q: allQuery} // any char, and anything unforeseen: no constraint
}

// toQuery turns an info into a query: an OR over its exact strings of the
// AND of each string's trigrams.
func (i info) toQuery() *Query {
	if i.exact == nil {
		return i.q
	}
	or := &Query{Op: QOr}
	for _, s := range i.exact {
		if len(s) < 3 {
			return allQuery
		}
		and := &Query{Op: QAnd}
		for j := 0; j+2 < len(s); j++ {
			and.Trigrams = append(and.Trigrams, trigram(s[j], s[j+1], s[j+2]))
		}
		or.Sub = append(or.Sub, and)
	}
	if len(or.Sub) == 0 {
		return &Query{Op: QNone}
	}
	return or
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// simplify folds constant subqueries and single-child operators.
func simplify(q *Query) *Query {
	if q.Op != QAnd && q.Op != QOr {
		return q
	}
	out := &Query{Op: q.Op, Trigrams: slices.Compact(slices.Sorted(slices.Values(q.Trigrams)))}
	for _, s := range q.Sub {
		s = simplify(s)
		switch {
		case q.Op == QAnd && s.Op == QAll, q.Op == QOr && s.Op == QNone:
			continue
		case q.Op == QAnd && s.Op == QNone, q.Op == QOr && s.Op == QAll:
			return s
		case s.Op == q.Op:
			out.Trigrams = slices.Compact(slices.Sorted(slices.Values(slices.Concat(out.Trigrams, s.Trigrams))))
			out.Sub = append(out.Sub, s.Sub...)
		default:
			out.Sub = append(out.Sub, s)
		}
	}
	switch {
	case len(out.Trigrams) == 0 && len(out.Sub) == 0 && q.Op == QAnd:
		return allQuery
	case len(out.Trigrams) == 0 && len(out.Sub) == 0:
		return &Query{Op: QNone}
	case len(out.Trigrams) == 0 && len(out.Sub) == 1:
		return out.Sub[0]
	case len(out.Trigrams) == 1 && len(out.Sub) == 0:
		return &Query{Op: QAnd, Trigrams: out.Trigrams}
	}
	return out
}
