package search

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/kast-dev/kast/storage"
)

// The learned model lives beside the search tables (store.go):
//
//	e h             head: dimension, corpus size, hash, chunks at training,
//	                chunks indexed since, word count, common direction
//	e w <block:4>   words of one block: word, count, quantized vector
const (
	subModel       = 'e'
	modelHead      = 'h'
	modelWords     = 'w'
	wordsPerBlock  = 2048
	minRetrainDiff = 50 // chunks; below this a model is never retrained
)

func (m *learnedModel) encodeHead() []byte {
	b := binary.AppendUvarint(nil, uint64(m.dim))
	b = binary.AppendUvarint(b, uint64(m.total))
	b = binary.BigEndian.AppendUint64(b, m.hash)
	b = binary.AppendUvarint(b, uint64(m.chunks))
	b = binary.AppendUvarint(b, uint64(m.drifted))
	b = binary.AppendUvarint(b, uint64(len(m.words)))
	for _, x := range m.common {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func (e *Engine) saveModelHead(m *learnedModel) error {
	return e.store.Write(func(w *storage.SearchWriter) error {
		return w.Set([]byte{subModel, modelHead}, m.encodeHead())
	})
}

// saveModel replaces the stored model; the head goes last, so a torn write
// leaves a head that does not match its words and is retrained.
func (e *Engine) saveModel(m *learnedModel) error {
	if err := e.dropPrefix([]byte{subModel}); err != nil {
		return err
	}
	return e.store.Write(func(w *storage.SearchWriter) error {
		for from := 0; from < len(m.words); from += wordsPerBlock {
			var b []byte
			for i := from; i < min(from+wordsPerBlock, len(m.words)); i++ {
				b = binary.AppendUvarint(b, uint64(len(m.words[i])))
				b = append(b, m.words[i]...)
				b = binary.AppendUvarint(b, uint64(m.counts[i]))
				b = append(b, quantize(m.vecs[i*m.dim:(i+1)*m.dim])...)
			}
			key := binary.BigEndian.AppendUint32([]byte{subModel, modelWords}, uint32(from/wordsPerBlock))
			if err := w.Set(key, b); err != nil {
				return err
			}
		}
		return w.Set([]byte{subModel, modelHead}, m.encodeHead())
	})
}

// loadModel reads the stored model, or returns nil when there is none or it
// does not check out (it is then retrained).
func (e *Engine) loadModel(dim int) (*learnedModel, error) {
	raw, ok, err := e.store.Get([]byte{subModel, modelHead})
	if err != nil || !ok {
		return nil, err
	}
	r := &reader{b: raw}
	m := &learnedModel{dim: int(r.uv()), total: int64(r.uv())}
	if h := r.bytes(8); h != nil {
		m.hash = binary.BigEndian.Uint64(h)
	}
	m.chunks, m.drifted = int(r.uv()), int(r.uv())
	nwords := int(r.uv())
	if r.err != nil || m.dim != dim || len(r.b) != 4*dim {
		return nil, nil
	}
	for i := range dim {
		m.common = append(m.common, math.Float32frombits(binary.BigEndian.Uint32(r.b[4*i:])))
	}
	err = e.store.Scan([]byte{subModel, modelWords}, false, func(_, v []byte) error {
		r := &reader{b: v}
		for len(r.b) > 0 && r.err == nil {
			w, n := r.str(), int64(r.uv())
			q := r.bytes(4 + dim)
			if r.err != nil {
				break
			}
			m.words = append(m.words, w)
			m.counts = append(m.counts, n)
			m.vecs = append(m.vecs, dequantize(q)...)
		}
		if r.err != nil {
			m.words = nil // torn: retrain
		}
		return nil
	})
	if err != nil || len(m.words) != nwords || m.stateHash() != m.hash {
		return nil, err
	}
	m.index = make(map[string]int32, len(m.words))
	for i, w := range m.words {
		m.index[w] = int32(i)
	}
	return m, nil
}

// learnModel returns the embedder a refresh embeds with. For the learned
// embedder it trains a model when there is none, and retrains when the
// chunks indexed since training exceed a quarter of those it was trained
// on. A new model has a new id, so every vector is then recomputed; it is
// returned unpublished, so queries keep the model of the vectors they
// rank until Refresh publishes both.
func (e *Engine) learnModel(ctx context.Context, st *state, rep *IndexReport, progress func(Progress)) (Embedder, error) {
	le, ok := e.emb.(*learnedEmbedder)
	if !ok || st.totalChunks == 0 {
		return e.emb, nil
	}
	if m := le.model(); m != nil {
		if rep.NewChunks == 0 {
			return e.emb, nil
		}
		m.drifted += rep.NewChunks // only refreshes, which are serialized, touch it
		if m.drifted <= max(m.chunks/4, minRetrainDiff) {
			return e.emb, e.saveModelHead(m)
		}
	}
	progress(Progress{Stage: "train"})
	paths := make([]string, 0, len(st.files))
	for p := range st.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	m, err := trainLearned(le.cfg, e.fileTokens(ctx, paths))
	if err != nil || m == nil {
		return e.emb, err
	}
	m.chunks = st.totalChunks
	if err := e.saveModel(m); err != nil {
		return e.emb, err
	}
	rep.Trained = true
	return &learnedEmbedder{cfg: le.cfg, m: m}, nil
}

// publishModel makes a refresh's newly trained model the engine's.
func (e *Engine) publishModel(used Embedder) {
	if fresh, ok := used.(*learnedEmbedder); ok && used != e.emb {
		e.emb.(*learnedEmbedder).setModel(fresh.model())
	}
}

// fileTokens streams the meaning tokens of the files, read and split in
// parallel but delivered in path order, with a few files per worker in
// flight: a file's tokens hold its text and cost several times its size.
func (e *Engine) fileTokens(ctx context.Context, paths []string) tokenStream {
	return func(fn func([]string)) error {
		ahead := 4 * max(1, runtime.GOMAXPROCS(0))
		results := make([]chan []string, len(paths))
		for i := range results {
			results[i] = make(chan []string, 1)
		}
		slots := make(chan struct{}, ahead)
		next := make(chan int)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var wg sync.WaitGroup
		for range max(1, runtime.GOMAXPROCS(0)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					var toks []string
					if src, err := os.ReadFile(e.abs(paths[i])); err == nil && !slices.Contains(src[:min(len(src), 8000)], 0) {
						meaningTokens(string(src), func(t string) { toks = append(toks, t) })
					}
					results[i] <- toks
				}
			}()
		}
		go func() {
			defer close(next)
			for i := range paths {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				select {
				case next <- i:
				case <-ctx.Done():
					return
				}
			}
		}()
		defer wg.Wait()
		for i := range paths {
			select {
			case toks := <-results[i]:
				<-slots
				fn(toks)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
}
