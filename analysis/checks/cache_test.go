package checks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A second check of unchanged files answers from the cache with the same
// findings; a change to any input of the package (the file asked about,
// another file of the package, go.mod, an unsaved overlay) runs go/types
// again.
func TestFindingsCachedWhileInputsUnchanged(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cache.reset()
	root := writeFiles(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a.go":   "package m\n\nfunc g() int { return f(1, 2) }\n",
		"b.go":   "package m\n\nfunc f(a int) int { return a }\n",
	})
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	ctx := context.Background()
	check := func(overlay map[string][]byte) Result {
		t.Helper()
		res := Run(ctx, Request{Root: root, Files: []string{a}, Overlay: overlay, Budget: time.Minute})
		if !slices.Equal(res.Ran, []string{"go/types"}) {
			t.Fatalf("ran %v, not run %v", res.Ran, res.NotRun)
		}
		return res
	}
	first := check(nil)
	if len(first.Cached) != 0 || messages(first.Diagnostics) == "" {
		t.Fatalf("first run: cached %v, found %q", first.Cached, messages(first.Diagnostics))
	}
	second := check(nil)
	if !slices.Equal(second.Cached, []string{"go/types"}) || messages(second.Diagnostics) != messages(first.Diagnostics) {
		t.Fatalf("second run: cached %v, found %q, first found %q", second.Cached, messages(second.Diagnostics), messages(first.Diagnostics))
	}
	// Another file of the package changes: a.go now compiles.
	if err := os.WriteFile(b, []byte("package m\n\nfunc f(a, b int) int { return a }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third := check(nil)
	if len(third.Cached) != 0 || len(third.Diagnostics) != 0 {
		t.Fatalf("after b.go changed: cached %v, found %q", third.Cached, messages(third.Diagnostics))
	}
	// An unsaved change is an input too.
	broken := []byte("package m\n\nfunc g() int { return missing() }\n")
	fourth := check(map[string][]byte{a: broken})
	if len(fourth.Cached) != 0 || len(fourth.Diagnostics) != 1 {
		t.Fatalf("with an overlay: cached %v, found %q", fourth.Cached, messages(fourth.Diagnostics))
	}
	if again := check(map[string][]byte{a: broken}); !slices.Equal(again.Cached, []string{"go/types"}) {
		t.Fatalf("same overlay again: cached %v", again.Cached)
	}
}

// Listing a project's inputs stops when the check is cancelled: the first
// listing of a large project hashes every source it holds.
func TestInputsKeyStopsWhenCancelled(t *testing.T) {
	cache.reset()
	root := writeFiles(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a.go":   "package m\n",
		"b.go":   "package m\n",
	})
	files := []string{filepath.Join(root, "a.go")}
	if _, ok := inputsKey(context.Background(), sourceGo, root, files, nil); !ok {
		t.Fatal("no key for a small project")
	}
	cache.reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if key, ok := inputsKey(ctx, sourceGo, root, files, nil); ok {
		t.Fatalf("a cancelled listing gave the key %s", key)
	}
	cache.mu.Lock()
	hashed := len(cache.hashes)
	cache.mu.Unlock()
	if hashed != 0 {
		t.Fatalf("a cancelled listing hashed %d files", hashed)
	}
}
