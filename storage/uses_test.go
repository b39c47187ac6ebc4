package storage

import (
	"errors"
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

func putUses(t *testing.T, ix *Index, path string, rec UsesRecord, uses map[UseTarget][]Use) {
	t.Helper()
	w := ix.NewUsesWriter()
	if err := w.Put(path, rec, uses); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

func usesOf(t *testing.T, ix *Index, target UseTarget) []UseHit {
	t.Helper()
	hits, err := ix.UsesOf(target)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// Uses round-trip, a file's second Put replaces exactly its first, and a
// removed file's record counts as an orphan until the uses are cleared.
func TestUsesTables(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	lib, a, b := "/w/lib.go", "/w/a.go", "/w/b.go"
	mustPut(t, ix, lib, fakeFacts("lib", []string{"F", "G"}, nil))
	mustPut(t, ix, a, fakeFacts("a", []string{"A"}, []string{"F", "G", "F"}))
	mustPut(t, ix, b, fakeFacts("b", []string{"B"}, []string{"F"}))
	recA := UsesRecord{Hash: HashContent([]byte("a")), Shape: 7}
	f, g := UseTarget{lib, 0}, UseTarget{lib, 1}
	useAt := func(ref int32, conf float64, uncertain bool) Use {
		return Use{Ref: ref, Span: span(1000+int(ref)*10, 1001+int(ref)*10), Role: analysis.RoleCall, Confidence: conf, Uncertain: uncertain}
	}

	if ok, _ := ix.UsesComplete(); ok {
		t.Fatal("a new index claims complete uses")
	}
	ambiguous := useAt(2, 0.9, false)
	ambiguous.Ambiguous = true // an overload call tied with another overload
	putUses(t, ix, a, recA, map[UseTarget][]Use{f: {ambiguous, useAt(0, 0.807, false)}, g: {useAt(1, 0.1, true)}})
	putUses(t, ix, b, UsesRecord{Hash: HashContent([]byte("b")), Shape: 9}, map[UseTarget][]Use{f: {useAt(0, 1, false)},
		{"/w/not-indexed.go", 0}: {useAt(0, 1, false)}})
	if err := ix.CompleteUses(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := ix.UsesComplete(); !ok {
		t.Fatal("uses not complete after CompleteUses")
	}
	want := []UseHit{{a, useAt(0, 0.807, false)}, {a, ambiguous}, {b, useAt(0, 1, false)}}
	if got := usesOf(t, ix, f); !slices.Equal(got, want) {
		t.Fatalf("uses of F:\n got  %+v\n want %+v", got, want)
	}
	if got := usesOf(t, ix, g); !slices.Equal(got, []UseHit{{a, useAt(1, 0.1, true)}}) {
		t.Fatalf("uses of G: %+v", got)
	}
	records, orphans, err := ix.UsesRecords()
	if err != nil || orphans != 0 || records[a] != recA || len(records) != 2 {
		t.Fatalf("records %v orphans %d err %v", records, orphans, err)
	}

	// a.go resolved again uses only G: its rows for F go.
	recA2 := UsesRecord{Hash: HashContent([]byte("a2")), Shape: 7}
	putUses(t, ix, a, recA2, map[UseTarget][]Use{g: {useAt(0, 1, false)}})
	if got := usesOf(t, ix, f); !slices.Equal(got, []UseHit{{b, useAt(0, 1, false)}}) {
		t.Fatalf("uses of F after a.go changed: %+v", got)
	}
	if got := usesOf(t, ix, g); !slices.Equal(got, []UseHit{{a, useAt(0, 1, false)}}) {
		t.Fatalf("uses of G after a.go changed: %+v", got)
	}
	if records, _, _ := ix.UsesRecords(); records[a] != recA2 {
		t.Fatalf("record of a.go = %+v, want %+v", records[a], recA2)
	}

	if err := ix.RemoveFile(b); err != nil {
		t.Fatal(err)
	}
	if records, orphans, _ := ix.UsesRecords(); orphans != 1 || len(records) != 1 {
		t.Fatalf("after removing b.go: records %v orphans %d; want a.go and one orphan", records, orphans)
	}
	if got := usesOf(t, ix, f); len(got) != 0 {
		t.Fatalf("uses from a removed file are listed: %+v", got)
	}

	if err := ix.ClearUses(); err != nil {
		t.Fatal(err)
	}
	records, orphans, _ = ix.UsesRecords()
	if ok, _ := ix.UsesComplete(); ok || len(records) != 0 || orphans != 0 || len(usesOf(t, ix, g)) != 0 {
		t.Fatalf("after ClearUses: complete %v records %v orphans %d", ok, records, orphans)
	}
}

// EachUse reads every stored use with its target, the same rows UsesOf
// reads per target, and stops at the first error fn returns.
func TestEachUse(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	lib, a, b := "/w/lib.go", "/w/a.go", "/w/b.go"
	mustPut(t, ix, lib, fakeFacts("lib", []string{"F", "G"}, nil))
	mustPut(t, ix, a, fakeFacts("a", []string{"A"}, []string{"F", "G"}))
	mustPut(t, ix, b, fakeFacts("b", []string{"B"}, []string{"F"}))
	f, g := UseTarget{lib, 0}, UseTarget{lib, 1}
	call := func(ref int32) Use {
		return Use{Ref: ref, Span: span(10*int(ref), 10*int(ref)+1), Role: analysis.RoleCall, Confidence: 1}
	}
	putUses(t, ix, a, UsesRecord{Hash: HashContent([]byte("a"))}, map[UseTarget][]Use{f: {call(0)}, g: {call(1)}})
	putUses(t, ix, b, UsesRecord{Hash: HashContent([]byte("b"))}, map[UseTarget][]Use{f: {call(0)}})

	type row struct {
		t UseTarget
		h UseHit
	}
	var got []row
	if err := ix.EachUse(func(t UseTarget, h UseHit) error { got = append(got, row{t, h}); return nil }); err != nil {
		t.Fatal(err)
	}
	var want []row
	for _, target := range []UseTarget{f, g} {
		for _, h := range usesOf(t, ix, target) {
			want = append(want, row{target, h})
		}
	}
	if len(want) != 3 || !slices.Equal(got, want) {
		t.Fatalf("every use:\n got  %+v\n want %+v", got, want)
	}

	stop := errors.New("stop")
	n := 0
	if err := ix.EachUse(func(UseTarget, UseHit) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("stopping: err %v after %d uses, want %v after 1", err, n, stop)
	}
}
