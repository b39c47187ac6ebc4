package libraries

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TypeScript and JavaScript libraries: the packages package.json depends
// on, as installed in node_modules, each at the version its own
// package.json names, with every @types package and typescript itself
// (whose lib.*.d.ts describe the platform). A package's declaration files
// are indexed; a package without any, its JavaScript sources.

// More node skip reasons.
const (
	NotInstalled = "notInstalled" // a dependency with no folder in node_modules
	BadPackage   = "badPackage"   // a package.json that cannot be read
	LinkLoop     = "linkLoop"     // a package folder whose links do not end
	// NoNodeModules: package.json names dependencies but nothing is
	// installed; one skip stands for them all.
	NoNodeModules = "noNodeModules"
)

func (f *Found) discoverNode(root string, inMonorepo bool) {
	deps, err := nodeDependencies(filepath.Join(root, "package.json"))
	if err != nil {
		f.Skipped = append(f.Skipped, Skip{Library: filepath.Join(root, "package.json"), Reason: BadPackage, Detail: err.Error()})
		return
	}
	nm := filepath.Join(root, "node_modules")
	if _, err := os.Stat(nm); err != nil {
		if inMonorepo {
			// A monorepo's package whose dependencies are installed
			// above it: discoverNodeMonorepo finds them there.
			return
		}
		if len(deps) > 0 {
			f.Skipped = append(f.Skipped, Skip{Library: nm, Reason: NoNodeModules,
				Detail: fmt.Sprintf("%d dependencies of package.json are not installed (%s puts them there)", len(deps), nodeInstaller(root))})
		}
		return
	}
	// Every @types package and typescript, declared or not: editors use them.
	if types, err := os.ReadDir(filepath.Join(nm, "@types")); err == nil {
		for _, e := range types {
			deps = append(deps, "@types/"+e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(nm, "typescript", "package.json")); err == nil {
		deps = append(deps, "typescript")
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	slices.Sort(deps)
	for _, name := range slices.Compact(deps) {
		lib, skip := nodePackage(nm, name)
		if skip == nil && workspaceFolder(realRoot, lib.Dir) {
			lib = linkedPackage(lib)
		}
		f.add(lib, skip)
	}
}

// selfPackage is the workspace's own package when its package.json has a
// name and exports: TypeScript resolves an import of that name (zod's
// tests import "zod/v4") through those exports to the workspace's files.
func (f *Found) selfPackage(root string) {
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return
	}
	var pkg map[string]json.RawMessage
	var name, version string
	if json.Unmarshal(data, &pkg) != nil || json.Unmarshal(pkg["name"], &name) != nil || name == "" || pkg["exports"] == nil {
		return
	}
	_ = json.Unmarshal(pkg["version"], &version)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return
	}
	f.Libraries = append(f.Libraries, linkedPackage(Library{Lang: "node", Module: name, Version: cmpOr(version, "0"), Dir: real}))
}

// linkedPackage makes a package in the workspace's own folders (pnpm and
// yarn workspaces link them into node_modules) one that resolves imports
// to the workspace's files and indexes none itself: a library copy would
// shadow the workspace. Its version names the folder, so that it never
// shares an index with the same version installed elsewhere.
func linkedPackage(l Library) Library {
	l.linked, l.declarations = true, false
	var pkg map[string]json.RawMessage
	if data, err := os.ReadFile(filepath.Join(l.Dir, "package.json")); err == nil && json.Unmarshal(data, &pkg) == nil {
		l.entries = nodeEntriesOf(l.Dir, pkg, true)
	}
	l.Version += fmt.Sprintf("+ws.%08x", fnv32(l.Dir))
	return l
}

// Linked reports whether the package is one of the workspace's own
// folders, linked in: it resolves imports and indexes nothing.
func (l Library) Linked() bool { return l.linked }

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// workspaceFolder reports whether a package's real folder is the
// workspace's own: under root and in no node_modules, where installed
// packages and pnpm's store live.
func workspaceFolder(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return !slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "node_modules")
}

