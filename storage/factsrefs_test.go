package storage

import (
	"reflect"
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// Facts decoded keeping some references equal the whole facts but for the
// references passed over, which are zero, the doc comments and the call
// sites (resolving references reads neither); inheritance
// references are always kept (the resolver finds embedded types through
// them).
func TestFactsKeepingSomeReferences(t *testing.T) {
	var f analysis.FileFacts
	seed := 0
	fill(reflect.ValueOf(&f).Elem(), &seed)
	f.Defs[0].Container = analysis.None
	// Large values, so that skipped varints take several bytes.
	f.Refs = append(f.Refs, analysis.Ref{Name: "embedded", Span: analysis.Span{Start: 1 << 20, End: 1<<20 + 9,
		StartPoint: analysis.Point{Line: 70000, Col: 300}, EndPoint: analysis.Point{Line: 70000, Col: 309}},
		Role: analysis.RoleInheritance, Scope: 1 << 16, Enclosing: -1, Qualifier: "q"},
		analysis.Ref{Name: "last", Span: analysis.Span{Start: 1 << 21, End: 1<<21 + 4}, Scope: 300, Enclosing: 1 << 17})
	blob := encodeFacts(&f)
	whole, err := decodeFacts(blob)
	if err != nil {
		t.Fatal(err)
	}
	keep := map[int]bool{1: true, 3: true}
	got, err := decodeFactsKeeping(blob, false, func(i int) bool { return keep[i] })
	if err != nil {
		t.Fatal(err)
	}
	want := *whole
	want.Defs = slices.Clone(whole.Defs)
	for i := range want.Defs {
		want.Defs[i].Doc = ""
	}
	if len(whole.Calls) == 0 {
		t.Fatal("the fixture has no call sites to pass over")
	}
	want.Calls = nil
	want.Refs = make([]analysis.Ref, len(whole.Refs))
	for i, r := range whole.Refs {
		if keep[i] || r.Role&analysis.RoleInheritance != 0 {
			want.Refs[i] = r
		}
	}
	if want.Refs[2].Name != "embedded" || want.Refs[0].Name != "" {
		t.Fatalf("the fixture keeps the wrong references: %+v", want.Refs)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("kept references 1 and 3:\n got %+v\nwant %+v", got, &want)
	}
	if _, err := decodeFactsKeeping(blob[:len(blob)/2], false, func(int) bool { return false }); err == nil {
		t.Error("truncated blob decoded without error")
	}
}

func TestIndexFactsWithRefs(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	f := fakeFacts("package p\nfunc a() { b(); c() }\n", []string{"a"}, []string{"b", "c"})
	mustPut(t, ix, "/w/p.go", f)
	last := int32(len(f.Refs) - 1)
	got, err := ix.FactsWithRefs("/w/p.go", []int32{last})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Refs) != len(f.Refs) || got.Refs[last].Name != f.Refs[last].Name || got.Refs[0].Name != "" {
		t.Errorf("references: got %+v, want only the last of %+v", got.Refs, f.Refs)
	}
	if len(got.Defs) != len(f.Defs) || got.Defs[0].Name != f.Defs[0].Name {
		t.Errorf("definitions: got %+v, want %+v", got.Defs, f.Defs)
	}
	if _, err := ix.FactsWithRefs("/w/missing.go", []int32{0}); err == nil {
		t.Error("a file not indexed gave facts")
	}
}
