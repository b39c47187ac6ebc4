package storage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// sharedOpenable reports whether dir can be opened read-only beside the
// index: only while the index holds it read-only (a shared lock), not
// writable (an exclusive one).
func sharedOpenable(dir string) bool {
	db, err := badger.Open(badger.DefaultOptions(dir).WithReadOnly(true).WithLogger(nil))
	if err != nil {
		return false
	}
	db.Close()
	return true
}

func TestSealReopensReadOnlyAndAWriteUnseals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"Alpha"}, nil))
	if sharedOpenable(dir) {
		t.Fatal("a writable index let another open share its folder")
	}
	if err := ix.Seal(); err != nil {
		t.Fatal(err)
	}
	if !ix.Sealed() || !sharedOpenable(dir) {
		t.Fatalf("after Seal: sealed %v, folder shared %v", ix.Sealed(), sharedOpenable(dir))
	}
	if pid, _ := os.ReadFile(filepath.Join(dir, "LOCK")); strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("a sealed index's LOCK names %q, not this process", pid)
	}
	if hits, err := ix.DefsNamed("Alpha"); err != nil || len(hits) != 1 {
		t.Fatalf("sealed index: DefsNamed(Alpha) = %v, %v", hits, err)
	}
	// A write reopens it writable, and what it wrote is read back.
	mustPut(t, ix, "/w/b.go", fakeFacts("b", []string{"Beta"}, nil))
	if ix.Sealed() || sharedOpenable(dir) {
		t.Fatalf("after a write: sealed %v, folder shared %v", ix.Sealed(), sharedOpenable(dir))
	}
	for _, name := range []string{"Alpha", "Beta"} {
		if hits, err := ix.DefsNamed(name); err != nil || len(hits) != 1 {
			t.Errorf("unsealed index: DefsNamed(%s) = %v, %v", name, hits, err)
		}
	}
	if err := ix.Seal(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "LOCK")); !os.IsNotExist(err) {
		t.Errorf("a closed sealed index left its LOCK: %v", err)
	}
}

func TestOpenSealedReadsAndFallsBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir, BinaryVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"Alpha"}, nil))
	ix.Close()

	ix, err = Open("/w", Options{Dir: dir, BinaryVersion: "1", Sealed: true})
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := ix.Files(); !ix.Sealed() || len(files) != 1 {
		t.Errorf("opened sealed: sealed %v, %d files", ix.Sealed(), len(files))
	}
	ix.Close()

	// Another version cannot be read as it is: it is rebuilt writable.
	ix, err = Open("/w", Options{Dir: dir, BinaryVersion: "2", Sealed: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if files, _ := ix.Files(); ix.Sealed() || len(files) != 0 || !strings.Contains(ix.Notice(), "rebuilt") {
		t.Errorf("other version opened sealed: sealed %v, %d files, notice %q", ix.Sealed(), len(files), ix.Notice())
	}
}

// Another process sharing a sealed index claimed its LOCK since: closing
// leaves the LOCK, so kast cache still sees the index in use.
func TestClosingASharedSealedIndexKeepsTheOthersLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"Alpha"}, nil))
	if err := ix.Seal(); err != nil {
		t.Fatal(err)
	}
	other := []byte(strconv.Itoa(os.Getpid()+1) + "\n")
	if err := os.WriteFile(filepath.Join(dir, "LOCK"), other, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "LOCK")); err != nil || string(got) != string(other) {
		t.Errorf("LOCK after close: %q, %v; want the other process's", got, err)
	}
}
