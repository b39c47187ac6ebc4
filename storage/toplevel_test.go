package storage

import (
	"reflect"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

func TestTopLevelTableHoldsTheTopLevelDefinitions(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	f := fakeFacts("go source", []string{"Shape", "Circle<Shape"}, []string{"area"})
	f.Defs[0].Signature = "type Shape interface"
	f.Defs = append(f.Defs,
		analysis.Def{Name: "Area", Kind: analysis.KindMethod, Container: analysis.None, Receiver: "*Circle", Signature: "func (c *Circle) Area() float64"},
		analysis.Def{Name: "r", Kind: analysis.KindVariable, Container: 1, TypeName: "float64"})
	mustPut(t, ix, "/w/a.go", f)
	py := fakeFacts("python source", []string{"Shape"}, []string{"area"})
	py.Lang = "python"
	mustPut(t, ix, "/w/a.py", py)

	for _, p := range []string{"/w/a.go", "/w/a.py"} {
		whole, err := ix.Facts(p)
		if err != nil {
			t.Fatal(err)
		}
		got, hash, err := ix.TopLevel(p)
		if want := TopLevelDefs(whole); err != nil || !reflect.DeepEqual(got, want) || hash != whole.Hash {
			t.Errorf("TopLevel(%s) = %+v, %q, %v; want %+v, %q", p, got, hash, err, want, whole.Hash)
		}
	}
	got, _, _ := ix.TopLevel("/w/a.go")
	if len(got) != 3 || got[2].Name != "Area" || got[2].Receiver != "*Circle" || got[2].Detail != "func (c *Circle) Area() float64" {
		t.Errorf("a.go's top level = %+v; want Shape, Circle and the method Area, not the local r", got)
	}
	if _, err := decodeTopLevel(appendTopLevel(nil, got)[:7]); err == nil {
		t.Error("truncated table decoded without error")
	}
	if _, _, err := ix.TopLevel("/w/missing.go"); err == nil {
		t.Error("TopLevel of a file not indexed: no error")
	}
	if err := ix.RemoveFile("/w/a.go"); err != nil {
		t.Fatal(err)
	}
	if err := ix.RemoveFile("/w/a.py"); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, ix)[tagTopLevel]; n != 0 {
		t.Errorf("%d top-level tables left after their files were removed", n)
	}
}

// A package's top-level tables are read in one transaction: during the
// first index each transaction waits behind the indexer's writes, and a
// completion in runtime or syscall read hundreds.
func TestTopLevelsReadsSeveralFilesInOneTransaction(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	paths := []string{"/w/a.go", "/w/b.go", "/w/missing.go"}
	mustPut(t, ix, paths[0], fakeFacts("package a", []string{"A", "B"}, nil))
	mustPut(t, ix, paths[1], fakeFacts("package a, b", []string{"C"}, nil))

	before := ix.reads.Load()
	defs, hashes, err := ix.TopLevels(paths, func(int, string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if n := ix.reads.Load() - before; n != 1 {
		t.Errorf("%d read transactions for %d files; want 1", n, len(paths))
	}
	for i, p := range paths[:2] {
		want, hash, _ := ix.TopLevel(p)
		if !reflect.DeepEqual(defs[i], want) || hashes[i] != hash || hash == "" {
			t.Errorf("%s: %+v, %q; want %+v, %q", p, defs[i], hashes[i], want, hash)
		}
	}
	if defs[2] != nil || hashes[2] != "" {
		t.Errorf("a file not indexed: %+v, %q", defs[2], hashes[2])
	}

	// What the caller holds is not decoded again.
	defs, again, _ := ix.TopLevels(paths[:2], func(i int, hash string) bool { return i == 0 && hash == hashes[0] })
	if defs[0] != nil || again[0] != hashes[0] || len(defs[1]) != 1 {
		t.Errorf("with a.go held: %+v, %q", defs, again)
	}
}
