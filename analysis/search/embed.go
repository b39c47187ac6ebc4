package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
)

// Embedder turns texts into vectors of a fixed dimension. Model is recorded
// in the index: vectors of different models or dimensions are never compared,
// and a change rebuilds them.
type Embedder interface {
	Model() string
	Dim() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// DefaultThreshold is the minimum cosine similarity that a semantic hit
	// needs when the caller gives none: scales differ between models.
	DefaultThreshold() float64
}

// Hashed is the built-in offline embedder. It is not a neural model and knows
// no meaning: it hashes a text's identifier-split terms (weight 1, with log
// term frequency) and the character trigrams of those terms (weight 0.5) into a
// fixed number of signed buckets (the "hashing trick") and L2-normalises.
// Cosine similarity between two such vectors measures shared vocabulary and
// spelling, so "parse config" finds parseConfig and ConfigParser, and
// "tokenize" finds tokenizer, but "error handling" does not find "recover".
// It is deterministic, needs no weights, and costs microseconds per chunk.
type Hashed struct{ Dims int }

// NewHashed returns the default offline embedder with 256 dimensions.
func NewHashed() Hashed { return Hashed{Dims: 256} }

func (h Hashed) Model() string             { return fmt.Sprintf("kast-hashed-v1-%d", h.Dims) }
func (h Hashed) Dim() int                  { return h.Dims }
func (h Hashed) DefaultThreshold() float64 { return 0.2 }

func (h Hashed) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.embed(t)
	}
	return out, nil
}

func (h Hashed) embed(text string) []float32 {
	counts := map[string]int{}
	Terms(text, func(t string) { counts[t]++ })
	v := make([]float32, h.Dims)
	add := func(feature string, w float64) {
		f := fnv.New64a()
		f.Write([]byte(feature))
		x := f.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(h.Dims)] += sign * float32(w)
	}
	for t, n := range counts {
		w := 1 + math.Log(float64(n))
		add("w:"+t, w)
		p := "^" + t + "$"
		for j := 0; j+3 <= len(p); j++ {
			add("g:"+p[j:j+3], 0.5*w)
		}
	}
	normalize(v)
	return v
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	n := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= n
	}
}

// HTTPEmbedder calls an embedding service: Ollama's POST /api/embed or an
// OpenAI-compatible POST /v1/embeddings (OpenAI, llama.cpp, vLLM, Ollama's
// own /v1). The dimension is learnt from the first response when Dims is 0.
type HTTPEmbedder struct {
	Kind    string // "ollama" or "openai"
	BaseURL string // e.g. http://127.0.0.1:11434 or https://api.openai.com
	Name    string // model name
	APIKey  string // sent as a bearer token when set
	Dims    int
	Client  *http.Client
}

func (e *HTTPEmbedder) Model() string             { return e.Kind + ":" + e.Name }
func (e *HTTPEmbedder) Dim() int                  { return e.Dims }
func (e *HTTPEmbedder) DefaultThreshold() float64 { return 0.6 }

// Probe learns the dimension by embedding one short text.
func (e *HTTPEmbedder) Probe(ctx context.Context) error {
	_, err := e.Embed(ctx, []string{"dimension probe"})
	return err
}

func (e *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var path string
	var body any
	switch e.Kind {
	case "ollama":
		path, body = "/api/embed", map[string]any{"model": e.Name, "input": texts}
	case "openai":
		path, body = "/v1/embeddings", map[string]any{"model": e.Name, "input": texts, "encoding_format": "float"}
	default:
		return nil, fmt.Errorf("embedder: unknown provider %q (want ollama or openai)", e.Kind)
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.BaseURL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	client := e.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embedder %s: %w", e.Model(), err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embedder %s: HTTP %d: %s", e.Model(), resp.StatusCode, bytes.TrimSpace(raw[:min(len(raw), 500)]))
	}
	var vecs [][]float32
	if e.Kind == "ollama" {
		var r struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("embedder %s: %w", e.Model(), err)
		}
		vecs = r.Embeddings
	} else {
		var r struct {
			Data []struct {
				Embedding []float32 `json:"embedding"`
				Index     int       `json:"index"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("embedder %s: %w", e.Model(), err)
		}
		vecs = make([][]float32, len(r.Data))
		for _, d := range r.Data {
			if d.Index < 0 || d.Index >= len(vecs) {
				return nil, fmt.Errorf("embedder %s: response index %d out of range", e.Model(), d.Index)
			}
			vecs[d.Index] = d.Embedding
		}
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder %s: %d vectors for %d inputs", e.Model(), len(vecs), len(texts))
	}
	for _, v := range vecs {
		if e.Dims == 0 {
			e.Dims = len(v)
		}
		if len(v) != e.Dims || len(v) == 0 {
			return nil, fmt.Errorf("embedder %s: got a %d-dimensional vector, want %d", e.Model(), len(v), e.Dims)
		}
		normalize(v)
	}
	return vecs, nil
}

// quantize stores a unit vector as int8 with one float32 scale: a quarter of
// the bytes, and cosine ranking is unchanged to about 1 %.
func quantize(v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	out := make([]byte, 4, 4+len(v))
	scale := m / 127
	binary.BigEndian.PutUint32(out, math.Float32bits(scale))
	for _, x := range v {
		q := 0.0
		if scale > 0 {
			q = math.Round(float64(x / scale))
		}
		out = append(out, byte(int8(q)))
	}
	return out
}
