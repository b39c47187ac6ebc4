package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRealFullDisk fills a small tmpfs: a new session file is not left
// behind, an append fails with a DiskFullError and leaves whole lines, and
// the session goes on once there is room again.
func TestRealFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("a full disk needs a small tmpfs, which this machine does not let the test mount (it needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	store := &Store{Dir: filepath.Join(dir, "sessions")}
	log, err := store.Create(Header{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := log.AppendMessage(Message{Role: RoleUser, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	f, _ := os.Create(filler)
	for block := make([]byte, 512); ; {
		if _, err := f.Write(block); err != nil {
			break
		}
	}
	f.Close()

	var full *DiskFullError
	if _, err := store.Create(Header{Cwd: "/w"}); !errors.As(err, &full) {
		t.Fatalf("create on a full disk: %v", err)
	}
	if files, _ := os.ReadDir(store.DirFor("/w")); len(files) != 1 {
		t.Fatalf("a failed create left a file: %v", files)
	}
	before, _ := os.ReadFile(log.Path())
	_, err = log.AppendMessage(Message{Role: RoleAssistant, Text: strings.Repeat("a long answer ", 2000)})
	if !errors.As(err, &full) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("append on a full disk: %v", err)
	}
	if after, _ := os.ReadFile(log.Path()); string(after) != string(before) {
		t.Fatalf("the failed append left:\n%s", after)
	}
	os.Remove(filler)
	if _, err := log.AppendMessage(Message{Role: RoleAssistant, Text: "two"}); err != nil {
		t.Fatal(err)
	}
	if ld, err := Load(log.Path()); err != nil || len(ld.Messages) != 2 || ld.Messages[1].Text != "two" {
		t.Fatalf("after freeing space: %v %+v", err, ld)
	}
}
