package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// A request's snapshot counts as a query for the background pass, which
// then waits at its next pause (waitForQueries), also when the request is
// answered from caches without reading through the view.
func TestSnapshotCountsAsAQuery(t *testing.T) {
	w := indexedOneFile(t)
	w.view.queried.Store(0)
	sess := NewSession()
	sess.AddRoot(w)
	sess.Snapshot(nil)
	if w.view.queried.Load() == 0 {
		t.Error("taking a snapshot did not count as a query: the pass would not give way to it")
	}
}

// indexedOneFile opens and indexes a workspace of one Go file.
func indexedOneFile(t *testing.T) *Workspace {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return openRefreshed(t, root, Options{IndexDir: filepath.Join(t.TempDir(), "index"), Version: "test"})
}
