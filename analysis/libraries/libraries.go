// Package libraries finds, without network access, the library sources a
// workspace depends on: the Go standard library of the toolchain in use and
// the modules its go.mod requires, as extracted in the module cache. Each
// library version is read-only and gets its own index, shared by every
// workspace that uses it (see Library.Key).
package libraries

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// Library is one read-only library version.
type Library struct {
	Lang    string // "go"
	Module  string // the import path prefix it serves: a module path, or "std"
	Version string // the module version, or the Go version of the standard library
	Dir     string // the folder whose files are indexed
	// declarations is set for a node package that ships .d.ts files:
	// only they are indexed.
	declarations bool
	// vendored is set for a Go vendor folder: its module paths, each on
	// a line of its own (see vendor.go).
	vendored string
	// entries is set for a node package: its entry points (nodeentry.go).
	entries string
	// linked is set for a node package whose folder is the workspace's
	// own (node.go): it resolves imports and indexes nothing.
	linked bool
	// crateRoot and crateName are a Rust crate's [lib] path (relative
	// to Dir) and name, when its Cargo.toml sets them (cargolib.go).
	crateRoot, crateName string
	// stubsExcluded is set for typeshed's standard library: the modules
	// the interpreter lacks, sorted, one a line (pytypeshed.go).
	stubsExcluded string
}

// Key names the library's index: the same version shares one index across
// workspaces and processes.
func (l Library) Key() string {
	esc, err := module.EscapePath(l.Module)
	if err != nil {
		esc = strings.NewReplacer("/", "_", ":", "/").Replace(l.Module)
	}
	return filepath.Join(l.Lang, filepath.FromSlash(esc)+"@"+l.Version)
}

// String is how progress and status name the library.
func (l Library) String() string { return l.Module + "@" + l.Version }

// Skip is a library left out, with why.
type Skip struct {
	Library string `json:"library"`
	Reason  string `json:"reason"` // a code: see the Reason constants
	Detail  string `json:"detail,omitempty"`
}

// Reasons a library is skipped.
const (
	NoToolchain   = "noToolchain"   // the go command is missing or fails
	BrokenGoroot  = "brokenGoroot"  // GOROOT has no src folder
	NotDownloaded = "notDownloaded" // the module is not in the module cache
	Incomplete    = "incomplete"    // the module cache holds a half-extracted copy
	BadGoMod      = "badGoMod"      // go.mod cannot be parsed
	InWorkspace   = "inWorkspace"   // the library's folder is the workspace's own
)

// Found is what Discover found for a workspace root.
type Found struct {
	Libraries []Library
	Skipped   []Skip
}

// GoEnv is the part of the go command's environment discovery needs.
type GoEnv struct {
	GOROOT, GOVERSION, GOMODCACHE string
}

// Options configures Discover; the zero value asks the go command.
type Options struct {
	// Go overrides what `go env` says (tests use a fake GOROOT and
	// module cache). nil runs the go command on PATH.
	Go *GoEnv
	// Python overrides what the project's interpreter says. nil asks the
	// virtualenv's python3, else the one on PATH.
	Python *PythonEnv
	// Caches overrides where the JVM, Rust and Ruby caches are (jvm.go).
	// nil reads the environment.
	Caches *Caches
}

// goEnvTimeout bounds `go env`: a broken toolchain must not hold up indexing.
const goEnvTimeout = 10 * time.Second

// Discover lists the libraries of the workspace at root. It never fails:
// what it cannot use is in Skipped with a reason.
func Discover(ctx context.Context, root string, opts Options) Found {
	var found Found
	if pythonProject(root) {
		found.discoverPython(ctx, root, opts)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
		found.discoverGo(ctx, root, opts)
	}
	if _, err := os.Stat(filepath.Join(root, "package.json")); err == nil {
		monorepo := monorepoRoot(root)
		found.discoverNode(root, monorepo != "")
		found.selfPackage(root)
		found.discoverNodeWorkspaces(root)
		found.discoverNodeMonorepo(root, monorepo)
		found.importedPackages() // once, when every dependency is known
		found.Libraries = distinctLibraries(found.Libraries)
	}
	found.discoverJVMRustRuby(ctx, root, opts)
	found.dropWorkspaceItself(root)
	return found
}

