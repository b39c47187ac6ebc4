package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The value log keeps readahead through an index and a full pass that
// answer no query (`kast index --references`), and reads without it once
// the workspace has answered one (a language server's).
func TestValueLogReadaheadUntilAQuery(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{"a/a.go": "package a\n\nfunc A() {}\n", "b/b.go": "package b\n\nimport \"a\"\n\nfunc B() { a.A() }\n"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Open(root, Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, _, err := w.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ResolveUses(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if w.queried() {
		t.Fatal("an index and a pass counted as queries: the value log would lose readahead")
	}
	defs, err := w.Definition(filepath.Join(root, "b/b.go"), 5, 14)
	if err != nil || len(defs) == 0 {
		t.Fatalf("Definition of a.A: %v, %v", defs, err)
	}
	if !w.queried() {
		t.Fatal("after a query the value log still reads with readahead")
	}
}
