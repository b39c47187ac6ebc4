package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage"
	"golang.org/x/sys/unix"
)

// A disk that fills while kast serves moves the root's index to memory,
// where the change that found no room is indexed all the same; once space is
// freed the index returns to the disk by itself, with that change saved.
func TestIndexLeavesAFullDiskAndReturns(t *testing.T) {
	cache := t.TempDir()
	if err := unix.Mount("tmpfs", cache, "tmpfs", 0, fmt.Sprintf("size=%d", 100<<20)); err != nil {
		t.Skipf("a full disk needs a small tmpfs, which this machine does not let the test mount: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(cache, unix.MNT_DETACH) })
	t.Setenv("XDG_CACHE_HOME", cache)
	root := writeTree(t, map[string]string{
		"a.go": "package p\n\nfunc A() int { return 1 }\n",
	})
	h := New(Options{SpaceRetry: 50 * time.Millisecond})
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
	if ws.Index.InMemory() {
		t.Fatalf("a disk with room: %s", ws.Notice())
	}

	var st unix.Statfs_t
	if err := unix.Statfs(cache, &st); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(cache, "filler")
	fill := int64(st.Bavail*uint64(st.Bsize)) - 30<<20 // leaves 30 MB, under what badger needs
	if err := os.WriteFile(filler, make([]byte, fill), 0o600); err != nil {
		t.Fatal(err)
	}
	src := []byte("package p\n\nfunc Added() int { return A() }\n")
	path := filepath.Join(root, "b.go")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Between the root's refreshes and reference passes, as kast reindexes a
	// change: a pass that found the disk full first has moved the index and
	// rebuilt it in memory by then (a bare ws.Reindex could run during that
	// rebuild and find the memory index still missing a.go).
	if err := h.Update(root, func(ws *workspace.Workspace) error {
		return ws.Reindex(context.Background(), path, src, time.Now())
	}); err != nil {
		t.Fatalf("a change on a full disk: %v", err)
	}
	if !ws.Index.InMemory() || !ws.Index.SpaceFallback() {
		t.Fatalf("the index stayed on a full disk: %s", ws.Notice())
	}
	for _, name := range []string{"A", "Added"} {
		if defs, err := ws.Index.DefsNamed(name); err != nil || len(defs) != 1 {
			t.Fatalf("in memory, %s: %+v %v", name, defs, err)
		}
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for { // back on disk, and refreshed there
		// Looked at between the root's refreshes: the return's refresh runs
		// under the same lock, so it has not begun or has ended (a refresh
		// seen half-way could be cut short by the Close below).
		var defs []storage.DefHit
		var inMemory bool
		err := h.Update(root, func(ws *workspace.Workspace) (err error) {
			inMemory = ws.Index.InMemory()
			defs, err = ws.Index.DefsNamed("Added")
			return err
		})
		if !inMemory && err == nil && len(defs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("space returned: in memory %v, %+v %v, %s", inMemory, defs, err, ws.Notice())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.Close()
	again, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if defs, err := again.Index.DefsNamed("Added"); err != nil || len(defs) != 1 || again.Index.InMemory() {
		t.Fatalf("the disk after a restart: %+v %v (in memory %v)", defs, err, again.Index.InMemory())
	}
}
