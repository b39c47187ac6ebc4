package libraries

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A monorepo's packages (pnpm-workspace.yaml's "packages", package.json's
// "workspaces") are the workspace's own: an import of one's name resolves
// to its sources through its exports (zod's tests import "zod/v4" from a
// root that depends on no zod), and the packages each installs in its own
// node_modules (packages/zod/node_modules/@types/node) are libraries as
// tsserver finds them from that package's files.

// maxWorkspacePackages bounds the package folders read for one workspace.
const maxWorkspacePackages = 256

// discoverNodeWorkspaces adds the root's workspace packages and what they
// depend on.
func (f *Found) discoverNodeWorkspaces(root string) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	dirs := nodeWorkspaceDirs(realRoot)
	if len(dirs) == 0 {
		return
	}
	for _, dir := range dirs {
		f.selfPackage(dir)
	}
	for _, dir := range dirs {
		f.nestedDependencies(realRoot, dir, dir)
	}
}

// maxMonorepoDepth bounds how far above a workspace root its monorepo's
// root is looked for.
const maxMonorepoDepth = 4

// monorepoRoot is the folder above root, within maxMonorepoDepth, that
// lists root among its workspace packages, or "".
func monorepoRoot(root string) string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	dir := realRoot
	for range maxMonorepoDepth {
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
		if slices.Contains(nodeWorkspaceDirs(dir), realRoot) {
			return dir
		}
	}
	return ""
}

// discoverNodeMonorepo adds, for a root that is one package of the monorepo
// at above (which lists it among its workspace packages; "" for none), what the
// monorepo's root depends on, as Node and tsserver resolve them from the
// root's files: pnpm and npm hoist them into the monorepo's node_modules
// (zod's packages/zod installs nothing of its own; vitest and typescript
// are the monorepo's).
func (f *Found) discoverNodeMonorepo(root, above string) {
	if above == "" {
		return
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	f.nestedDependencies(realRoot, realRoot, realRoot) // its own, installed here or above
	f.nestedDependencies(realRoot, above, realRoot)
}

// nestedDependencies adds the dependencies of the package at dir as Node
// resolves them from the folder from (its node_modules, else one above
// it), with the @types packages and typescript installed in dir's own
// node_modules. One not installed anywhere is skipped with its reason.
func (f *Found) nestedDependencies(realRoot, dir, from string) {
	deps, err := nodeDependencies(filepath.Join(dir, "package.json"))
	if err != nil {
		f.Skipped = append(f.Skipped, Skip{Library: filepath.Join(dir, "package.json"), Reason: BadPackage, Detail: err.Error()})
		return
	}
	nm := filepath.Join(dir, "node_modules")
	if types, err := os.ReadDir(filepath.Join(nm, "@types")); err == nil {
		for _, e := range types {
			deps = append(deps, "@types/"+e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(nm, "typescript", "package.json")); err == nil {
		deps = append(deps, "typescript")
	}
	have := map[string]bool{}
	for _, l := range f.Libraries {
		have[l.Module+"\x00"+l.Dir] = true
	}
	slices.Sort(deps)
	for _, name := range slices.Compact(deps) {
		lib, skip := nodePackageNear(from, name)
		if skip != nil {
			if skip.Reason == NotInstalled {
				skip.Detail = "not installed for " + dir
			}
			f.Skipped = append(f.Skipped, *skip)
			continue
		}
		if workspaceFolder(realRoot, lib.Dir) {
			lib = linkedPackage(lib)
		}
		if !have[lib.Module+"\x00"+lib.Dir] {
			have[lib.Module+"\x00"+lib.Dir] = true
			f.Libraries = append(f.Libraries, lib)
		}
	}
}

// nodeWorkspaceDirs lists the real folders of root's workspace packages
// that hold a package.json, root (a real folder) itself aside.
func nodeWorkspaceDirs(root string) []string {
	patterns := pnpmWorkspacePatterns(filepath.Join(root, "pnpm-workspace.yaml"))
	patterns = append(patterns, packageJSONWorkspaces(filepath.Join(root, "package.json"))...)
	var out []string
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") || strings.Contains(p, "..") || filepath.IsAbs(p) {
			continue
		}
		// "**" matches one level here: monorepos nest packages a level or two down.
		glob := filepath.Join(root, filepath.FromSlash(strings.ReplaceAll(strings.TrimSuffix(p, "/"), "**", "*")))
		matches, _ := filepath.Glob(glob)
		for _, m := range matches {
			real, err := filepath.EvalSymlinks(m)
			if err != nil || real == root || !workspaceFolder(root, real) {
				continue
			}
			if _, err := os.Stat(filepath.Join(real, "package.json")); err == nil && !slices.Contains(out, real) {
				out = append(out, real)
			}
			if len(out) >= maxWorkspacePackages {
				return out
			}
		}
	}
	return out
}

// pnpmWorkspacePatterns reads the "packages" list of a pnpm-workspace.yaml:
// the block sequence under that key, each item a folder pattern.
func pnpmWorkspacePatterns(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 1<<20 {
		return nil
	}
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			in = strings.HasPrefix(trimmed, "packages:")
		case in && strings.HasPrefix(trimmed, "-"):
			item := strings.TrimSpace(strings.TrimPrefix(trimmed, "-"))
			if i := strings.Index(item, " #"); i >= 0 {
				item = strings.TrimSpace(item[:i])
			}
			if item = strings.Trim(item, `"'`); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// packageJSONWorkspaces reads package.json's "workspaces": a list of
// folder patterns, or an object whose "packages" is one (yarn).
func packageJSONWorkspaces(file string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var pkg struct {
		Workspaces json.RawMessage `json:"workspaces"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Workspaces == nil {
		return nil
	}
	var list []string
	if json.Unmarshal(pkg.Workspaces, &list) == nil {
		return list
	}
	var obj struct {
		Packages []string `json:"packages"`
	}
	_ = json.Unmarshal(pkg.Workspaces, &obj)
	return obj.Packages
}
