package storage

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVersionMismatchRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir, BinaryVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	ix.Close()

	ix, err = Open("/w", Options{Dir: dir, BinaryVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := ix.Files(); len(files) != 1 || ix.Notice() != "" {
		t.Errorf("same version reopened: %d files, notice %q", len(files), ix.Notice())
	}
	ix.Close()

	ix, err = Open("/w", Options{Dir: dir, BinaryVersion: "2"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if files, _ := ix.Files(); len(files) != 0 {
		t.Errorf("new version kept %d files of the old index", len(files))
	}
	if !strings.Contains(ix.Notice(), "rebuilt") || ix.InMemory() {
		t.Errorf("notice %q, in memory %v", ix.Notice(), ix.InMemory())
	}
	if _, err := os.Stat(dir + ".old"); !os.IsNotExist(err) {
		t.Errorf("an outdated index should not be kept aside: %v", err)
	}
}

func TestOpenErrorMovesAsideAndRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	ix.Close()
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("not a manifest"), 0o600); err != nil {
		t.Fatal(err)
	}

	ix, err = Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !strings.Contains(ix.Notice(), "could not be opened") {
		t.Errorf("notice %q", ix.Notice())
	}
	if files, _ := ix.Files(); len(files) != 0 {
		t.Errorf("rebuilt index has %d files", len(files))
	}
	if _, err := os.Stat(filepath.Join(dir+".old", "MANIFEST")); err != nil {
		t.Errorf("broken index not kept aside for diagnosis: %v", err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
}

func TestLockedIndexFallsBackToMemory(t *testing.T) {
	first, dir := openTemp(t, Options{})
	mustPut(t, first, "/w/a.go", fakeFacts("a", []string{"A"}, nil))

	second, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if !second.InMemory() || !strings.Contains(second.Notice(), "in use by another process") {
		t.Fatalf("second open: in memory %v, notice %q", second.InMemory(), second.Notice())
	}
	if !strings.Contains(second.Notice(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("notice does not name the holder: %q", second.Notice())
	}
	mustPut(t, second, "/w/b.go", fakeFacts("b", []string{"B"}, nil))
	if hits, _ := second.DefsNamed("B"); len(hits) != 1 {
		t.Errorf("in-memory index does not work: %+v", hits)
	}
	if hits, _ := first.DefsNamed("B"); len(hits) != 0 {
		t.Errorf("in-memory writes leaked into the locked index")
	}
	if _, err := os.Stat(dir + ".old"); !os.IsNotExist(err) {
		t.Errorf("a locked index must not be moved aside: %v", err)
	}
}

func TestDefaultDir(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
	dir, err := DefaultDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != "/xdg/cache/kast" || len(filepath.Base(dir)) != 16 {
		t.Errorf("DefaultDir = %s, want /xdg/cache/kast/<16 hex digits>", dir)
	}
	if other, _ := DefaultDir(filepath.Join(root, "sub")); other == dir {
		t.Error("different roots share an index directory")
	}
	if again, _ := DefaultDir(root + "/."); again != dir {
		t.Errorf("equivalent spellings of a root differ: %s vs %s", again, dir)
	}

	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if dir, _ := DefaultDir(root); !strings.HasPrefix(dir, "/home/someone/.cache/kast/") {
		t.Errorf("without XDG_CACHE_HOME: %s", dir)
	}
}

func TestBadgerLogsGoToSlog(t *testing.T) {
	var buf strings.Builder
	l := slogLogger{slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	l.Infof("chatter %d\n", 1)
	l.Warningf("disk %s\n", "slow")
	if got := buf.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, `msg="disk slow"`) || strings.Contains(got, "chatter") {
		t.Errorf("slog output %q", got)
	}
}
