package search

import "strings"

// fusedHit is one chunk among hybrid's candidates, with what each arm said
// of it.
type fusedHit struct {
	f          *fileEntry
	chunk      int
	rrf        float64 // Σ 1/(60+rank) over the arms that ranked it
	sem, lex   float64 // the arms' scores; 0 where an arm did not rank it
	semR, lexR int     // 1-based ranks; 0 where an arm did not rank it
	blend      float64 // the reranker's score, which orders the hits
}

// chunkRef names one chunk of the state.
type chunkRef struct {
	f     *fileEntry
	chunk int
}

// The reranker's weights: each arm's score relative to its best candidate,
// the chunk's name in the query, and the chunk being a function or method.
// Chosen on kastbench -retrieval's four corpora (Go and Python standard
// library subsets, cobra+gin, requests+flask), where plain RRF reached
// 1.07-1.36× BM25's recall@10 and this blend 1.23-1.78×; the semantic arm
// weighs most because the learned model is the better single ranker there.
//
// Reference-graph centrality (how many files name the chunk's symbol, read
// from the term postings, raw or per definition of the name) was tried as a
// fifth feature at weights 0.05-0.3 on the same corpora and left out: each
// form lowered at least one corpus at every weight (raw counts the Python
// standard library subset; per definition cobra+gin's recall@10) while
// raising others by at most 0.012 MRR.
const (
	weightSemantic = 1.0
	weightLexical  = 0.4
	weightName     = 0.5
	weightKind     = 0.2
)

// fuse joins the two arms' best candidates by reciprocal rank fusion
// (k = 60), then reorders them by a blend of features no single arm sees
// whole: each arm's score relative to its best candidate, whether the
// chunk's own name is in the query (people and docs name what they look
// for), and whether the chunk is a function or method (what a question
// about behaviour asks for). RRF alone gives the two arms equal say and
// discards their scores: a chunk semantic ranks 1st by a wide margin loses
// to one both arms rank 20th. The blend is a cheap, model-free reranker:
// no cross-encoder, nothing downloaded.
func fuse(query string, sem, lex []ranked) []fusedHit {
	byKey := map[chunkRef]*fusedHit{}
	var order []*fusedHit
	get := func(r ranked) *fusedHit {
		k := chunkRef{r.f, r.chunk}
		h := byKey[k]
		if h == nil {
			h = &fusedHit{f: r.f, chunk: r.chunk}
			byKey[k] = h
			order = append(order, h)
		}
		return h
	}
	var semMax, lexMax float64
	for i, r := range sem {
		h := get(r)
		h.rrf += 1 / float64(60+i+1)
		h.sem, h.semR = r.score, i+1
		semMax = max(semMax, r.score)
	}
	for i, r := range lex {
		h := get(r)
		h.rrf += 1 / float64(60+i+1)
		h.lex, h.lexR = r.score, i+1
		lexMax = max(lexMax, r.score)
	}
	words := map[string]bool{}
	meaningTokens(query, func(t string) { words[t] = true })
	out := make([]fusedHit, 0, len(order))
	for _, h := range order {
		var s float64
		if semMax > 0 {
			s += weightSemantic * max(h.sem, 0) / semMax
		}
		if lexMax > 0 {
			s += weightLexical * h.lex / lexMax
		}
		c := h.f.chunks[h.chunk]
		s += weightName * nameInQuery(c.Name, words)
		if c.Kind == "function" || c.Kind == "method" {
			s += weightKind
		}
		h.blend = s
		out = append(out, *h)
	}
	return out
}

// nameInQuery is 1 when the query holds the chunk's name whole, else the
// share of the name's parts it holds ("parse_header" → parse, header).
func nameInQuery(name string, words map[string]bool) float64 {
	name = name[strings.LastIndexByte(name, '.')+1:]
	if name == "" || len(words) == 0 {
		return 0
	}
	var parts []string
	meaningTokens(name, func(t string) { parts = append(parts, t) })
	if len(parts) == 0 {
		return 0
	}
	if words[parts[0]] && len(parts) > 1 { // the compound whole comes first
		return 1
	}
	n := 0
	for _, p := range parts {
		if words[p] {
			n++
		}
	}
	return float64(n) / float64(len(parts))
}
