package search

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A file's compact term rows hold exactly each chunk's term frequencies.
func TestFileTermsMatchChunkCounts(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "search", "repo", "pkg", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	chunks := Chunks(nil, src)
	tb := newTermsBuilder()
	tb.of([]byte("an earlier file whose terms must not leak"), []Chunk{{Start: 0, End: 10}})
	ft := tb.of(src, chunks)
	got := make([]map[string]uint32, len(chunks))
	for i := range got {
		got[i] = map[string]uint32{}
	}
	for _, r := range ft.rows {
		got[r.chunk][ft.term(r)] += r.tf
	}
	for i, c := range chunks {
		want := map[string]uint32{}
		Terms(string(src[c.Start:c.End]), func(t string) { want[t]++ })
		if !maps.Equal(got[i], want) {
			t.Errorf("chunk %d: %v, want %v", i, got[i], want)
		}
	}
}

// An index written in many small segments (a tiny posting budget) answers
// every query as one written in a single segment does.
func TestSegmentsDoNotChangeResults(t *testing.T) {
	ctx := context.Background()
	answers := func() []string {
		e, _ := fixture(t, NewHashed())
		var out []string
		for _, p := range []string{"HandleRequest", "(?i)timeout", `func \w+`, "retry"} {
			res, err := e.Regex(ctx, RegexQuery{Pattern: p})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range res.Lines {
				out = append(out, fmt.Sprintf("%s %s:%d", p, e.rel(l.Path), l.Line))
			}
		}
		for _, q := range []string{"retry backoff", "parse config", "handle request server"} {
			for _, run := range []func(context.Context, RankedQuery) ([]Hit, error){e.Lexical, e.Hybrid} {
				hits, err := run(ctx, RankedQuery{Query: q, TopK: 5})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					out = append(out, fmt.Sprintf("%s %s %s %.6f", q, e.rel(h.Path), h.Chunk.Name, h.Score))
				}
			}
		}
		out = append(out, fmt.Sprintf("segments>1: %v", e.st.meta.segments > 1))
		return out
	}
	one := answers()
	defer func(b int) { pendingBudget = b }(pendingBudget)
	pendingBudget = 1
	many := answers()
	if one[len(one)-1] != "segments>1: false" || many[len(many)-1] != "segments>1: true" {
		t.Fatalf("segments: %s, then %s", one[len(one)-1], many[len(many)-1])
	}
	if !slices.Equal(one[:len(one)-1], many[:len(many)-1]) {
		t.Fatalf("one segment:\n%q\nmany:\n%q", one, many)
	}
}
