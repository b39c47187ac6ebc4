// Why one long file: the three ranked query paths (lexical, semantic,
// hybrid) share their scoping, scoring and result assembly helpers, which
// read best side by side. The regex path is regexsearch.go.

package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
)

// RankedQuery is a lexical, semantic or hybrid search.
type RankedQuery struct {
	Query     string
	TopK      int     // 0 means 10
	Threshold float64 // minimum score; for semantic, <0 means the embedder's default
	Scope     Scope
	// Rerank reorders the best candidates by how many of the query's terms
	// each chunk holds (RerankModel); ck's cross-encoder rerankers need
	// model downloads kast does not make. Hybrid ignores it: it always
	// reranks its fused candidates by features (hybrid.go).
	Rerank bool
	// Overlay holds editor texts ranked in place of the indexed files.
	Overlay Overlay
	ov      []*overlayFile // the overlay chunked, once per query
}

// RerankModel names the reranker Rerank applies.
const RerankModel = "kast-term-coverage"

// Hit is one ranked chunk.
type Hit struct {
	Path  string  `json:"path"` // absolute
	Chunk Chunk   `json:"chunk"`
	Score float64 `json:"score"`
	Text  string  `json:"text"`
}

// Key identifies a hit's chunk by its span: fusion joins the arms on it.
func (h Hit) Key() string { return fmt.Sprintf("%s:%d-%d", h.Path, h.Chunk.Start, h.Chunk.End) }

type ranked struct {
	f     *fileEntry
	chunk int
	score float64
}

// Lexical ranks chunks by BM25 (k1 1.2, b 0.75) over the query's terms.
func (e *Engine) Lexical(ctx context.Context, q RankedQuery) ([]Hit, error) {
	var err error
	if q.Scope, err = e.resolve(ctx, q.Scope); err != nil {
		return nil, err
	}
	st, err := e.load()
	if err != nil {
		return nil, err
	}
	q.ov = e.overlayFiles(ctx, st, q)
	rs, err := e.bm25(st, q)
	if err != nil {
		return nil, err
	}
	return e.hits(st, rs, q)
}

func (e *Engine) bm25(st *state, q RankedQuery) ([]ranked, error) {
	terms := map[string]bool{}
	Terms(q.Query, func(t string) { terms[t] = true })
	n := float64(max(1, st.totalChunks))
	avgdl := float64(st.totalTerms) / n
	type key struct {
		f     uint32
		chunk uint32
	}
	scores := map[key]float64{}
	dfs := map[string]float64{}
	for term := range terms {
		var ps []termPosting
		err := e.store.Scan(termPrefix(term), false, func(_, v []byte) error {
			var err error
			ps, err = decodeTermPostings(v, ps)
			return err
		})
		if err != nil {
			return nil, err
		}
		ps = slices.DeleteFunc(ps, func(p termPosting) bool {
			f := st.byID[p.file]
			return f == nil || int(p.chunk) >= len(f.chunks)
		})
		df := float64(len(ps))
		dfs[term] = df
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			f := st.byID[p.file]
			if !e.inScope(q.Scope, f.path) {
				continue
			}
			dl := float64(f.chunks[p.chunk].Terms)
			tf := float64(p.tf)
			scores[key{p.file, p.chunk}] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/max(avgdl, 1)))
		}
	}
	out := make([]ranked, 0, len(scores))
	for k, s := range scores {
		out = append(out, ranked{st.byID[k.f], int(k.chunk), s})
	}
	return append(withoutOverlaid(out, q.ov), bm25Overlay(st, q.ov, dfs)...), nil
}

// vectorSet is every vector of the index in one slab, loaded once per state.
type vectorSet struct {
	dim    int
	index  map[uint64]int // chunk hash → row
	scales []float32
	slab   []int8
}

