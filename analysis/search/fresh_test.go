package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/storage"
)

// A watched engine answers from its last refresh and listing while the tree
// is unchanged, and sees a change on disk once its watch reports it.
func TestWatchedEngineSeesChanges(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	file := filepath.Join(dir, "pkg", "a.go")
	if err := os.WriteFile(file, []byte("package pkg\n\nconst before = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e, err := Open(dir, ix, Options{Embedder: NewHashed(), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.fresh == nil {
		t.Skip("this system cannot watch folders")
	}
	ctx := context.Background()
	search := func(pattern string) int {
		t.Helper()
		if _, err := e.Refresh(ctx, false, nil); err != nil {
			t.Fatal(err)
		}
		res, err := e.Regex(ctx, RegexQuery{Pattern: pattern})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Lines)
	}
	search("before") // adds the watches
	if search("before") != 1 || !e.fresh.fresh() {
		t.Fatal("a second search of an unchanged tree is not answered from the last refresh")
	}
	if _, ok := e.fresh.listing(scopeKey(Scope{})); !ok {
		t.Fatal("the listing of an unchanged tree is not kept")
	}
	// A new file in a watched folder, and an edit.
	os.WriteFile(filepath.Join(dir, "pkg", "b.go"), []byte("package pkg\n\nconst after = 2\n"), 0o644)
	os.WriteFile(file, []byte("package pkg\n\nconst after = 1\n"), 0o644)
	deadline := time.Now().Add(20 * time.Second)
	for search("after") != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the changes were never seen")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := search("before"); n != 0 {
		t.Fatalf("the old text still matches (%d lines)", n)
	}
}

// A search that runs before a refresh has taken in a change (the watcher
// reported it; the refresh is still to come or running, as when ck answers
// without waiting for its index) reads the changed files directly: the
// index's trigrams, which rule them out, are of their old content.
func TestStaleIndexSearchReadsChangedFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	other := filepath.Join(dir, "b.go")
	os.WriteFile(file, []byte("package a\n\nconst before = 1\n"), 0o644)
	os.WriteFile(other, []byte("package a\n\nconst unrelated = 2\n"), 0o644)
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e, err := Open(dir, ix, Options{Embedder: NewHashed(), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.fresh == nil {
		t.Skip("this system cannot watch folders")
	}
	ctx := context.Background()
	for range 2 { // the first refresh adds the watches, the second is fresh
		if _, err := e.Refresh(ctx, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	regex := func(pattern string) *RegexResult {
		t.Helper()
		res, err := e.Regex(ctx, RegexQuery{Pattern: pattern})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := regex("after"); len(res.Lines) != 0 || res.Candidates != 0 {
		t.Fatalf("fresh index: %d lines, %d candidates; want none: the trigrams rule every file out", len(res.Lines), res.Candidates)
	}
	os.WriteFile(file, []byte("package a\n\nconst after = 1\n"), 0o644)
	// The kernel queues the change at the write; the watcher reads it a
	// moment later, and from then on the index counts as stale.
	deadline := time.Now().Add(20 * time.Second)
	for e.fresh.fresh() {
		if time.Now().After(deadline) {
			t.Fatal("the watcher never reported the change")
		}
		time.Sleep(5 * time.Millisecond)
	}
	res := regex("after") // no refresh first
	if len(res.Lines) != 1 || res.Lines[0].Path != file || res.Lines[0].Text != "const after = 1" {
		t.Fatalf("the new line is not found before the refresh: %+v", res.Lines)
	}
	if res.Candidates != 1 {
		t.Errorf("%d files read; want only the changed one (b.go is unchanged and ruled out)", res.Candidates)
	}
	if len(res.Searched) != 2 {
		t.Errorf("searched %q; want both files", res.Searched)
	}
	if res := regex("before"); len(res.Lines) != 0 {
		t.Fatalf("the deleted line is still found: %+v", res.Lines)
	}
}
