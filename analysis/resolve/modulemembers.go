package resolve

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// inModule resolves `q.name` where q is an imported module or package
// (`fmt.Println`, `os.path.join`, `sample.greet`).
func (r *Resolver) inModule(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	// `unsafe.Pointer` resolves the same way wherever it is in the file.
	c := memo(&r.mu, r.modules, moduleKey{f.Path, ref.Qualifier, ref.Name, ref.Role}, func(moduleKey) []Candidate {
		return r.resolveInModule(f, ref)
	})
	return slices.Clone(c)
}

// moduleKey is what the resolution of a name in a module depends on.
type moduleKey struct {
	path, qualifier, name string
	role                  analysis.Role
}

func (r *Resolver) resolveInModule(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if out, ok := r.rustInCrate(f, ref); ok && len(out) > 0 {
		return out
	}
	for _, imp := range f.Imports {
		// An alias hides the name the import would otherwise bring in.
		local := cmp.Or(imp.Alias, imp.Name)
		if f.Lang == "go" {
			local = goImportName(imp)
		}
		if ref.Qualifier != imp.Path && ref.Qualifier != local {
			continue
		}
		if f.Lang == "go" && !strings.HasPrefix(imp.Path, ".") {
			if out := r.goImportMember(imp.Path, ref.Name, ref.Role); len(out) > 0 {
				return out
			}
			continue
		}
		if f.Lang == "go" {
			if out, ok := r.goPackageMember(imp.Path, ref.Name, ref.Role); ok {
				return out
			}
		}
		// A namespace import of a node package: its entry points first.
		if out, ok := r.nodeImported(f, ref.Name, imp.Path, ref.Role, confImport, 0); ok && len(out) > 0 {
			return out
		}
		if out := r.ambientImported(f.Lang, ref.Name, imp.Path, ref.Role, confImport); len(out) > 0 {
			return out // `import * as fs from "node:fs"` of @types/node's `declare module "fs"`
		}
		// Methods (Go, extensions, impls) are not reached through a package.
		if out := withoutReceivers(r, r.topLevelIn(f.Lang, imp.Path, ref.Name, ref.Role, confImport)); len(out) > 0 {
			return r.moduleBound(f, ref, imp.Path, out)
		}
		var out []Candidate
		for _, id := range r.defs(ref.Name) {
			if id.Nested || id.Lang != f.Lang || f.Lang == "go" && id.Kind == analysis.KindMethod ||
				!moduleMatches(f.Path, id.Path, imp.Path) || f.Lang == "python" && !r.pythonRooted(f.Path, id.Path, imp.Path) {
				continue
			}
			g, d, ok := r.entry(id.DefID)
			// An inline object type's property is no member of a module.
			if ok && d.Container == analysis.None && d.Receiver == "" && g.Lang == f.Lang && (d.Scope == 0 || !ecmaLang(f.Lang)) {
				out = r.add(out, id.Path, id.Index, confImport, ViaImport, ref.Role)
			}
		}
		if len(out) > 0 {
			return r.moduleBound(f, ref, imp.Path, out)
		}
		if f.Lang == "go" {
			if out := r.goImported(imp.Path, ref.Name, ref.Role); len(out) > 0 {
				return out
			}
		}
		if out := r.reexported(f, ref.Name, imp.Path, ref.Role, confImport, 1); len(out) > 0 {
			return out
		}
	}
	if f.Lang == "python" {
		if out := r.inPythonModule(f, ref); len(out) > 0 {
			return out
		}
	}
	return r.topLevelIn(f.Lang, ref.Qualifier, ref.Name, ref.Role, confImport)
}

// moduleBound is what a module binds of the declarations found for
// module.name: in Python, those of the file the import loads, or a later
// import over them.
func (r *Resolver) moduleBound(f *analysis.FileFacts, ref analysis.Ref, module string, found []Candidate) []Candidate {
	if f.Lang != "python" {
		return found
	}
	found = r.pythonLoaded(f, module, found)
	if later := r.laterImport(r.file(found[0].Def.Path), ref, found); len(later) > 0 {
		return later
	}
	return found
}

// GoPackages is what a workspace knows of where Go packages live: the
// module paths of its go.mod files and of the libraries it holds.
type GoPackages interface {
	// GoPackageDirs maps an import path to the folders holding its
	// package; ok is false when no module the workspace knows serves it.
	GoPackageDirs(importPath string) (dirs []string, ok bool)
}

// goPackageMember finds a top-level name of the Go package imported as
// importPath in the folders the workspace maps the import path to. ok is
// false when the workspace cannot map it (resolution then guesses from
// folder names) or the package there lacks the name.
func (r *Resolver) goPackageMember(importPath, name string, role analysis.Role) ([]Candidate, bool) {
	a := r.goImport(goImportKey{importPath, name, role, lookupPackageMember}, func() goImportAnswer {
		out, ok := r.lookupGoPackageMember(importPath, name, role)
		return goImportAnswer{out, ok}
	})
	return a.c, a.ok
}

