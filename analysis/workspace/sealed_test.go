package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/analysis/libraries"
)

// A library's index is only read once built: it is sealed read-only then,
// without the memtable a writable database allocates, and opened so by the
// next process; what it answers is the same.
func TestLibraryIndexIsSealedOnceComplete(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "lib.go"), []byte("package lib\n\n// Hello greets.\nfunc Hello() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lib := libraries.Library{Lang: "go", Module: "example.com/lib", Version: "v1.0.0", Dir: src}
	hello := func(w *Workspace) int {
		hits, err := w.Index.DefsNamed("Hello")
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	w, err := Open(src, Options{Library: &lib})
	if err != nil {
		t.Fatal(err)
	}
	if w.Index.Sealed() {
		t.Fatal("an unbuilt library's index opened sealed")
	}
	if _, _, err := w.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if !w.LibraryComplete() || !w.Index.Sealed() || hello(w) != 1 {
		t.Fatalf("built: complete %v, sealed %v, Hello defined %d times", w.LibraryComplete(), w.Index.Sealed(), hello(w))
	}
	w.Close()

	w, err = Open(src, Options{Library: &lib})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !w.Index.Sealed() || hello(w) != 1 {
		t.Errorf("reopened: sealed %v, Hello defined %d times", w.Index.Sealed(), hello(w))
	}
}
