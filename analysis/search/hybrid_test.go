package search

import (
	"math"
	"testing"
)

func TestNameInQuery(t *testing.T) {
	words := map[string]bool{}
	meaningTokens("ParseInt interprets a string s in the given base", func(t string) { words[t] = true })
	for name, want := range map[string]float64{
		"ParseInt":     1,       // the compound whole
		"strconv.Atoi": 0,       // the last part of a breadcrumb only
		"Reader.parse": 1,       // a single word, held
		"parse_string": 2.0 / 3, // the compound is not held; both its parts are
		"formatString": 1.0 / 3, // of formatstring, format, string: one
		"":             0,
	} {
		if got := nameInQuery(name, words); math.Abs(got-want) > 1e-9 {
			t.Errorf("nameInQuery(%q) = %v, want %v", name, got, want)
		}
	}
}

// The reranker puts the function the query names, which the semantic arm
// ranks second, above a block both arms rank near the top (plain RRF's
// winner), and keeps each hit's RRF score for ck's rrf_score.
func TestFuseReranks(t *testing.T) {
	f := &fileEntry{path: "strconv/atoi.go", chunks: []Chunk{
		{Kind: "block", Name: ""},
		{Kind: "function", Name: "ParseInt"},
		{Kind: "function", Name: "quote"},
	}}
	sem := []ranked{{f, 0, 0.62}, {f, 1, 0.60}, {f, 2, 0.2}}
	lex := []ranked{{f, 0, 9}, {f, 2, 8}, {f, 1, 3}}
	got := fuse("ParseInt interprets a string s in the given base", sem, lex)
	best := got[0]
	for _, h := range got[1:] {
		if h.blend > best.blend {
			best = h
		}
	}
	if best.chunk != 1 {
		t.Fatalf("best = chunk %d (%+v), want ParseInt", best.chunk, got)
	}
	rrfTop := got[0] // chunk 0: first in both arms
	if rrfTop.chunk != 0 || math.Abs(rrfTop.rrf-2.0/61) > 1e-12 {
		t.Fatalf("chunk 0's RRF = %v, want 2/61", rrfTop.rrf)
	}
	if math.Abs(best.rrf-(1.0/62+1.0/63)) > 1e-12 || best.rrf >= rrfTop.rrf {
		t.Fatalf("ParseInt's RRF = %v", best.rrf)
	}
}