func (e *Engine) vectors(st *state) (*vectorSet, error) {
	e.mu.RLock()
	vs := st.vecs
	e.mu.RUnlock()
	if vs != nil {
		return vs, nil
	}
	vs = &vectorSet{dim: st.meta.dim, index: map[uint64]int{}}
	err := e.store.Scan([]byte{subVector}, false, func(k, v []byte) error {
		if len(v) != 4+vs.dim {
			return nil // another model's leftover: never compared
		}
		vs.index[beUint64(k[1:])] = len(vs.scales)
		vs.scales = append(vs.scales, math.Float32frombits(binary.BigEndian.Uint32(v)))
		for _, b := range v[4:] {
			vs.slab = append(vs.slab, int8(b))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	st.vecs = vs
	e.mu.Unlock()
	return vs, nil
}

// Semantic ranks chunks by cosine similarity to the query's embedding.
func (e *Engine) Semantic(ctx context.Context, q RankedQuery) ([]Hit, error) {
	var err error
	if q.Scope, err = e.resolve(ctx, q.Scope); err != nil {
		return nil, err
	}
	st, err := e.load()
	if err != nil {
		return nil, err
	}
	if q.Threshold < 0 {
		q.Threshold = e.emb.DefaultThreshold()
	}
	q.ov = e.overlayFiles(ctx, st, q)
	rs, err := e.semantic(ctx, st, q)
	if err != nil {
		return nil, err
	}
	return e.hits(st, rs, q)
}

func (e *Engine) semantic(ctx context.Context, st *state, q RankedQuery) ([]ranked, error) {
	if st.meta.model != e.emb.Model() || st.meta.dim != e.emb.Dim() {
		return nil, fmt.Errorf("search: the index holds %s vectors (%d dimensions), not %s: reindex", st.meta.model, st.meta.dim, e.emb.Model())
	}
	qv, err := e.emb.Embed(ctx, []string{q.Query})
	if err != nil {
		return nil, err
	}
	vs, err := e.vectors(st)
	if err != nil {
		return nil, err
	}
	// One sequential pass over the slab, then a lookup per chunk.
	dots := make([]float32, len(vs.scales))
	for row := range dots {
		v := vs.slab[row*vs.dim : (row+1)*vs.dim : (row+1)*vs.dim]
		var dot float32
		for i, x := range qv[0][:len(v)] {
			dot += x * float32(v[i])
		}
		dots[row] = dot * vs.scales[row]
	}
	var out []ranked
	for _, f := range st.files {
		if !e.inScope(q.Scope, f.path) {
			continue
		}
		for ci, c := range f.chunks {
			if row, ok := vs.index[c.Hash]; ok {
				out = append(out, ranked{f, ci, float64(dots[row])})
			}
		}
	}
	ov, err := e.semanticOverlay(ctx, q.ov, qv[0])
	if err != nil {
		return nil, err
	}
	return append(withoutOverlaid(out, q.ov), ov...), nil
}

// Hybrid fuses the semantic and lexical rankings: each arm ranks
// max(5×top_k, 50) candidates within the scope, reciprocal rank fusion
// (k = 60) joins them, and a feature reranker orders them (fuse). A hit's
// score is its RRF score, as ck reports hybrid scores, and the threshold
// applies to it.
func (e *Engine) Hybrid(ctx context.Context, q RankedQuery) ([]Hit, error) {
	var err error
	if q.Scope, err = e.resolve(ctx, q.Scope); err != nil {
		return nil, err
	}
	st, err := e.load()
	if err != nil {
		return nil, err
	}
	k := max(5*topK(q), 50)
	q.ov = e.overlayFiles(ctx, st, q)
	sem, err := e.semantic(ctx, st, q)
	if err != nil {
		return nil, err
	}
	lex, err := e.bm25(st, q)
	if err != nil {
		return nil, err
	}
	fused := fuse(q.Query, best(sem, k), best(lex, k))
	fused = slices.DeleteFunc(fused, func(h fusedHit) bool { return h.rrf < q.Threshold })
	out := make([]ranked, len(fused))
	rrf := make(map[chunkRef]float64, len(fused))
	for i, h := range fused {
		out[i] = ranked{h.f, h.chunk, h.blend}
		rrf[chunkRef{h.f, h.chunk}] = h.rrf
	}
	q.Threshold = math.Inf(-1)
	q.Rerank = false // the feature reranker above is hybrid's reranking
	hits, err := e.hitsOf(st, out, q, func(r ranked) float64 { return rrf[chunkRef{r.f, r.chunk}] })
	return hits, err
}

func topK(q RankedQuery) int {
	if q.TopK <= 0 {
		return 10
	}
	return q.TopK
}

// better orders hits: higher score, then path and chunk for stable output.
func better(a, b ranked) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.f.path != b.f.path {
		return a.f.path < b.f.path
	}
	return a.chunk < b.chunk
}

// best returns the k best of rs in order, without sorting all of rs: a
// semantic arm scores every chunk in scope.
func best(rs []ranked, k int) []ranked {
	if len(rs) > 4*k {
		// A sorted window of the k best so far; most hits fail the first test.
		top := make([]ranked, 0, k+1)
		for _, r := range rs {
			if len(top) == k && !better(r, top[k-1]) {
				continue
			}
			i := sort.Search(len(top), func(i int) bool { return better(r, top[i]) })
			top = slices.Insert(top, i, r)
			if len(top) > k {
				top = top[:k]
			}
		}
		return top
	}
	sort.Slice(rs, func(i, j int) bool { return better(rs[i], rs[j]) })
	return rs[:min(k, len(rs))]
}

// hits applies the threshold and top-k (after reranking, when asked) and
// reads the chunks' text.
func (e *Engine) hits(st *state, rs []ranked, q RankedQuery) ([]Hit, error) {
	return e.hitsOf(st, rs, q, func(r ranked) float64 { return r.score })
}

// hitsOf is hits with the score each hit reports, when it is not the one
// that ordered it.
func (e *Engine) hitsOf(st *state, rs []ranked, q RankedQuery, score func(ranked) float64) ([]Hit, error) {
	rs = slices.DeleteFunc(rs, func(r ranked) bool { return r.score < q.Threshold })
	if q.Rerank {
		rs = best(rs, max(3*topK(q), 50))
	} else {
		rs = best(rs, topK(q))
	}
	out := make([]Hit, 0, len(rs))
	srcs := map[string][]byte{}
	for _, r := range rs {
		src, ok := srcs[r.f.path]
		if !ok {
			if src, ok = e.overlaySource(q, r.f.path); !ok {
				src, _ = os.ReadFile(e.abs(r.f.path))
			}
			srcs[r.f.path] = src
		}
		c := r.f.chunks[r.chunk]
		text := ""
		if c.End <= len(src) {
			text = string(bytes.ToValidUTF8(src[c.Start:c.End], []byte("\uFFFD")))
		}
		out = append(out, Hit{Path: e.abs(r.f.path), Chunk: c, Score: score(r), Text: text})
	}
	if q.Rerank {
		out = rerank(q.Query, out)[:min(len(out), topK(q))]
	}
	return out, nil
}

// rerank scales each hit's score by the share of the query's distinct
// terms its chunk (and name) holds, so a chunk covering the whole query
// outranks one that matched a single term strongly.
func rerank(query string, hits []Hit) []Hit {
	want := map[string]bool{}
	Terms(query, func(t string) { want[t] = true })
	if len(want) == 0 {
		return hits
	}
	for i := range hits {
		have := map[string]bool{}
		Terms(hits[i].Chunk.Name+" "+hits[i].Text, func(t string) {
			if want[t] {
				have[t] = true
			}
		})
		hits[i].Score *= 0.5 + 0.5*float64(len(have))/float64(len(want))
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = foldByte(c)
	}
	return out
}
