package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/storage/indexer"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// One root is refreshed once for the process however many holders ask, its
// references are then stored, and watchers see both passes.
func TestBackgroundPassesOncePerRoot(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a.go": "package p\n\nfunc A() int { return B() }\n",
		"b.go": "package p\n\nfunc B() int { return 1 }\n",
	})
	h := New(Options{InMemory: true})
	t.Cleanup(h.Close)
	if _, err := h.Acquire(root); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var indexedFiles, indexedCalls, resolvedCalls int
	resolved := make(chan struct{}, 4)
	h.Watch(root, &Watcher{
		Indexed: func(totals indexer.Totals, err error) {
			mu.Lock()
			defer mu.Unlock()
			indexedCalls++
			indexedFiles = totals.Files
			if err != nil {
				t.Errorf("indexing: %v", err)
			}
		},
		Resolved: func(n int, err error) {
			mu.Lock()
			resolvedCalls++
			mu.Unlock()
			if err != nil {
				t.Errorf("resolving: %v", err)
			}
			resolved <- struct{}{}
		},
	})
	first, err := h.Index(root)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := h.Index(root)
	if first != second {
		t.Error("a second Index started another refresh")
	}
	<-first
	select {
	case <-resolved:
	case <-time.After(30 * time.Second):
		t.Fatal("no reference pass after the first refresh")
	}
	if ws := h.Open(root); ws == nil || !ws.UsesHold() {
		t.Error("references are not stored after the pass")
	}
	progress, ready, err := h.IndexState(root)
	if !ready || err != nil || progress.Total != 2 {
		t.Errorf("IndexState = %+v, %v, %v; want ready over 2 files", progress, ready, err)
	}
	mu.Lock()
	if indexedCalls != 1 || indexedFiles != 2 {
		t.Errorf("Indexed called %d times with %d files; want once with 2", indexedCalls, indexedFiles)
	}
	mu.Unlock()

	// A change schedules one more pass; a burst of them is served by one.
	for range 3 {
		h.ScheduleUses(root)
	}
	select {
	case <-resolved:
	case <-time.After(30 * time.Second):
		t.Fatal("no reference pass after ScheduleUses")
	}
	select {
	case <-resolved:
		t.Error("a burst of ScheduleUses ran more than one pass")
	case <-time.After(2 * usesDelay):
	}
}

// Releasing the last holder stops the root's background work and closes it.
func TestReleaseStopsBackgroundPasses(t *testing.T) {
	root := writeTree(t, map[string]string{"a.go": "package p\n"})
	h := New(Options{InMemory: true})
	t.Cleanup(h.Close)
	if _, err := h.Acquire(root); err != nil {
		t.Fatal(err)
	}
	indexed, err := h.Index(root)
	if err != nil {
		t.Fatal(err)
	}
	h.Release(root)
	select {
	case <-indexed:
	case <-time.After(30 * time.Second):
		t.Fatal("the first refresh did not end with its root")
	}
	if h.Open(root) != nil || len(h.Roots()) != 0 {
		t.Error("the released root is still open")
	}
	h.ScheduleUses(root) // a closed root is left alone
}

// A pass asked for explicitly (kast.reindex, with every core) stops the
// background pass running meanwhile instead of waiting behind it.
func TestExplicitPassSupersedesBackgroundPass(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[filepath.Join("p", fmt.Sprintf("f%d.go", i))] = fmt.Sprintf("package p\n\nfunc F%d() int { return F%d() }\n", i, (i+1)%40)
	}
	root := writeTree(t, files)
	h := New(Options{InMemory: true})
	t.Cleanup(h.Close)
	if _, err := h.Acquire(root); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	ended := make(chan error, 4)
	h.Watch(root, &Watcher{
		Resolving: func(done, total int) { once.Do(func() { h.supersede(root) }) },
		Resolved:  func(_ int, err error) { ended <- err },
	})
	indexed, err := h.Index(root)
	if err != nil {
		t.Fatal(err)
	}
	<-indexed
	select {
	case err := <-ended:
		if !errors.Is(err, ErrSuperseded) {
			t.Fatalf("the background pass ended with %v, want ErrSuperseded", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the background pass did not end")
	}
	// It resumes the stopped pass: the files that pass stored are not
	// resolved again.
	n, err := h.ResolveUses(context.Background(), root, 2, nil)
	if err != nil || n < 1 || n > 40 {
		t.Fatalf("the explicit pass: %d files, %v; want the rest of 40", n, err)
	}
	if ws := h.Open(root); !ws.UsesHold() {
		t.Error("references are not stored after the explicit pass")
	}
}
