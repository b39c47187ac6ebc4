package search

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
)

// Training limits. The co-occurrence counts are sparse and bounded: when
// they exceed maxPairs the weakest are dropped, so a large workspace costs
// at most about 120 MB while training, within kast's soft memory limit.
const (
	cooccurWindow = 3       // words either side; a pair at distance d counts 1/d
	maxContexts   = 6000    // the most frequent words serve as contexts
	maxPairs      = 4 << 20 // distinct (word, context) counts kept
	maxDistinct   = 1 << 20 // distinct words counted while choosing the vocabulary
	minWordCount  = 2       // a word seen once has no statistics to learn from
	contextAlpha  = 0.75    // context distribution smoothing (Levy et al. 2015)
)

// tokenStream delivers the workspace's texts as token lists, in a stable
// order; it is called twice (vocabulary, then co-occurrences).
type tokenStream func(fn func(tokens []string)) error

// trainLearned learns a model from the stream: vocabulary, sparse
// co-occurrence counts, PPMI weighting, randomized SVD. It returns nil when
// the workspace has too few words to learn from.
func trainLearned(cfg Learned, stream tokenStream) (*learnedModel, error) {
	cfg = cfg.withDefaults()
	// Counts are updated through pointers: assigning to a string key that
	// is present stores the new key, a slice of a whole file's text, and
	// the vocabulary would keep every file it last saw a word in.
	freq := map[string]*int64{}
	floor := int64(1)
	if err := stream(func(toks []string) {
		for _, t := range toks {
			if n, ok := freq[t]; ok {
				*n++
			} else {
				one := int64(1)
				freq[strings.Clone(t)] = &one
			}
		}
		for len(freq) > maxDistinct { // lossy counting: forget the rarest
			floor++
			for w, n := range freq {
				if *n < floor {
					delete(freq, w)
				}
			}
		}
	}); err != nil {
		return nil, err
	}
	words := make([]string, 0, len(freq))
	for w, n := range freq {
		if *n >= minWordCount {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool {
		if a, b := *freq[words[i]], *freq[words[j]]; a != b {
			return a > b
		}
		return words[i] < words[j]
	})
	// A pair's key packs word and context into 32 bits.
	words = words[:min(len(words), cfg.MaxVocab, math.MaxUint32/maxContexts)]
	if len(words) < 8 {
		return nil, nil
	}
	index := make(map[string]int32, len(words))
	for i, w := range words {
		index[w] = int32(i)
	}
	freq = nil // clear would keep its table
	nctx := min(len(words), maxContexts)
	pairs := newPairCounts(nctx)
	ids := []int32{}
	var total int64
	counts := make([]int64, len(words))
	if err := stream(func(toks []string) {
		ids = ids[:0]
		for _, t := range toks {
			if id, ok := index[t]; ok {
				ids = append(ids, id)
				counts[id]++
				total++
			}
		}
		for i, a := range ids {
			for d := 1; d <= cooccurWindow && i+d < len(ids); d++ {
				b := ids[i+d]
				w := float32(1) / float32(d)
				pairs.add(a, b, w)
				pairs.add(b, a, w)
			}
		}
	}); err != nil {
		return nil, err
	}
	m := pairs.ppmi(len(words))
	pairs = nil
	// A small vocabulary gets fewer directions than Dims (the rest stay
	// zero): with about as many directions as words the SVD reduces
	// nothing, and words that share their contexts do not meet.
	u := randomizedSVD(m, min(cfg.Dims, max(8, len(words)/10)), uint64(len(words)))
	return finishModel(cfg, words, counts, total, u), nil
}

// finishModel turns the SVD's rows into unit word vectors, quantized as
// they are stored so a reloaded model is identical, and hashes the result.
func finishModel(cfg Learned, words []string, counts []int64, total int64, u product) *learnedModel {
	m := &learnedModel{dim: cfg.Dims, total: total, common: make([]float32, cfg.Dims)}
	v := make([]float32, cfg.Dims)
	row := make([]float64, u.cols())
	for i, w := range words {
		clear(v)
		var norm float64
		u.row(i, row)
		for t, x := range row {
			v[t] = float32(x)
			norm += x * x
		}
		if norm == 0 || counts[i] == 0 {
			continue // never beside a context word: nothing learned
		}
		normalize(v)
		m.words = append(m.words, w)
		m.counts = append(m.counts, counts[i])
		m.vecs = append(m.vecs, dequantize(quantize(v))...)
	}
	m.index = make(map[string]int32, len(m.words))
	acc := make([]float64, m.dim)
	for i, w := range m.words {
		m.index[w] = int32(i)
		f := float64(m.counts[i]) * m.weight(int32(i))
		for t, x := range m.vecs[i*m.dim : (i+1)*m.dim] {
			acc[t] += f * float64(x)
		}
	}
	for t, x := range acc {
		m.common[t] = float32(x)
	}
	normalize(m.common)
	m.hash = m.stateHash()
	return m
}

func (m *learnedModel) stateHash() uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i, w := range m.words {
		h.Write([]byte(w))
		binary.BigEndian.PutUint64(b[:], uint64(m.counts[i]))
		h.Write(b[:])
	}
	for _, x := range m.vecs {
		binary.BigEndian.PutUint32(b[:4], math.Float32bits(x))
		h.Write(b[:4])
	}
	return h.Sum64()
}

