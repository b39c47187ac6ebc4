// Package wstest opens fixture workspaces for engine tests.
package wstest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/workspace"
)

// Open writes the txtar archive at path into a fresh root, indexes it and
// returns the workspace and its root (symlinks resolved).
func Open(t testing.TB, path string) (*workspace.Workspace, string) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return OpenArchive(t, ar)
}

// OpenArchive is Open for an archive at hand.
func OpenArchive(t testing.TB, ar *txtar.Archive) (*workspace.Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(root, workspace.Options{IndexDir: filepath.Join(t.TempDir(), "index"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ws, root
}

// Snapshot is a snapshot of ws alone, as a request sees it.
func Snapshot(ws *workspace.Workspace) *workspace.Snapshot {
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	return sess.Snapshot(nil)
}
