package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kast cache on real index folders: two workspaces indexed, one deleted,
// listed, pruned and cleared the way a user would.
func TestCacheListPruneClear(t *testing.T) {
	cache := t.TempDir()
	// Libraries stay out: the go.mod would have kast index the standard library.
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, "KAST_LIBRARIES=off")
	keep, gone := t.TempDir(), t.TempDir()
	for _, dir := range []string{keep, gone} {
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\n\nfunc X() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, code := runKast(t, dir, env, "index"); code != 0 {
			t.Fatalf("kast index %s: exit %d", dir, code)
		}
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}

	type entry struct {
		Root        string
		RootMissing bool
		Bytes       int64
		LastUsed    time.Time
		Languages   map[string]int
	}
	list := func() []entry {
		t.Helper()
		out, code := runKast(t, keep, env, "cache", "list", "--json")
		var entries []entry
		if err := json.Unmarshal([]byte(out), &entries); code != 0 || err != nil {
			t.Fatalf("kast cache list --json: exit %d, %v: %s", code, err, out)
		}
		return entries
	}
	entries := list()
	if len(entries) != 2 {
		t.Fatalf("kast cache list shows %d indexes, want 2: %+v", len(entries), entries)
	}
	for _, e := range entries {
		if e.Languages["go"] != 1 || e.Bytes == 0 || time.Since(e.LastUsed) > time.Hour || e.RootMissing != (e.Root != keep && e.Root != realPath(t, keep)) {
			t.Errorf("listed %+v", e)
		}
	}
	text, _ := runKast(t, keep, env, "cache", "list")
	if !strings.Contains(text, "(gone)") || !strings.Contains(text, "go 1") || !strings.Contains(text, "2 indexes") {
		t.Errorf("kast cache list:\n%s", text)
	}

	// The deleted workspace's index is recent: the default rules keep it,
	// --missing-roots removes it.
	if out, _ := runKast(t, keep, env, "cache", "prune"); !strings.Contains(out, "removed 0 indexes") {
		t.Errorf("kast cache prune removed a recent index: %s", out)
	}
	if out, _ := runKast(t, keep, env, "cache", "prune", "--missing-roots", "--dry-run"); !strings.Contains(out, "would remove 1 indexes") || len(list()) != 2 {
		t.Errorf("a dry run: %s", out)
	}
	if out, _ := runKast(t, keep, env, "cache", "prune", "--missing-roots"); !strings.Contains(out, "removed 1 indexes") {
		t.Errorf("kast cache prune --missing-roots: %s", out)
	}
	if entries := list(); len(entries) != 1 || entries[0].RootMissing {
		t.Fatalf("after the prune: %+v", entries)
	}

	if _, stderr, code := runKastErr(t, keep, env, "cache", "clear", gone); code == 0 || !strings.Contains(stderr, "no index of") {
		t.Errorf("clearing a workspace without an index: exit %d, %s", code, stderr)
	}
	if out, code := runKast(t, keep, env, "cache", "clear", "."); code != 0 || !strings.Contains(out, "removed") {
		t.Errorf("kast cache clear .: exit %d, %s", code, out)
	}
	if entries := list(); len(entries) != 0 {
		t.Errorf("after clear: %+v", entries)
	}
	if _, stderr, code := runKastErr(t, keep, env, "cache", "prune", "--older-than", "soon"); code == 0 || !strings.Contains(stderr, "not an age") {
		t.Errorf("a bad age: exit %d, %s", code, stderr)
	}
}

func realPath(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
