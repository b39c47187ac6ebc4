package storage

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DescriptorFile names the readable note each index folder carries, so a
// person (and `kast cache`) can tell which workspace a hashed folder is for.
const DescriptorFile = "kast-index.json"

// Descriptor says what an index folder holds and when it was last used.
type Descriptor struct {
	Root        string         `json:"root"`
	KastVersion string         `json:"kastVersion,omitempty"`
	Created     time.Time      `json:"created"`
	LastUsed    time.Time      `json:"lastUsed"`
	Languages   map[string]int `json:"languages,omitempty"` // files per language at the last refresh
}

// CacheRoot is the folder holding every index: $XDG_CACHE_HOME/kast, or
// ~/.cache/kast.
func CacheRoot() (string, error) {
	dir, err := DefaultDir("/")
	if err != nil {
		return "", err
	}
	return filepath.Dir(dir), nil
}

// ReadDescriptor reads an index folder's descriptor.
func ReadDescriptor(dir string) (Descriptor, error) {
	var d Descriptor
	data, err := os.ReadFile(filepath.Join(dir, DescriptorFile))
	if err != nil {
		return d, err
	}
	return d, json.Unmarshal(data, &d)
}

// writeDescriptor replaces the descriptor atomically, so a reader never
// sees half of one.
func writeDescriptor(dir string, d Descriptor) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, DescriptorFile+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, DescriptorFile))
}

// touchDescriptor records that root's index at dir is in use now, keeping
// what the descriptor already says. A descriptor that cannot be written
// (a full disk) costs nothing but the listing's accuracy.
func (ix *Index) touchDescriptor(root string, update func(*Descriptor)) {
	if ix.dir == "" {
		return
	}
	ix.descMu.Lock()
	defer ix.descMu.Unlock()
	d, err := ReadDescriptor(ix.dir)
	if err != nil || d.Root != root {
		d = Descriptor{Root: root, Created: time.Now().UTC()}
	}
	d.KastVersion = ix.binaryVersion
	d.LastUsed = time.Now().UTC()
	if update != nil {
		update(&d)
	}
	if err := writeDescriptor(ix.dir, d); err != nil {
		ix.logger.Debug("cannot write the index descriptor", "dir", ix.dir, "err", err)
	}
}

// RecordLanguages notes in the descriptor how many files of each language
// the last refresh indexed.
// A refresh follows every settled change on disk: the descriptor is
// rewritten only when the counts differ from the last ones recorded.
func (ix *Index) RecordLanguages(files map[string]int) {
	if ix.InMemory() {
		return // the folder is another process's, or full
	}
	ix.descMu.Lock()
	same := maps.Equal(ix.languages, files)
	ix.languages = files
	ix.descMu.Unlock()
	if !same {
		ix.touchDescriptor(ix.root, func(d *Descriptor) { d.Languages = files })
	}
}

// CacheEntry is one index folder in the cache.
type CacheEntry struct {
	Dir        string
	Descriptor *Descriptor // nil for a folder written before descriptors existed
	Size       int64
	LastUsed   time.Time // the descriptor's, or the folder's newest modification
	HeldBy     int       // the pid of a live process holding it, or 0
	Library    bool      // a library version's index, shared by workspaces
}

// Root is the workspace the entry indexes, or "" when unknown.
func (e CacheEntry) Root() string {
	if e.Descriptor == nil {
		return ""
	}
	return e.Descriptor.Root
}

// RootMissing reports whether the entry's workspace no longer exists.
func (e CacheEntry) RootMissing() bool {
	if e.Root() == "" {
		return false
	}
	_, err := os.Stat(e.Root())
	return errors.Is(err, fs.ErrNotExist)
}

// ListCache lists the index folders under cacheRoot, most recently used
// first: workspaces' at its top, shared libraries' deeper (under libs/).
// A folder is an index when it holds badger's MANIFEST or a descriptor.
func ListCache(cacheRoot string) ([]CacheEntry, error) {
	var out []CacheEntry
	err := filepath.WalkDir(cacheRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == cacheRoot && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return nil // an unreadable folder is not listed
		}
		if !d.IsDir() || path == cacheRoot {
			return nil
		}
		if strings.HasPrefix(d.Name(), trashPrefix) {
			return filepath.SkipDir // being removed
		}
		if !isIndexDir(path) {
			return nil
		}
		e := readEntry(path)
		rel, _ := filepath.Rel(cacheRoot, path)
		e.Library = strings.HasPrefix(rel, "libs"+string(filepath.Separator))
		out = append(out, e)
		return filepath.SkipDir
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b CacheEntry) int {
		return cmp.Or(b.LastUsed.Compare(a.LastUsed), strings.Compare(a.Dir, b.Dir))
	})
	return out, nil
}