// nodeInstaller names the command that installs a project's packages, by
// its lockfile.
func nodeInstaller(root string) string {
	for _, l := range []struct{ file, cmd string }{{"pnpm-lock.yaml", "pnpm install"}, {"yarn.lock", "yarn install"},
		{"bun.lockb", "bun install"}, {"bun.lock", "bun install"}} {
		if _, err := os.Stat(filepath.Join(root, l.file)); err == nil {
			return l.cmd
		}
	}
	return "npm install"
}

// nodeDependencies lists the names package.json depends on.
func nodeDependencies(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var pkg map[string]json.RawMessage
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, err
	}
	var out []string
	for _, field := range []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"} {
		var deps map[string]any
		if raw, ok := pkg[field]; ok && json.Unmarshal(raw, &deps) == nil {
			for name := range deps {
				out = append(out, name)
			}
		}
	}
	return out, nil
}

// nodePackage finds an installed package: its real folder (pnpm links
// packages into a store) and version.
func nodePackage(nm, name string) (Library, *Skip) {
	if strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return Library{}, &Skip{Library: name, Reason: BadPackage, Detail: "not a package name"}
	}
	dir := filepath.Join(nm, filepath.FromSlash(name))
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if _, lerr := os.Lstat(dir); lerr == nil {
			return Library{}, &Skip{Library: name, Reason: LinkLoop, Detail: err.Error()}
		}
		return Library{}, &Skip{Library: name, Reason: NotInstalled, Detail: "no " + dir + " (npm install puts it there)"}
	}
	data, err := os.ReadFile(filepath.Join(real, "package.json"))
	if err != nil {
		return Library{}, &Skip{Library: name, Reason: BadPackage, Detail: err.Error()}
	}
	var pkg map[string]json.RawMessage
	var version string
	if err := json.Unmarshal(data, &pkg); err == nil {
		_ = json.Unmarshal(pkg["version"], &version)
	}
	if version == "" {
		return Library{}, &Skip{Library: name, Reason: BadPackage, Detail: "package.json names no version"}
	}
	return Library{Lang: "node", Module: name, Version: version, Dir: real, declarations: hasDeclarations(real),
		entries: nodeEntries(real, pkg)}, nil
}

// hasDeclarations reports whether a package ships .d.ts files, looking a
// few levels down (most keep them at the top, in types/, dist/ or lib/).
func hasDeclarations(dir string) bool {
	found := false
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil || found {
			return
		}
		for _, e := range entries {
			n := e.Name()
			switch {
			case found:
				return
			case isDeclaration(n):
				found = true
			case e.IsDir() && depth < 3 && n != "node_modules" && !strings.HasPrefix(n, "."):
				walk(filepath.Join(d, n), depth+1)
			}
		}
	}
	walk(dir, 0)
	return found
}

func isDeclaration(name string) bool {
	return strings.HasSuffix(name, ".d.ts") || strings.HasSuffix(name, ".d.mts") || strings.HasSuffix(name, ".d.cts")
}

// nodeInclude reports whether a node package indexes a file: its
// declarations when it has any, else its JavaScript; never tests or
// nested packages.
func (l Library) nodeInclude(parts []string) bool {
	if l.linked {
		return false // the workspace indexes these files
	}
	for _, p := range parts[:len(parts)-1] {
		switch p {
		case "node_modules", "test", "tests", "__tests__", "example", "examples":
			return false
		}
	}
	name := parts[len(parts)-1]
	if l.declarations {
		return isDeclaration(name)
	}
	// A package without declarations is read from its sources: JavaScript,
	// or TypeScript for one linked in as its sources (a monorepo sibling).
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx"} {
		if strings.HasSuffix(name, ext) && !strings.HasSuffix(name, ".min"+ext) {
			return true
		}
	}
	return false
}