// dropWorkspaceItself skips a Go library whose folder is the workspace
// root: a workspace opened on GOROOT/src finds the standard library, and
// indexing it again as a library doubled the background work and the open
// indexes for files the workspace index already holds. (A Node package's
// own entry, selfPackage, is kept: it maps its package name to its files.)
func (found *Found) dropWorkspaceItself(root string) {
	real, err := filepath.EvalSymlinks(root)
	same := func(dir string) bool {
		if dir == root {
			return true
		}
		d, errD := filepath.EvalSymlinks(dir)
		return err == nil && errD == nil && d == real
	}
	found.Libraries = slices.DeleteFunc(found.Libraries, func(l Library) bool {
		if l.Lang != "go" || !same(l.Dir) {
			return false
		}
		found.Skipped = append(found.Skipped, Skip{Library: l.String(), Reason: InWorkspace, Detail: l.Dir + " is the workspace itself"})
		return true
	})
}

func (found *Found) discoverGo(ctx context.Context, root string, opts Options) {
	env := opts.Go
	if env == nil {
		e, err := goEnv(ctx, root)
		if err != nil {
			found.Skipped = append(found.Skipped, Skip{Library: "go", Reason: NoToolchain, Detail: err.Error()})
			return
		}
		env = &e
	}
	found.add(goStd(*env))
	if lib, skip, ok := vendored(root); ok {
		found.add(lib, skip)
		return
	}
	mods, err := buildList(ctx, root, opts.Go == nil)
	if err != nil {
		found.Skipped = append(found.Skipped, Skip{Library: filepath.Join(root, "go.mod"), Reason: BadGoMod, Detail: err.Error()})
		return
	}
	for _, m := range mods {
		found.add(cachedModule(env.GOMODCACHE, m))
	}
}