func isIndexDir(dir string) bool {
	for _, name := range []string{"MANIFEST", DescriptorFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

func readEntry(dir string) CacheEntry {
	e := CacheEntry{Dir: dir}
	if d, err := ReadDescriptor(dir); err == nil {
		e.Descriptor = &d
		e.LastUsed = d.LastUsed
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		e.Size += info.Size()
		if e.Descriptor == nil && info.ModTime().After(e.LastUsed) {
			e.LastUsed = info.ModTime()
		}
		return nil
	})
	e.HeldBy = holder(dir)
	return e
}

// holder is the pid of the live process holding the index at dir, from the
// pid badger writes into its LOCK file (removed when it closes; left behind
// by a crash, when the pid is no longer alive).
func holder(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, "LOCK"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || !processAlive(pid) {
		return 0
	}
	return pid
}

// ErrIndexHeld refuses to remove an index a running kast holds.
var ErrIndexHeld = errors.New("in use by a running kast")

// trashPrefix names folders being removed: an index is renamed first, so a
// removal cut short (the process ended) never leaves half an index behind,
// and the next prune finishes it.
const trashPrefix = ".kast-trash-"

// RemoveEntry deletes an index folder, unless a live process holds it.
func RemoveEntry(e CacheEntry) error {
	if pid := holder(e.Dir); pid != 0 {
		return fmt.Errorf("%s: %w (pid %d); stop it first", e.Dir, ErrIndexHeld, pid)
	}
	trash := filepath.Join(filepath.Dir(e.Dir), fmt.Sprintf("%s%s-%d-%d", trashPrefix, filepath.Base(e.Dir), os.Getpid(), time.Now().UnixNano()))
	if err := os.Rename(e.Dir, trash); err != nil {
		return err
	}
	return os.RemoveAll(trash)
}

// removeTrash finishes removals a process did not get to end.
func removeTrash(cacheRoot string) {
	_ = filepath.WalkDir(cacheRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == cacheRoot {
			return nil
		}
		if strings.HasPrefix(d.Name(), trashPrefix) {
			_ = os.RemoveAll(path)
			return filepath.SkipDir
		}
		if isIndexDir(path) {
			return filepath.SkipDir
		}
		return nil
	})
}

// PruneRules says which indexes Prune removes: those matching every rule
// set among OlderThan and MissingRoots, then the least recently used until
// the cache fits MaxBytes. Zero fields are off.
type PruneRules struct {
	OlderThan    time.Duration // unused for longer than this
	MissingRoots bool          // whose workspace folder no longer exists
	MaxBytes     int64
	DryRun       bool // report, remove nothing
}

// AutoPruneAge is how long an index of a workspace that no longer exists is
// kept: long enough for a checkout on a drive that is not mounted today.
const AutoPruneAge = 30 * 24 * time.Hour

// DefaultCacheLimit bounds the whole cache unless KAST_CACHE_LIMIT says
// otherwise.
const DefaultCacheLimit = 5 << 30

// AutoPrune applies the automatic rules at most once a day: indexes of
// workspaces that no longer exist and were unused for AutoPruneAge go, then
// the least recently used beyond maxBytes.
func AutoPrune(cacheRoot string, maxBytes int64, now time.Time) ([]CacheEntry, error) {
	stamp := filepath.Join(cacheRoot, ".last-prune")
	if info, err := os.Stat(stamp); err == nil && now.Sub(info.ModTime()) < 24*time.Hour {
		return nil, nil
	}
	removeTrash(cacheRoot)
	removed, err := Prune(cacheRoot, PruneRules{OlderThan: AutoPruneAge, MissingRoots: true, MaxBytes: maxBytes}, now)
	if werr := os.WriteFile(stamp, nil, 0o600); werr == nil {
		_ = os.Chtimes(stamp, now, now)
	}
	return removed, err
}

// Prune removes the indexes under cacheRoot the rules select, never one a
// live process holds, and returns what it removed (or would remove).
func Prune(cacheRoot string, rules PruneRules, now time.Time) ([]CacheEntry, error) {
	entries, err := ListCache(cacheRoot)
	if err != nil {
		return nil, err
	}
	var removed []CacheEntry
	var errs []error
	var total int64
	kept := entries[:0:0]
	remove := func(e CacheEntry) bool {
		if e.HeldBy != 0 {
			return false
		}
		if !rules.DryRun {
			if err := RemoveEntry(e); err != nil {
				errs = append(errs, err)
				return false
			}
		}
		removed = append(removed, e)
		return true
	}
	selective := rules.OlderThan > 0 || rules.MissingRoots
	for _, e := range entries {
		selected := selective &&
			(rules.OlderThan == 0 || now.Sub(e.LastUsed) > rules.OlderThan) &&
			(!rules.MissingRoots || e.RootMissing())
		if selected && remove(e) {
			continue
		}
		kept = append(kept, e)
		total += e.Size
	}
	// kept is most recently used first: evict from its end.
	for i := len(kept) - 1; rules.MaxBytes > 0 && total > rules.MaxBytes && i >= 0; i-- {
		if remove(kept[i]) {
			total -= kept[i].Size
		}
	}
	return removed, errors.Join(errs...)
}
