package main

import (
	"context"
	"sort"

	"github.com/kast-dev/kast/analysis/search"
)

func weightedFusion(e *search.Engine, ws, wl float64, k int) func(context.Context, search.RankedQuery) ([]search.Hit, error) {
	return func(ctx context.Context, q search.RankedQuery) ([]search.Hit, error) {
		q2 := q
		q2.TopK = 50
		sem, err := e.Semantic(ctx, q2)
		if err != nil {
			return nil, err
		}
		lex, err := e.Lexical(ctx, q2)
		if err != nil {
			return nil, err
		}
		score := map[string]float64{}
		byKey := map[string]search.Hit{}
		for i, h := range sem {
			score[h.Key()] += ws / float64(k+i+1)
			byKey[h.Key()] = h
		}
		for i, h := range lex {
			score[h.Key()] += wl / float64(k+i+1)
			byKey[h.Key()] = h
		}
		var out []search.Hit
		for key, h := range byKey {
			h.Score = score[key]
			out = append(out, h)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Score > out[j].Score })
		return out[:min(len(out), 10)], nil
	}
}
