package storage

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/klauspost/compress/s2"

	"github.com/kast-dev/kast/analysis"
)

// RefSpans skips what decodeFacts builds: with every field of the facts
// set, it must land on the same spans.
func TestRefSpansReadLikeFacts(t *testing.T) {
	var f analysis.FileFacts
	seed := 0
	fill(reflect.ValueOf(&f).Elem(), &seed)
	f.Defs[0].Container = analysis.None
	blob := encodeFacts(&f)
	got, err := decodeRefSpans(blob, []int32{1, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []analysis.Span{f.Refs[1].Span, f.Refs[0].Span, f.Refs[1].Span}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range [][]int32{{2}, {-1}} {
		if _, err := decodeRefSpans(blob, bad); err == nil {
			t.Errorf("reference %v of 2 read without error", bad)
		}
	}
	if _, err := decodeRefSpans(blob[:20], []int32{0}); err == nil {
		t.Error("truncated blob read without error")
	}
}

func TestIndexRefSpans(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	f := fakeFacts("package p\nfunc a() { b(); c() }\n", []string{"a"}, []string{"b", "c"})
	mustPut(t, ix, "/w/p.go", f)
	got, err := ix.RefSpans("/w/p.go", []int32{int32(len(f.Refs) - 1), 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []analysis.Span{f.Refs[len(f.Refs)-1].Span, f.Refs[0].Span}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans:\n got %+v\nwant %+v", got, want)
	}
	if _, err := ix.RefSpans("/w/missing.go", []int32{0}); err == nil {
		t.Error("a file not indexed gave spans")
	}
}

// Reading spans reuses the buffer it decompresses a blob into: a query
// over unsafe.Pointer reads the spans of a thousand files, and each
// decompressed blob (hundreds of kilobytes for a generated syscall file)
// was a fresh allocation to zero and collect.
func TestRefSpansReuseTheirBuffer(t *testing.T) {
	var calls []string
	for range 20000 {
		calls = append(calls, "Pointer")
	}
	blob := encodeFacts(fakeFacts("package p\n", []string{"a"}, calls))
	n, err := s2.DecodedLen(blob)
	if err != nil || n < 100000 {
		t.Fatalf("decoded length %d, %v; want a large blob", n, err)
	}
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := decodeRefSpans(blob, []int32{0, 19999}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	// Half the decoded length: the race detector's pool drops a quarter
	// of what it is given back.
	if perRun := (after.TotalAlloc - before.TotalAlloc) / runs; perRun > uint64(n)/2 {
		t.Errorf("%d bytes allocated per read of a blob decoding to %d", perRun, n)
	}
}

// A reference whose hint has HintSpan set is listed with its span, read
// from its posting: names on one line, one spanning lines, spans out of
// the order of the references; the others are listed without one.
func TestRefPostingsCarrySpannedHints(t *testing.T) {
	f := &analysis.FileFacts{Lang: "go", Refs: []analysis.Ref{
		{Name: "x", Span: analysis.Span{Start: 40, End: 41, StartPoint: analysis.Point{Line: 3, Col: 7}, EndPoint: analysis.Point{Line: 3, Col: 8}}},
		{Name: "x", Span: analysis.Span{Start: 10, End: 11, StartPoint: analysis.Point{Line: 1, Col: 2}, EndPoint: analysis.Point{Line: 1, Col: 3}}},
		{Name: "x", Span: analysis.Span{Start: 50, End: 52}},
		{Name: "x", Span: analysis.Span{Start: 60, End: 80, StartPoint: analysis.Point{Line: 5, Col: 1}, EndPoint: analysis.Point{Line: 7, Col: 4}}},
	}}
	hints := []uint64{HintSpan | 2, HintSpan | 1, 3, HintSpan}
	e := &encoder{}
	encodeRefPosting(e, f, []int{0, 1, 2, 3}, hints)
	got, err := decodeRefPosting(e.buf, "x", fileRow{path: "/w/p.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(f.Refs) {
		t.Fatalf("%d references listed, want %d", len(got), len(f.Refs))
	}
	for i, h := range got {
		spanned := hints[i]&HintSpan != 0
		if h.Hint != hints[i] || h.Spanned != spanned || spanned && h.Span != f.Refs[i].Span || !spanned && h.Span != (analysis.Span{}) {
			t.Errorf("reference %d: hint %x spanned %v span %+v; want hint %x spanned %v span %+v", i, h.Hint, h.Spanned, h.Span, hints[i], spanned, f.Refs[i].Span)
		}
	}
}
