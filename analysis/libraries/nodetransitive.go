package libraries

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A package's declarations often pass on another package's: vitest
// re-exports describe and it from @vitest/runner, its Assertion is
// @vitest/expect's. Those packages are no dependency of the workspace, but
// an editor follows them, so the packages the entry declaration files of a
// dependency import are libraries too (a few levels, each as installed
// next to the package importing it).

// maxImportedPackages bounds the packages added for one workspace.
const maxImportedPackages = 64

// declaredImport matches the package a declaration file imports or
// re-exports from: `from "pkg"`, `import("pkg")`, `require("pkg")`.
var declaredImport = regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"'./][^"']*)["']`)

// importedPackageDepth bounds how many imports away from a dependency an
// imported package may be: vitest imports @vitest/expect, which imports
// chai, typed by @types/chai, whose global Chai namespace declares the
// Assertion vitest's extends.
const importedPackageDepth = 3

// importedPackages adds the packages that the entry declaration files of
// the libraries found so far import, and those their own entry files
// import, importedPackageDepth levels down.
func (f *Found) importedPackages() {
	have := map[string]bool{}
	var level []Library
	for _, l := range f.Libraries {
		if l.Lang == "node" {
			have[l.Module] = true
			if l.declarations && !l.linked {
				level = append(level, l)
			}
		}
	}
	added := 0
	for range importedPackageDepth {
		var next []Library
		for _, l := range level {
			for _, lib := range f.packagesImportedBy(l, have, &added) {
				if lib.declarations {
					next = append(next, lib)
				}
			}
		}
		level = next
	}
}

// packagesImportedBy adds the packages the entry files of l import that
// are not had yet, and returns them.
func (f *Found) packagesImportedBy(l Library, have map[string]bool, added *int) []Library {
	var out []Library
	take := func(lib Library) {
		f.Libraries = append(f.Libraries, lib)
		out = append(out, lib)
		*added++
	}
	for _, file := range l.NodeEntryFiles("") {
		src, err := os.ReadFile(file)
		if err != nil || len(src) > 4<<20 {
			continue
		}
		for _, m := range declaredImport.FindAllSubmatch(src, -1) {
			name, _ := NodePackageName(string(m[1]))
			if name == "" || have[name] || strings.HasPrefix(name, "node:") || *added >= maxImportedPackages {
				continue
			}
			have[name] = true
			lib, skip := nodePackageNear(l.Dir, name)
			if skip == nil {
				take(lib)
			}
			// A package without declarations is typed by its @types
			// package, as TypeScript resolves it: @vitest/expect's
			// `import * as chai from 'chai'` reads @types/chai.
			if types := typesPackageName(name); (skip != nil || !lib.declarations) && !have[types] {
				if lib, skip := nodePackageNear(l.Dir, types); skip == nil {
					have[types] = true
					take(lib)
				}
			}
		}
	}
	return out
}

// nodePackageNear finds package name as Node resolves it from a package's
// folder: in the node_modules of that folder or of a folder above it.
func nodePackageNear(dir, name string) (Library, *Skip) {
	for d := dir; ; {
		nm := filepath.Join(d, "node_modules")
		if _, err := os.Stat(filepath.Join(nm, filepath.FromSlash(name), "package.json")); err == nil {
			return nodePackage(nm, name)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Library{}, &Skip{Library: name, Reason: NotInstalled}
		}
		d = parent
	}
}

// typesPackageName is the DefinitelyTyped package of a package name:
// @types/chai for chai, @types/babel__core for @babel/core.
func typesPackageName(name string) string {
	if scope, pkg, ok := strings.Cut(strings.TrimPrefix(name, "@"), "/"); ok && strings.HasPrefix(name, "@") {
		return "@types/" + scope + "__" + pkg
	}
	return "@types/" + name
}
