package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// smallDisk mounts a tmpfs of size bytes for the test, or skips when this
// machine does not let the test mount one (it needs root).
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("a full disk needs a small tmpfs, which this machine does not let the test mount: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// generatedGo writes n Go files with many declarations and calls.
func generatedGo(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i%50)
		for j := range 40 {
			fmt.Fprintf(&b, "// F%d_%d computes a value.\nfunc F%d_%d(a, b int) int { return G%d(a) + H%d(b) }\n\n", i, j, i, j, j, j)
		}
		p := filepath.Join(root, fmt.Sprintf("p%d", i%50), fmt.Sprintf("f%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A cache disk without room never crashes kast (badger writes through
// memory-mapped files, which fault instead of failing on a full disk): with
// too little room to start, the index is kept in memory and kast says so;
// when the disk fills while indexing, the run ends with an error saying so.
func TestIndexOnFullDisk(t *testing.T) {
	root := generatedGo(t, 3000)
	run := func(cache string) (stdout, stderr string, code int) {
		cmd := kastCmd(t, "index", root)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
		var errBuf strings.Builder
		cmd.Stderr = &errBuf
		out, _ := cmd.Output()
		return string(out), errBuf.String(), cmd.ProcessState.ExitCode()
	}
	crashed := func(stderr string) bool {
		return strings.Contains(stderr, "SIGBUS") || strings.Contains(stderr, "fatal error") || strings.Contains(stderr, "panic")
	}

	tiny := smallDisk(t, 1<<20)
	out, stderr, code := run(tiny)
	if crashed(stderr) || code != 0 || !strings.Contains(stderr, "in-memory index") || !strings.Contains(out, "files") {
		t.Fatalf("on a 1 MB disk: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}

	small := smallDisk(t, 80<<20)
	out, stderr, code = run(small)
	if crashed(stderr) || code == 0 || !strings.Contains(stderr, "free some space") {
		t.Fatalf("on a disk that fills while indexing: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	// The next run finds too little room to start and keeps going in memory.
	out, stderr, code = run(small)
	if crashed(stderr) || code != 0 || !strings.Contains(stderr, "in-memory index") {
		t.Fatalf("after the disk filled: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
}
