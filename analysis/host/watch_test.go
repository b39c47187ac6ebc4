package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Files edited, added, deleted and renamed on disk by other programs reach
// the index within a moment, round after round, and ignored folders stay out.
func TestChangesOnDiskReachTheIndex(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.go":       "package p\n\nfunc A() int { return 1 }\n",
		".gitignore": "gen/\n",
	})
	h := New(Options{InMemory: true})
	t.Cleanup(h.Close)
	ws, err := h.Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := h.Index(root)
	if err != nil {
		t.Fatal(err)
	}
	<-indexed
	defined := func(name string) int {
		defs, err := ws.Index.DefsNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		return len(defs)
	}
	eventually := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("after 2 s: %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := h.Settle(ctx, root); err != nil {
			t.Fatalf("settling: %v", err)
		}
		if _, ready, _ := h.IndexState(root); !ready {
			t.Fatalf("settled but not ready: %s", what)
		}
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		edited, added, renamed := fmt.Sprintf("Edited%d", i), fmt.Sprintf("Added%d", i), fmt.Sprintf("Moved%d", i)
		write("a.go", fmt.Sprintf("package p\n\nfunc A() int { return 1 }\n\nfunc %s() {}\n", edited))
		eventually("an edit: "+edited, func() bool { return defined(edited) == 1 })
		write(fmt.Sprintf("sub%d/b.go", i), fmt.Sprintf("package sub\n\nfunc %s() {}\n", added)) // in a new folder
		eventually("a file in a new folder: "+added, func() bool { return defined(added) == 1 })
		if err := os.Rename(filepath.Join(root, fmt.Sprintf("sub%d", i)), filepath.Join(root, fmt.Sprintf("moved%d", i))); err != nil {
			t.Fatal(err)
		}
		write(fmt.Sprintf("moved%d/c.go", i), fmt.Sprintf("package sub\n\nfunc %s() {}\n", renamed)) // inside the renamed folder
		eventually("a renamed folder", func() bool { return defined(added) == 1 && defined(renamed) == 1 })
		if err := os.RemoveAll(filepath.Join(root, fmt.Sprintf("moved%d", i))); err != nil {
			t.Fatal(err)
		}
		eventually("a deleted folder", func() bool { return defined(added) == 0 && defined(renamed) == 0 })
	}
	write("gen/z.go", "package gen\n\nfunc Ignored() {}\n")
	write("a.go", "package p\n\nfunc A() int { return 2 }\n\nfunc Last() {}\n")
	eventually("the last edit", func() bool { return defined("Last") == 1 })
	if defined("Ignored") != 0 {
		t.Fatal("a file in an ignored folder was indexed")
	}
	if files, err := ws.Index.Files(); err != nil || len(files) != 1 {
		t.Fatalf("indexed files: %v", files)
	}
}
