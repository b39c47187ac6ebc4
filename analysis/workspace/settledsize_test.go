package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// A group of settled selectors is settled by resolving its member in the
// smallest file, which is the only one read whole: here the folder's
// first file is a large one.
func TestSettledGroupReadsItsSmallestFile(t *testing.T) {
	files := map[string]string{
		"go.mod":         "module example.com/m\n",
		"errs/errs.go":   "package errs\n\nfunc Errorf(format string) string { return format }\n",
		"use/a_big.go":   "package use\n\nimport \"example.com/m/errs\"\n\n// " + strings.Repeat("padding ", 4096) + "\nfunc A() string { return errs.Errorf(\"a\") + errs.Errorf(\"b\") }\n",
		"use/b_small.go": "package use\n\nimport \"example.com/m/errs\"\n\nfunc B() string { return errs.Errorf(\"c\") }\n",
	}
	t.Run("alone", func(t *testing.T) { settledReadsSmallest(t, files) })
	// A field named like the import, in another file of the folder, is
	// not looked up by the group's selectors (their scopes are plain):
	// the group still settles.
	files["use/c_field.go"] = "package use\n\ntype C struct{ errs int }\n"
	t.Run("field named like the import", func(t *testing.T) { settledReadsSmallest(t, files) })
	// Inside methods the resolver also looks through the receiver's
	// members; a field named like the import that no type of the folder
	// may carry leaves the group settled.
	files["use/a_big.go"] = "package use\n\nimport \"example.com/m/errs\"\n\n// " + strings.Repeat("padding ", 4096) + "\nfunc (c C) A() string { return errs.Errorf(\"a\") + errs.Errorf(\"b\") }\n"
	files["use/b_small.go"] = "package use\n\nimport \"example.com/m/errs\"\n\nfunc (c C) B() string { return errs.Errorf(\"c\") }\n"
	files["holder/h.go"] = "package holder\n\ntype H struct{ errs int }\n"
	files["use/c_field.go"] = "package use\n\ntype C struct{ n int }\n"
	t.Run("in methods, a field of another folder's type", func(t *testing.T) { settledReadsSmallest(t, files) })
}

// settledReadsSmallest checks, on files, that Errorf's three references are
// found by reading use/b_small.go alone whole.
func settledReadsSmallest(t *testing.T, files map[string]string) {
	_, snap, def := errorfSnapshot(t, files)
	ids := snap.Resolver().ReferenceCandidates(def, true)
	var mu sync.Mutex
	read := map[string]bool{}
	whole := func(p string, refs []int32) *analysis.FileFacts {
		mu.Lock()
		read[filepath.Base(p)] = true
		mu.Unlock()
		return snap.wholeFile(p, refs)
	}
	got := snap.declsResolver().ReferencesAmongWhole(def, ids, true, whole, nil)
	if len(got) != 3 {
		t.Errorf("got %d references of Errorf, want 3: %v", len(got), got)
	}
	if read["a_big.go"] || !read["b_small.go"] {
		t.Errorf("files read whole: %v; want b_small.go alone", read)
	}
}

// errorfSnapshot indexes files and returns their workspace, a snapshot of
// it and the definition of errs.Errorf, which errs/errs.go must declare first.
func errorfSnapshot(t *testing.T, files map[string]string) (*Workspace, *Snapshot, resolve.DefID) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(root, Options{IndexDir: filepath.Join(t.TempDir(), "index"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	sess := NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	path := filepath.Join(root, "errs", "errs.go")
	def := resolve.DefID{Path: path, Index: 0}
	if snap.File(path).Defs[0].Name != "Errorf" {
		t.Fatalf("want Errorf first, got %v", snap.File(path).Defs)
	}
	return ws, snap, def
}
