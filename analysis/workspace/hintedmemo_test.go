package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/analysis/workspace"
)

// The hinted references a view keeps by name are listed again once the
// index changes: a refresh that adds a reference to the name lists it.
func TestHintedRefsFollowRefresh(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	write := func(p, src string) {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "go.mod"), "module example.com/p\n")
	write(a, "package p\n\nfunc Size() int { return 1 }\n")
	write(b, "package p\n\nfunc B() int { return Size() }\n")
	ws := openIndexed(t, root)
	count := func() int {
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		return len(sess.Snapshot(nil).HintedRefsNamed("Size"))
	}
	if n := count(); n != 1 || count() != 1 {
		t.Fatalf("Size's hinted references = %d, want 1 (twice)", n)
	}
	write(b, "package p\n\nfunc B() int { return Size() + Size() }\n")
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("after the refresh, Size's hinted references = %d, want 2", n)
	}
}
