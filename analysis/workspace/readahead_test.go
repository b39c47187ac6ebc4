package workspace

import (
	"context"
	"path/filepath"
	"testing"
)

// The value log keeps readahead through an index and a full pass that
// answer no query (`kast index --references`), and reads without it once
// the workspace has answered one (a language server's).
func TestValueLogReadaheadUntilAQuery(t *testing.T) {
	w := indexedTwoPackages(t)
	if _, err := w.ResolveUses(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if w.queried() {
		t.Fatal("an index and a pass counted as queries: the value log would lose readahead")
	}
	defs, err := w.Definition(filepath.Join(w.Root, "b/b.go"), 5, 14)
	if err != nil || len(defs) == 0 {
		t.Fatalf("Definition of a.A: %v, %v", defs, err)
	}
	if !w.queried() {
		t.Fatal("after a query the value log still reads with readahead")
	}
}
