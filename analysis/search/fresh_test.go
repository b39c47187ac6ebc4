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