// goImportMember is what resolveInModule finds of name through a Go import
// of a package by its path (not "./x"): what goPackageMember finds, else a
// top-level name of a package matching the path. It does not depend on the
// importing file, so the files importing a package share it: each lookup
// reads every definition of the name in the workspace, and the files that
// ask grow with it too.
func (r *Resolver) goImportMember(importPath, name string, role analysis.Role) []Candidate {
	return r.goImport(goImportKey{importPath, name, role, lookupImportMember}, func() goImportAnswer {
		if out, ok := r.goPackageMember(importPath, name, role); ok {
			return goImportAnswer{c: out}
		}
		if out := withoutReceivers(r, r.topLevelIn("go", importPath, name, role, confImport)); len(out) > 0 {
			return goImportAnswer{c: out}
		}
		var out []Candidate
		for _, id := range r.defs(name) {
			if id.Nested || id.Lang != "go" || id.Kind == analysis.KindMethod || !moduleMatches("", id.Path, importPath) {
				continue
			}
			g, d, ok := r.entry(id.DefID)
			if ok && d.Container == analysis.None && d.Receiver == "" && g.Lang == "go" {
				out = r.add(out, id.Path, id.Index, confImport, ViaImport, role)
			}
		}
		if len(out) > 0 {
			return goImportAnswer{c: out}
		}
		return goImportAnswer{c: r.goImported(importPath, name, role)}
	}).c
}

// goImportKey is what goImportMember's, goPackageMember's and goImported's
// answers depend on.
type goImportKey struct {
	importPath, name string
	role             analysis.Role
	lookup           goImportLookup
}

type goImportLookup uint8

const (
	lookupImportMember goImportLookup = iota
	lookupPackageMember
	lookupImported
)

type goImportAnswer struct {
	c  []Candidate
	ok bool
}

// goImport returns the memoized answer for key, made by lookup the first
// time; a copy, which the caller may change.
func (r *Resolver) goImport(key goImportKey, lookup func() goImportAnswer) goImportAnswer {
	a := memo(&r.mu, r.goImports, key, func(goImportKey) goImportAnswer { return lookup() })
	a.c = slices.Clone(a.c)
	return a
}

func (r *Resolver) lookupGoPackageMember(importPath, name string, role analysis.Role) ([]Candidate, bool) {
	gp, ok := r.ws.(GoPackages)
	if !ok {
		return nil, false
	}
	dirs, ok := gp.GoPackageDirs(importPath)
	if !ok {
		return nil, false
	}
	keys := make([]string, len(dirs))
	for i, d := range dirs {
		if keys[i] = d + "/"; d == "." {
			keys[i] = ""
		}
	}
	var out []Candidate
	for _, id := range r.topLevelInDirs(name, keys...) {
		if id.Lang != "go" || id.Nested || id.Kind == analysis.KindMethod || !slices.Contains(dirs, filepath.Dir(id.Path)) {
			continue
		}
		if _, d, ok := r.entry(id.DefID); ok && d.Container == analysis.None && d.Receiver == "" {
			out = r.add(out, id.Path, id.Index, confImport, ViaImport, role)
		}
	}
	return out, len(out) > 0
}

// goImported finds a top-level name of the Go package imported as
// importPath. Without the module path from go.mod, the package is the
// directory whose trailing path segments match the import path the
// longest, then the one nearest the root: "example.com/app/legacy/geo" is
// legacy/geo and "example.com/app/geo" is geo, not legacy/geo.
func (r *Resolver) goImported(importPath, name string, role analysis.Role) []Candidate {
	return r.goImport(goImportKey{importPath, name, role, lookupImported}, func() goImportAnswer {
		return goImportAnswer{c: r.lookupGoImported(importPath, name, role)}
	}).c
}

func (r *Resolver) lookupGoImported(importPath, name string, role analysis.Role) []Candidate {
	segs := strings.Split(importPath, "/")
	var out []Candidate
	bestScore, bestRest := 0, 0
	for _, id := range r.defs(name) {
		// The name table and directory tests first: they spare decoding
		// the files of common names.
		if id.Lang != "go" || id.Nested || id.Kind == analysis.KindMethod {
			continue
		}
		score, rest := matchDirSegments(segs, path.Dir(filepath.ToSlash(id.Path)))
		if score == 0 || score < bestScore || score == bestScore && rest > bestRest {
			continue
		}
		g, d, ok := r.entry(id.DefID)
		if !ok || g.Lang != "go" || d.Container != analysis.None || d.Receiver != "" {
			continue
		}
		if score > bestScore || rest < bestRest {
			out, bestScore, bestRest = out[:0], score, rest
		}
		out = r.add(out, id.Path, id.Index, confImport, ViaImport, role)
	}
	return out
}

// matchDirSegments counts the trailing segments of dir (split at "/") that
// equal those of segs, and the segments of dir before them, without
// splitting dir: goImported asks for every definition of a name. A
// module's major version ("/v3") names no package: matching it alone
// scores nothing.
func matchDirSegments(segs []string, dir string) (score, rest int) {
	end, whole := len(dir), false
	for !whole {
		start := strings.LastIndexByte(dir[:end], '/') + 1
		if score >= len(segs) || segs[len(segs)-1-score] != GoDirName(dir[start:end]) {
			break
		}
		score++
		whole, end = start == 0, start-1
	}
	switch {
	case score == 1 && isMajorVersion(segs[len(segs)-1]):
		return 0, 0
	case whole:
		return score, 0
	}
	return score, strings.Count(dir[:end], "/") + 1
}

// GoDirName is the import path segment that names a folder: a module
// cache folder is named path@version.
func GoDirName(base string) string {
	if at := strings.IndexByte(base, '@'); at > 0 {
		return base[:at]
	}
	return base
}

// withoutReceivers drops methods declared outside their type.
func withoutReceivers(r *Resolver, c []Candidate) []Candidate {
	out := c[:0]
	for _, x := range c {
		if _, d, ok := r.entry(x.Def); ok && d.Receiver == "" {
			out = append(out, x)
		}
	}
	return out
}
