package resolve

import (
	"slices"
	"strings"
)

// Looking for a name in one package (the file's own, an imported one) went
// through every definition of the name in the workspace: a common name
// (New, String, Len) has more the larger the workspace, and the lookups
// asking grow with it too. So a name's definitions declared outside others
// are grouped by folder once per resolver, and a package's lookup reads
// its folders' only, in the name table's order as before.

// dirMemo is what a resolver memoizes of folders.
type dirMemo struct {
	top  map[string]map[string][]int32 // see topLevelByDir
	pkgs map[[2]string][]string        // see packageDirs
}

// dirOf is the folder part of path with its trailing slash, as sameDir
// tells folders apart ("" for a path without one).
func dirOf(path string) string { return path[:strings.LastIndexByte(path, '/')+1] }

// topLevelByDir returns where each folder's definitions of name that the
// name table does not mark nested are in r.defs(name).
func (r *Resolver) topLevelByDir(name string) map[string][]int32 {
	r.mu.Lock()
	byDir, ok := r.byDir.top[name]
	r.mu.Unlock()
	if ok {
		return byDir
	}
	byDir = map[string][]int32{}
	for i, e := range r.defs(name) {
		if !e.Nested {
			d := dirOf(e.Path)
			byDir[d] = append(byDir[d], int32(i))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byDir.top == nil {
		r.byDir.top = map[string]map[string][]int32{}
	}
	r.byDir.top[name] = byDir
	return byDir
}

// topLevelInDirs lists the definitions of name the name table does not mark
// nested in the folders dirs (each with its trailing slash), in the order
// of r.defs(name).
func (r *Resolver) topLevelInDirs(name string, dirs ...string) []DefEntry {
	byDir := r.topLevelByDir(name)
	var at []int32
	for i, d := range dirs {
		if !slices.Contains(dirs[:i], d) {
			at = append(at, byDir[d]...)
		}
	}
	if len(dirs) > 1 {
		slices.Sort(at)
	}
	all := r.defs(name)
	out := make([]DefEntry, len(at))
	for i, j := range at {
		out[i] = all[j]
	}
	return out
}

// packageDirs lists the folders of a package's files (see packageFiles),
// each with its trailing slash.
func (r *Resolver) packageDirs(lang, pkg string) []string {
	r.mu.Lock()
	if r.byDir.pkgs == nil {
		r.byDir.pkgs = map[[2]string][]string{}
	}
	r.mu.Unlock()
	return memo(&r.mu, r.byDir.pkgs, [2]string{lang, pkg}, func([2]string) []string {
		var dirs []string
		for p := range r.packageFiles(lang, pkg) {
			dirs = append(dirs, dirOf(p))
		}
		slices.Sort(dirs)
		return slices.Compact(dirs)
	})
}