func dequantize(q []byte) []float32 {
	scale := math.Float32frombits(binary.BigEndian.Uint32(q))
	out := make([]float32, len(q)-4)
	for i, b := range q[4:] {
		out[i] = float32(int8(b)) * scale
	}
	return out
}

// pairCounts holds weighted (word, context) co-occurrence counts, bounded
// by maxPairs, keyed by word×nctx+context: 32-bit keys halve the largest
// table training builds.
type pairCounts struct {
	nctx   int
	m      map[uint32]float32
	weeded float32 // counts below this were dropped to stay in bounds
}

func newPairCounts(nctx int) *pairCounts {
	return &pairCounts{nctx: nctx, m: map[uint32]float32{}, weeded: 0.5}
}

func (p *pairCounts) key(word, ctx int32) uint32 { return uint32(word)*uint32(p.nctx) + uint32(ctx) }

func (p *pairCounts) split(k uint32) (word, ctx uint32) {
	return k / uint32(p.nctx), k % uint32(p.nctx)
}

func (p *pairCounts) add(word, ctx int32, w float32) {
	if int(ctx) >= p.nctx {
		return
	}
	p.m[p.key(word, ctx)] += w
	if len(p.m) > maxPairs {
		p.weed()
	}
}

// weed drops the weakest counts until a third of the budget is free, in
// place: a second table would double training's largest structure.
func (p *pairCounts) weed() {
	for len(p.m) > maxPairs*2/3 {
		p.weeded *= 2
		for k, v := range p.m {
			if v < p.weeded {
				delete(p.m, k)
			}
		}
	}
}

// ppmi returns the positive pointwise mutual information matrix of the
// counts, with the context distribution smoothed by contextAlpha. It is
// built by passes over the counts rather than from a sorted copy of them,
// which would double the memory of the largest structure in training.
func (p *pairCounts) ppmi(rows int) *csr {
	rowSum := make([]float64, rows)
	colSum := make([]float64, p.nctx)
	var n float64
	for k, v := range p.m {
		w, c := p.split(k)
		rowSum[w] += float64(v)
		colSum[c] += float64(v)
		n += float64(v)
	}
	var smooth float64
	for i, c := range colSum {
		colSum[i] = math.Pow(c, contextAlpha)
		smooth += colSum[i]
	}
	pmi := func(k uint32, v float32) float64 {
		w, c := p.split(k)
		return math.Log(float64(v) / n / (rowSum[w] / n * colSum[c] / smooth))
	}
	m := &csr{rows: rows, cols: p.nctx, start: make([]int, rows+1)}
	for k, v := range p.m {
		if pmi(k, v) > 0 {
			w, _ := p.split(k)
			m.start[w+1]++
		}
	}
	for i := range rows {
		m.start[i+1] += m.start[i]
	}
	m.col = make([]int32, m.start[rows])
	m.val = make([]float32, m.start[rows])
	fill := slices.Clone(m.start[:rows])
	for k, v := range p.m {
		if x := pmi(k, v); x > 0 {
			w, c := p.split(k)
			m.col[fill[w]], m.val[fill[w]] = int32(c), float32(x)
			fill[w]++
		}
	}
	for i := range rows { // column order within rows: sums in a fixed order
		sortRow(m.col[m.start[i]:m.start[i+1]], m.val[m.start[i]:m.start[i+1]])
	}
	return m
}

func sortRow(col []int32, val []float32) {
	sort.Sort(rowSorter{col, val})
}

type rowSorter struct {
	col []int32
	val []float32
}

func (r rowSorter) Len() int           { return len(r.col) }
func (r rowSorter) Less(i, j int) bool { return r.col[i] < r.col[j] }
func (r rowSorter) Swap(i, j int) {
	r.col[i], r.col[j] = r.col[j], r.col[i]
	r.val[i], r.val[j] = r.val[j], r.val[i]
}
