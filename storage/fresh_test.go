package storage

import (
	"strconv"
	"testing"
	"time"
)

// TestKnownSetOfFreshIndex checks that the reads a fresh index skips are only
// the ones that must miss: rows written since it was opened are still found,
// by the writer (a rewritten path) and by FactsByHash (a written blob), and a
// reopened index, no longer empty, does not rely on the set at all.
func TestKnownSetOfFreshIndex(t *testing.T) {
	ix, dir := openTemp(t, Options{})
	if !ix.known.complete {
		t.Fatal("a new index does not track its paths and blobs")
	}
	first := fakeFacts("first", []string{"Old"}, nil)
	mustPut(t, ix, "/w/a.go", first)
	if _, ok, err := ix.FactsByHash(first.Hash, "go"); !ok || err != nil {
		t.Fatalf("FactsByHash of a blob written in this session: %v, %v", ok, err)
	}
	if _, ok, _ := ix.FactsByHash(HashContent([]byte("never written")), "go"); ok {
		t.Fatal("FactsByHash found content never written")
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("second", []string{"New"}, nil))
	if hits, _ := ix.DefsNamed("Old"); len(hits) != 0 {
		t.Errorf("rewriting a path written in this session left its old postings: %+v", hits)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ix, _ = openTemp(t, Options{Dir: dir})
	if ix.known.complete {
		t.Fatal("a reopened index that holds files trusts an empty set")
	}
	if _, ok, err := ix.FactsByHash(first.Hash, "go"); ok || err != nil {
		t.Errorf("FactsByHash of a blob whose only user moved on: %v, %v", ok, err)
	}
	if st, ok, err := ix.File("/w/a.go"); !ok || err != nil || st.Defs != 1 {
		t.Errorf("File after reopening = %+v, %v, %v", st, ok, err)
	}
	b := ix.NewBatch()
	if err := b.PutFile("/w/a.go", time.Now(), fakeFacts("third", []string{"Third"}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if hits, _ := ix.DefsNamed("New"); len(hits) != 0 {
		t.Errorf("rewriting after reopening left old postings: %+v", hits)
	}
}

// TestKnownSetGivesUpWhenLarge checks that past its bound the set stops
// answering instead of growing.
func TestKnownSetGivesUpWhenLarge(t *testing.T) {
	var k knownSet
	k.reset(true)
	for i := range maxKnown + 1 {
		k.paths[strconv.Itoa(i)] = struct{}{}
	}
	k.addPath("one more")
	if k.complete || k.absentPath("anything") {
		t.Error("an oversized set still claims paths are absent")
	}
}
