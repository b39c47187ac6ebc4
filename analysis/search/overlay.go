package search

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Overlay is the text of files as an editor has them (unsaved buffers, edits
// it has not saved), by absolute path. A search given one reads those files
// from it instead of the disk, as the language server's open documents
// shadow the index: a file in the overlay stands in for its disk version
// where the search would read that, and a file not yet on disk is searched
// when it lies under the root and in the scope. Files outside the root are
// ignored, so one overlay may serve the engines of several roots.
type Overlay map[string][]byte

// overlayFile is one overlay file as the ranked searches see it: chunked
// from its overlay text, never written to the index.
type overlayFile struct {
	f     *fileEntry
	src   []byte
	terms []map[string]uint32 // per chunk
}

// applies reports whether the overlay's text of abs takes part in a search
// of this root and scope: the file is one the search reads from disk
// (onDisk), or it does not exist on disk yet.
func (e *Engine) overlayApplies(abs string, sc Scope, onDisk bool) bool {
	rel := e.rel(abs)
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return false
	}
	if onDisk {
		return true
	}
	if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
		return false // on disk but left out of the search (ignored, too large)
	}
	if sc.allowed != nil {
		return false // a filtered scope admits only files it listed
	}
	return e.inScope(sc, rel)
}

// overlayFiles chunks the overlay files that take part in a ranked search
// over st, in path order.
func (e *Engine) overlayFiles(ctx context.Context, st *state, q RankedQuery) []*overlayFile {
	var out []*overlayFile
	for _, abs := range slices.Sorted(maps.Keys(q.Overlay)) {
		rel := e.rel(abs)
		indexed := st.files[rel] != nil && e.inScope(q.Scope, rel)
		if !e.overlayApplies(abs, q.Scope, indexed) {
			continue
		}
		src := q.Overlay[abs]
		facts, err := e.facts(ctx, abs, src)
		if err != nil {
			facts = nil // unparsable: chunked as text, as the index does
		}
		of := &overlayFile{f: &fileEntry{path: rel, chunks: Chunks(facts, src)}, src: src}
		for _, c := range of.f.chunks {
			m := map[string]uint32{}
			Terms(string(src[c.Start:c.End]), func(t string) { m[t]++ })
			of.terms = append(of.terms, m)
		}
		out = append(out, of)
	}
	return out
}

// withoutOverlaid drops the rankings of indexed files the overlay replaces.
func withoutOverlaid(rs []ranked, ov []*overlayFile) []ranked {
	if len(ov) == 0 {
		return rs
	}
	shadowed := map[string]bool{}
	for _, o := range ov {
		shadowed[o.f.path] = true
	}
	return slices.DeleteFunc(rs, func(r ranked) bool { return shadowed[r.f.path] })
}

// bm25Overlay scores the overlay's chunks with the index's statistics (idf
// from its document frequencies, its average chunk length).
func bm25Overlay(st *state, ov []*overlayFile, dfs map[string]float64) []ranked {
	n := float64(max(1, st.totalChunks))
	avgdl := float64(st.totalTerms) / n
	var out []ranked
	for _, o := range ov {
		for ci, c := range o.f.chunks {
			score := 0.0
			for term, df := range dfs {
				tf := float64(o.terms[ci][term])
				if tf == 0 {
					continue
				}
				idf := math.Log(1 + (n-df+0.5)/(df+0.5))
				score += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(c.Terms)/max(avgdl, 1)))
			}
			if score > 0 {
				out = append(out, ranked{o.f, ci, score})
			}
		}
	}
	return out
}

// semanticOverlay embeds the overlay's chunks and scores them against the
// query's vector qv as the index's vectors are.
func (e *Engine) semanticOverlay(ctx context.Context, ov []*overlayFile, qv []float32) ([]ranked, error) {
	var texts []string
	var at []ranked
	for _, o := range ov {
		for ci, c := range o.f.chunks {
			texts = append(texts, embedText(c, o.src))
			at = append(at, ranked{f: o.f, chunk: ci})
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := e.emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	for i, v := range vecs {
		var dot float32
		for j := range min(len(v), len(qv)) {
			dot += qv[j] * v[j]
		}
		at[i].score = float64(dot)
	}
	return at, nil
}

// overlaySource is the overlay's text of a ranked file, if it has one.
func (e *Engine) overlaySource(q RankedQuery, rel string) ([]byte, bool) {
	src, ok := q.Overlay[e.abs(rel)]
	return src, ok
}
