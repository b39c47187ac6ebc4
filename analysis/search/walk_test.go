package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kast-dev/kast/storage"
)

// Paths that are not regular files are passed over with a reason, and
// none of them blocks the search: a FIFO would block a reader forever.
func TestWalkSkipsWithReasons(t *testing.T) {
	e, dir := grepFixture(t)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	os.Symlink("loop-b", filepath.Join(dir, "loop-a"))
	os.Symlink("loop-a", filepath.Join(dir, "loop-b"))
	wantReasons := map[string]string{"pipe": "FIFO", "loop-a": "symbolic link loop", "loop-b": "symbolic link loop"}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		wantReasons["null"] = "device file"
	}
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o755)
	os.WriteFile(filepath.Join(locked, "f.txt"), []byte("needle\n"), 0o644)
	os.Chmod(locked, 0)
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	wantMatches := 2
	if _, err := os.ReadDir(locked); err != nil { // root reads it anyway
		wantReasons["locked"] = "unreadable directory"
		wantMatches = 1
	}
	res, err := e.Regex(context.Background(), RegexQuery{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res.Skipped {
		got[e.rel(s.Path)] = s.Reason
	}
	for name, reason := range wantReasons {
		if !strings.Contains(got[name], reason) {
			t.Errorf("%s: skipped as %q, want %q", name, got[name], reason)
		}
	}
	if res.Binary != 1 {
		t.Errorf("%d binary files skipped, want 1 (binary.bin)", res.Binary)
	}
	if len(res.Lines) != wantMatches || e.rel(res.Lines[0].Path) != "large.txt" {
		t.Errorf("%d matches, want %d, the large file's first", len(res.Lines), wantMatches)
	}
	// Named directly, the FIFO is refused, not opened.
	res, err = e.Regex(context.Background(), RegexQuery{Pattern: "x", Scope: Scope{Paths: []string{fifo}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "FIFO") {
		t.Errorf("FIFO named: skipped %v", res.Skipped)
	}
}

// ck's filter: hidden files, .ckignore (its default set without one at the
// root) and ck's default directories; a named file is searched regardless.
func TestCkFilter(t *testing.T) {
	e, dir := grepFixture(t)
	for name, text := range map[string]string{
		".hidden.txt": "needle\n", "conf.json": "needle\n", "build/out.txt": "needle\n",
		"keep/a.txt": "needle\n", "keep/.ckignore": "b.txt\n", "keep/b.txt": "needle\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	search := func(sc Scope) []string {
		res, err := e.Regex(context.Background(), RegexQuery{Pattern: "^needle$", Scope: sc})
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range res.Files {
			files = append(files, e.rel(f))
		}
		return files
	}
	if got := strings.Join(search(Scope{Filter: CkFilter()}), " "); got != "keep/a.txt" {
		t.Errorf("ck filter: %s", got)
	}
	if got := strings.Join(search(Scope{}), " "); got != ".hidden.txt build/out.txt conf.json keep/a.txt keep/b.txt" {
		t.Errorf("index filter: %s", got)
	}
	f := CkFilter()
	f.SkipHidden, f.Ckignore, f.Excludes = false, false, []string{}
	if got := strings.Join(search(Scope{Filter: f}), " "); got != ".hidden.txt build/out.txt conf.json keep/a.txt keep/b.txt" {
		t.Errorf("everything: %s", got)
	}
	if got := strings.Join(search(Scope{Paths: []string{filepath.Join(dir, "conf.json")}, Filter: CkFilter()}), " "); got != "conf.json" {
		t.Errorf("named file: %s", got)
	}
}

// A 3 GB file (sparse: it costs no disk) is left out of the index as too
// large, and a search scans it without reading it whole: its holes are NUL
// bytes, so it is binary as ripgrep decides, and said so.
func TestHugeSparseFileSkipped(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "small.txt"), []byte("needle\n"), 0o644)
	huge := filepath.Join(dir, "huge.log")
	if err := os.WriteFile(huge, []byte("needle at the start of a huge file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 3<<30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e, err := Open(dir, ix, Options{Embedder: NewHashed()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 1 || rep.Skipped.TooLarge != 1 || rep.Bytes > 1<<20 {
		t.Fatalf("index: %+v, want small.txt indexed and huge.log skipped as too large", rep)
	}
	res, err := e.Regex(ctx, RegexQuery{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 1 || e.rel(res.Lines[0].Path) != "small.txt" || res.Binary != 1 {
		t.Fatalf("search: %d lines, %d binary, want small.txt's line and huge.log binary", len(res.Lines), res.Binary)
	}
}