// distinctLibraries drops the repeats of a library found twice (a
// workspace package both depended on and listed as a workspace), keeping
// the first.
func distinctLibraries(libs []Library) []Library {
	seen := map[string]bool{}
	return slices.DeleteFunc(libs, func(l Library) bool {
		k := l.Key() + "\x00" + l.Dir
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

func (f *Found) add(l Library, s *Skip) {
	if s != nil {
		f.Skipped = append(f.Skipped, *s)
		return
	}
	f.Libraries = append(f.Libraries, l)
}

// goEnv asks the go command run in root for its environment.
func goEnv(ctx context.Context, root string) (GoEnv, error) {
	ctx, cancel := context.WithTimeout(ctx, goEnvTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOVERSION", "GOMODCACHE")
	cmd.Dir = root
	// Discovery is offline: toolchain switching would download.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return GoEnv{}, fmt.Errorf("go env: %v: %s", err, msg)
		}
		return GoEnv{}, fmt.Errorf("go env: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return GoEnv{}, errors.New("go env: unexpected output")
	}
	return GoEnv{GOROOT: lines[0], GOVERSION: lines[1], GOMODCACHE: lines[2]}, nil
}

// goStd is the standard library of GOROOT.
func goStd(env GoEnv) (Library, *Skip) {
	src := filepath.Join(env.GOROOT, "src")
	if env.GOROOT == "" {
		return Library{}, &Skip{Library: "std", Reason: BrokenGoroot, Detail: "GOROOT is empty"}
	}
	if fi, err := os.Stat(filepath.Join(src, "fmt")); err != nil || !fi.IsDir() {
		return Library{}, &Skip{Library: "std", Reason: BrokenGoroot, Detail: src + " has no standard library"}
	}
	return Library{Lang: "go", Module: "std", Version: versionOf(env), Dir: src}, nil
}

// versionOf names the standard library's version: GOVERSION, else the
// VERSION file's first line, else the folder (a source build).
func versionOf(env GoEnv) string {
	if env.GOVERSION != "" {
		return env.GOVERSION
	}
	if b, err := os.ReadFile(filepath.Join(env.GOROOT, "VERSION")); err == nil {
		if line, _, _ := strings.Cut(string(b), "\n"); strings.TrimSpace(line) != "" {
			return strings.TrimSpace(line)
		}
	}
	return "devel-" + strings.ReplaceAll(filepath.ToSlash(env.GOROOT), "/", "_")
}

// buildList lists the modules of the build list: the go command's answer
// offline when asked to (it knows the requirements of requirements that a
// go.mod before Go 1.17 leaves out), else go.mod's own list.
func buildList(ctx context.Context, root string, askGo bool) ([]module.Version, error) {
	if askGo {
		if mods, err := goListModules(ctx, root); err == nil {
			return mods, nil
		}
	}
	return requiredModules(root)
}

// goListModules runs `go list -m -json all` offline: with GOPROXY=off the go
// command answers from the module cache or fails, never downloads.
func goListModules(ctx context.Context, root string) ([]module.Version, error) {
	ctx, cancel := context.WithTimeout(ctx, goEnvTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json", "all")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var mods []module.Version
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m struct {
			Path, Version string
			Main          bool
			Replace       *struct{ Path, Version string }
		}
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		if m.Replace != nil {
			m.Path, m.Version = m.Replace.Path, m.Replace.Version
		}
		if !m.Main && m.Version != "" {
			mods = append(mods, module.Version{Path: m.Path, Version: m.Version})
		}
	}
	return mods, nil
}

// requiredModules reads go.mod's requirements with replacements applied;
// modules replaced by a local folder are left out (they are sources of the
// user's, not read-only library versions). Since Go 1.17 go.mod lists every
// module that provides a package the main module builds with.
func requiredModules(root string) ([]module.Version, error) {
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	mf, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	var out []module.Version
	for _, r := range mf.Require {
		m := r.Mod
		for _, rep := range mf.Replace {
			if rep.Old.Path == m.Path && (rep.Old.Version == "" || rep.Old.Version == m.Version) {
				m = rep.New
			}
		}
		if m.Version == "" || m.Path == mainModule(mf) {
			continue
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b module.Version) int { return strings.Compare(a.Path, b.Path) })
	return slices.Compact(out), nil
}

func mainModule(mf *modfile.File) string {
	if mf.Module == nil {
		return ""
	}
	return mf.Module.Mod.Path
}

// ModulePath returns the module path go.mod at root declares, or "".
func ModulePath(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}

// cachedModule finds a module version's extracted folder in the module
// cache. The go command extracts into a temporary folder and renames it, so
// a folder that exists is whole, unless an interrupted extraction left a
// .partial marker beside the download or the folder has no files.
func cachedModule(cache string, m module.Version) (Library, *Skip) {
	name := m.Path + "@" + m.Version
	if cache == "" {
		return Library{}, &Skip{Library: name, Reason: NotDownloaded, Detail: "no module cache"}
	}
	dir, err := module.EscapePath(m.Path)
	if err != nil {
		return Library{}, &Skip{Library: name, Reason: NotDownloaded, Detail: err.Error()}
	}
	ver, err := module.EscapeVersion(m.Version)
	if err != nil {
		return Library{}, &Skip{Library: name, Reason: NotDownloaded, Detail: err.Error()}
	}
	full := filepath.Join(cache, filepath.FromSlash(dir)+"@"+ver)
	if _, err := os.Stat(filepath.Join(cache, "cache", "download", filepath.FromSlash(dir), "@v", ver+".partial")); err == nil {
		return Library{}, &Skip{Library: name, Reason: Incomplete, Detail: "an extraction into the module cache was interrupted"}
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return Library{}, &Skip{Library: name, Reason: NotDownloaded, Detail: "not in the module cache (go mod download fetches it)"}
	}
	if len(entries) == 0 {
		return Library{}, &Skip{Library: name, Reason: Incomplete, Detail: full + " is empty"}
	}
	return Library{Lang: "go", Module: m.Path, Version: m.Version, Dir: full}, nil
}

// Include reports whether a library file is indexed: sources only, not
// tests, test data or (in the standard library) the toolchain's commands.
func (l Library) Include(path string) bool {
	rel, err := filepath.Rel(l.Dir, path)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch l.Lang {
	case "python":
		return l.pythonInclude(parts)
	case "node":
		return l.nodeInclude(parts)
	case "jvm", "rust", "ruby":
		return l.otherInclude(parts)
	}
	if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
		return false
	}
	if l.Module == "std" && len(parts) > 1 && parts[0] == "cmd" {
		return false
	}
	for _, p := range parts[:len(parts)-1] {
		if p == "testdata" || strings.HasPrefix(p, "_") || strings.HasPrefix(p, ".") {
			return false
		}
	}
	return true
}

// StdPackageDir maps an import path of the standard library to its folder
// under src (GOROOT/src, whose go.mod says module std), or "": a standard
// import path's first element has no dot.
func StdPackageDir(src, importPath string) string {
	first, _, _ := strings.Cut(importPath, "/")
	if strings.Contains(first, ".") {
		return ""
	}
	return filepath.Join(src, filepath.FromSlash(importPath))
}

// PackageDir maps a Go import path to its folder in the library, or "".
func (l Library) PackageDir(importPath string) string {
	if l.Lang != "go" {
		return ""
	}
	if l.vendored != "" {
		return l.vendorPackageDir(importPath)
	}
	if l.Module == "std" {
		return StdPackageDir(l.Dir, importPath)
	}
	if importPath == l.Module {
		return l.Dir
	}
	if rest, ok := strings.CutPrefix(importPath, l.Module+"/"); ok {
		return filepath.Join(l.Dir, filepath.FromSlash(rest))
	}
	return ""
}
