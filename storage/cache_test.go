package storage

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// fakeIndex writes an index folder as kast leaves one: badger's files, a
// descriptor (unless root is ""), and a LOCK naming pid when pid is not 0.
func fakeIndex(t *testing.T, cache, name, root string, lastUsed time.Time, size int, pid int) string {
	t.Helper()
	dir := filepath.Join(cache, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "000001.vlog"), make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if root != "" {
		if err := writeDescriptor(dir, Descriptor{Root: root, Created: lastUsed, LastUsed: lastUsed}); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, name := range []string{"000001.vlog", "MANIFEST"} {
			if err := os.Chtimes(filepath.Join(dir, name), lastUsed, lastUsed); err != nil {
				t.Fatal(err)
			}
		}
	}
	if pid != 0 {
		if err := os.WriteFile(filepath.Join(dir, "LOCK"), []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOpenWritesADescriptor(t *testing.T) {
	root, cacheDir := t.TempDir(), t.TempDir()
	dir := filepath.Join(cacheDir, "ix")
	ix, err := Open(root, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ix.RecordLanguages(map[string]int{"go": 3})
	entries, err := ListCache(cacheDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("ListCache = %v, %v", entries, err)
	}
	e := entries[0]
	real, _ := filepath.EvalSymlinks(root)
	if e.Root() != real || e.HeldBy != os.Getpid() || e.Descriptor.Languages["go"] != 3 || e.Size == 0 {
		t.Errorf("open index listed as root %q, held by %d, languages %v, %d bytes; want %s, this process, go 3",
			e.Root(), e.HeldBy, e.Descriptor.Languages, e.Size, real)
	}
	if err := RemoveEntry(e); err == nil {
		t.Error("RemoveEntry removed an index this process holds")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ = ListCache(cacheDir)
	if len(entries) != 1 || entries[0].HeldBy != 0 || entries[0].Descriptor.Languages["go"] != 3 {
		t.Fatalf("after Close: %+v", entries)
	}
	if err := RemoveEntry(entries[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the index folder is still there: %v", err)
	}
}

func TestPruneRules(t *testing.T) {
	now := time.Now()
	live, gone := t.TempDir(), filepath.Join(t.TempDir(), "deleted")
	cases := []struct {
		name    string
		rules   PruneRules
		removed []string
	}{
		{"missing roots", PruneRules{MissingRoots: true}, []string{"gone-old", "gone-new"}},
		{"older than", PruneRules{OlderThan: 30 * 24 * time.Hour}, []string{"live-old", "gone-old", "legacy-old"}},
		{"both", PruneRules{OlderThan: 30 * 24 * time.Hour, MissingRoots: true}, []string{"gone-old"}},
		// 7 folders of about 1,150 bytes (data and descriptor) in 5,900:
		// the least recently used go but the held one, which stays.
		{"max bytes", PruneRules{MaxBytes: 5900}, []string{"legacy-old", "gone-old"}},
		{"dry run", PruneRules{MissingRoots: true, DryRun: true}, []string{"gone-old", "gone-new"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cache := t.TempDir()
			day := 24 * time.Hour
			fakeIndex(t, cache, "live-new", live, now.Add(-time.Hour), 1000, 0)
			fakeIndex(t, cache, "gone-new", gone, now.Add(-2*day), 1000, 0)
			fakeIndex(t, cache, "live-old", live, now.Add(-40*day), 1000, 0)
			fakeIndex(t, cache, "gone-old", gone, now.Add(-50*day), 1000, 0)
			fakeIndex(t, cache, "legacy-old", "", now.Add(-60*day), 1000, 0)
			fakeIndex(t, cache, "held-oldest", gone, now.Add(-90*day), 1000, os.Getpid())
			// A library's index, deeper, of a version still in the module cache.
			fakeIndex(t, cache, filepath.Join("libs", "go", "example.com", "lib@v1.0.0"), live, now.Add(-30*time.Minute), 1000, 0)
			if err := os.MkdirAll(filepath.Join(cache, "not-an-index"), 0o700); err != nil {
				t.Fatal(err)
			}
			removed, err := Prune(cache, c.rules, now)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, e := range removed {
				got[filepath.Base(e.Dir)] = true
			}
			if len(got) != len(c.removed) {
				t.Errorf("removed %v, want %v", got, c.removed)
			}
			for _, name := range c.removed {
				if !got[name] {
					t.Errorf("removed %v, want %v", got, c.removed)
				}
				_, err := os.Stat(filepath.Join(cache, name))
				if exists := err == nil; exists != c.rules.DryRun {
					t.Errorf("%s exists = %v after the prune (dry run %v)", name, exists, c.rules.DryRun)
				}
			}
			if _, err := os.Stat(filepath.Join(cache, "held-oldest")); err != nil {
				t.Error("the held index was removed")
			}
		})
	}
}

func TestAutoPruneRunsOnceADay(t *testing.T) {
	cache, now := t.TempDir(), time.Now()
	gone := filepath.Join(t.TempDir(), "deleted")
	fakeIndex(t, cache, "a", gone, now.Add(-40*24*time.Hour), 10, 0)
	// A removal another process did not finish: not listed, then removed.
	trash := fakeIndex(t, cache, trashPrefix+"b-1-2", gone, now, 10, 0)
	if entries, _ := ListCache(cache); len(entries) != 1 {
		t.Errorf("ListCache lists %d indexes, want the one not being removed", len(entries))
	}
	if removed, err := AutoPrune(cache, DefaultCacheLimit, now); err != nil || len(removed) != 1 {
		t.Fatalf("AutoPrune = %v, %v; want the old index of a deleted workspace", removed, err)
	}
	if _, err := os.Stat(trash); !os.IsNotExist(err) {
		t.Errorf("the half-removed folder is still there: %v", err)
	}
	fakeIndex(t, cache, "b", gone, now.Add(-40*24*time.Hour), 10, 0)
	if removed, _ := AutoPrune(cache, DefaultCacheLimit, now.Add(time.Hour)); len(removed) != 0 {
		t.Errorf("a second run within a day removed %v", removed)
	}
	if removed, _ := AutoPrune(cache, DefaultCacheLimit, now.Add(25*time.Hour)); len(removed) != 1 {
		t.Errorf("a run a day later removed %v", removed)
	}
}
