package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"
)

// Learned is the default offline embedder: word vectors learned from the
// workspace's own code, comments and docs. Identifiers are split into their
// parts and comment words are kept, a windowed co-occurrence matrix of those
// tokens is weighted by positive pointwise mutual information and reduced
// by a randomized SVD (learned_train.go, learned_svd.go). Words that occur
// in the same contexts ("convert" and "parse", "dir" and "folder") end up
// close, so a query finds code whose words differ from its own. A chunk's
// vector is the smooth-inverse-frequency weighted average of its words'
// vectors without the corpus's common direction.
//
// Learned is a configuration: every engine learns a model of its own
// workspace, stores it in the index and names it by a hash of its state, so
// vectors of a stale model are never compared with a new one's.
type Learned struct {
	Dims     int // vector dimension (default 192)
	MaxVocab int // words that get a vector (default 40000)
}

// NewLearned returns the default embedder.
func NewLearned() Learned { return Learned{Dims: 192, MaxVocab: 40000} }

func (l Learned) withDefaults() Learned {
	if l.Dims <= 0 {
		l.Dims = 192
	}
	if l.MaxVocab <= 0 {
		l.MaxVocab = 40000
	}
	return l
}

// Model names the untrained configuration; an engine's embedder names its
// trained model instead.
func (l Learned) Model() string             { return fmt.Sprintf("kast-learned-v1-%d", l.withDefaults().Dims) }
func (l Learned) Dim() int                  { return l.withDefaults().Dims }
func (l Learned) DefaultThreshold() float64 { return learnedThreshold }

// Embed fails: a Learned configuration has no model until an engine trains
// one on its workspace.
func (l Learned) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errUntrained
}

func (l Learned) forWorkspace() Embedder { return &learnedEmbedder{cfg: l.withDefaults()} }

// learnedThreshold is the default minimum cosine: learned vectors of
// unrelated code still share the language's common words.
const learnedThreshold = 0.1

var errUntrained = errors.New("search: the learned embedder has no model yet: index the workspace first")

// perWorkspace is an embedder configuration whose model each engine learns
// from its own workspace.
type perWorkspace interface{ forWorkspace() Embedder }

// learnedEmbedder is one engine's learned embedder; Refresh swaps its model.
type learnedEmbedder struct {
	cfg Learned
	mu  sync.RWMutex
	m   *learnedModel
}

func (e *learnedEmbedder) model() *learnedModel {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.m
}

func (e *learnedEmbedder) setModel(m *learnedModel) {
	e.mu.Lock()
	e.m = m
	e.mu.Unlock()
}

func (e *learnedEmbedder) Model() string {
	if m := e.model(); m != nil {
		return m.id()
	}
	return e.cfg.Model() + "-untrained"
}

func (e *learnedEmbedder) Dim() int                  { return e.cfg.Dims }
func (e *learnedEmbedder) DefaultThreshold() float64 { return learnedThreshold }

func (e *learnedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	m := e.model()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if m == nil {
			// Too few words to learn from yet: no meaning, so no semantic
			// match, until a refresh trains a model and re-embeds.
			out[i] = make([]float32, e.cfg.Dims)
			continue
		}
		out[i] = m.embed(t)
	}
	return out, nil
}

// learnedModel is a trained vocabulary with one unit vector per word.
type learnedModel struct {
	dim     int
	words   []string
	index   map[string]int32
	counts  []int64   // corpus frequency of each word
	vecs    []float32 // len(words) × dim
	total   int64     // tokens in the training corpus
	common  []float32 // the corpus's common direction, removed from every vector
	hash    uint64    // of the state above: part of the model id
	chunks  int       // chunks in the workspace when the model was trained
	drifted int       // chunks indexed since
}

func (m *learnedModel) id() string { return fmt.Sprintf("kast-learned-v1-%d-%016x", m.dim, m.hash) }

// Words near a text's start weigh up to 1+leadBoost times more, fading over
// about leadScale words: a chunk starts with its name, signature and doc,
// which say what it is for; its body's words say more about how.
const leadBoost, leadScale = 4, 8

// sifA is the smooth inverse frequency constant: a word of probability p
// weighs sifA/(sifA+p), so "the", "err" and "return" barely count.
const sifA = 3e-3

func (m *learnedModel) weight(w int32) float64 {
	p := float64(m.counts[w]) / float64(max(m.total, 1))
	return sifA / (sifA + p)
}

// embed composes a text's vector from its words' vectors.
func (m *learnedModel) embed(text string) []float32 {
	v := make([]float32, m.dim)
	acc := make([]float64, m.dim)
	n, pos := 0, 0
	meaningTokens(text, func(tok string) {
		id, ok := m.index[tok]
		if !ok {
			return
		}
		w := m.weight(id) * (1 + leadBoost*math.Exp(-float64(pos)/leadScale))
		pos++
		for i, x := range m.vecs[int(id)*m.dim : int(id+1)*m.dim] {
			acc[i] += w * float64(x)
		}
		n++
	})
	if n == 0 {
		return v
	}
	var proj float64
	for i, c := range m.common {
		proj += acc[i] * float64(c)
	}
	for i := range v {
		v[i] = float32(acc[i] - proj*float64(m.common[i]))
	}
	normalize(v)
	return v
}

// meaningTokens splits text into the tokens the learned model knows: a
// compound identifier whole and its lowercase parts ("parseHTTPRequest" →
// parsehttprequest, parse, http, request) and words of prose, the parts
// reduced to a crude stem so "converts" and "convert" are one word. Stop
// words, numbers and single letters carry no meaning of their own and are
// dropped.
func meaningTokens(text string, fn func(tok string)) {
	start := -1
	for i, r := range text + " " {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			parts := splitIdent(text[start:i])
			if len(parts) > 1 {
				fn(lower(text[start:i]))
			}
			for _, p := range parts {
				if t := stem(lower(p)); len(t) >= 2 && !stopWords[t] && !isNumber(t) {
					fn(t)
				}
			}
			start = -1
		}
	}
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// stem strips English plural and third-person endings.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && w[n-3:] == "ies":
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") ||
		strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		return w[:n-1]
	}
	return w
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from",
		"has", "have", "if", "in", "into", "is", "it", "its", "of", "on", "or", "so", "such", "than", "that",
		"the", "their", "then", "there", "these", "this", "to", "wa", "was", "were", "which", "will", "with"} {
		m[w] = true
	}
	return m
}()

// cosine of two unit vectors.
func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// similarity is the cosine of two words' vectors, NaN for an unknown word.
func (m *learnedModel) similarity(a, b string) float64 {
	i, ok1 := m.index[a]
	j, ok2 := m.index[b]
	if !ok1 || !ok2 {
		return math.NaN()
	}
	return cosine(m.vecs[int(i)*m.dim:int(i+1)*m.dim], m.vecs[int(j)*m.dim:int(j+1)*m.dim])
}
