package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A sparse log copies byte for byte, holes included, and so does a file
// read without hole seeking.
func TestCopyFileKeepsDataAndHoles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	head, mid := bytes.Repeat([]byte("a"), 5000), bytes.Repeat([]byte("b"), 3<<20)
	if _, err := f.Write(head); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(mid, 8<<20); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(32 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.ReadFile(src)
	dst := filepath.Join(dir, "dst")
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
		t.Errorf("copy differs: %d bytes, want %d", len(got), len(want))
	}
	in, _ := os.Open(src)
	defer in.Close()
	out, _ := os.Create(filepath.Join(dir, "all"))
	if err := copyAll(in, out); err != nil {
		t.Fatal(err)
	}
	out.Truncate(32 << 20)
	out.Close()
	if got, _ := os.ReadFile(filepath.Join(dir, "all")); !bytes.Equal(got, want) {
		t.Errorf("copyAll differs: %d bytes, want %d", len(got), len(want))
	}
}

// A copy left by a process that is gone is removed; this process's and a
// living one's stay.
func TestRemoveStaleCopies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "std@go1")
	gone := dir + copySuffix + "999999999-1"
	mine := dir + copySuffix + strconv.Itoa(os.Getpid()) + "-2"
	for _, d := range []string{gone, mine} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleCopies(dir)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Error("the dead process's copy is still there")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("this process's copy was removed")
	}
}
