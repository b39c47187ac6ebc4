package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kast-dev/kast/storage/indexer"
)

// A document opened during the first index has its folder indexed next:
// a refresh stopped after a few files holds it, though its folder sorts
// after a thousand other files of the same size.
func TestPrioritizeIndexesTheFolderFirst(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1000 {
		write(fmt.Sprintf("a/f%04d.go", i), "package a\n")
	}
	write("z/1.go", "package z\n")
	write("z/2.go", "package z\n")
	w, err := Open(root, Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	// One worker finishes files in the order they are handed out; with two,
	// a loaded machine may finish a later file before z/2.go, and the stop
	// would drop z/2.go still in flight (CI saw this).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	w.Prioritize([]string{filepath.Join(root, "z", "1.go")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, err = w.Refresh(ctx, func(p indexer.Progress) {
		if p.Done >= 2 {
			cancel()
		}
	})
	if err == nil {
		t.Fatal("the refresh was not stopped")
	}
	files, err := w.Index.Files()
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, f := range files {
		held[f.Path] = true
	}
	if len(held) >= 1000 {
		t.Fatalf("the stopped refresh indexed %d files: it did not stop early enough to tell", len(held))
	}
	for _, name := range []string{"z/1.go", "z/2.go"} {
		if !held[filepath.Join(root, name)] {
			t.Errorf("%s not indexed by a refresh stopped after %d files; the opened document's folder goes first", name, len(held))
		}
	}
}
