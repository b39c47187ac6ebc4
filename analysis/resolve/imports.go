// Names brought in by imports, wildcard imports and re-exports.

package resolve

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// explicitImport follows the file's import that brings the name in by name
// or by alias.
func (r *Resolver) explicitImport(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if f.Lang == "go" {
		// A Go import brings in a package, not a declaration of the
		// package its path is under: "runtime/debug" names no debug of
		// runtime.
		return nil
	}
	for _, imp := range f.Imports {
		local := cmp.Or(imp.Alias, imp.Name)
		if f.Lang == "python" && imp.Path == imp.Name {
			continue // `import x (as y)` binds a module, not a declaration named x
		}
		if !imp.Wildcard && local == ref.Name {
			return r.imported(f, imp.Name, importModule(imp), ref.Role, confImport)
		}
	}
	return nil
}

// wildcardImports looks for the name in the packages the file imports whole.
func (r *Resolver) wildcardImports(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if f.Lang == "go" {
		return r.goDotImported(f, ref)
	}
	var out []Candidate
	for _, imp := range f.Imports {
		if imp.Wildcard && !r.pythonUnreachable(f, imp.Span.Start) {
			out = append(out, r.imported(f, ref.Name, imp.Path, ref.Role, confWildcard)...)
		}
	}
	return out
}

// goDotImported looks for the name among the exported top-level names of
// the packages a Go file dot-imports, found by import path as a selector
// through the import would be: a dot import brings in nothing else, so a
// lower-case name is never one of them (sync/atomic_test.go's dot import
// had every bare lower-case name of the file found in sync/atomic).
func (r *Resolver) goDotImported(f *analysis.FileFacts, ref analysis.Ref) []Candidate {
	if !exported(ref.Name) {
		return nil
	}
	var out []Candidate
	for _, imp := range f.Imports {
		if !imp.Wildcard {
			continue
		}
		for _, c := range r.goImportMember(imp.Path, ref.Name, ref.Role) {
			out = r.add(out, c.Def.Path, c.Def.Index, confWildcard, ViaImport, ref.Role)
		}
	}
	return out
}

// importModule is the package or module an import takes its name from:
// the path without its last segment.
func importModule(imp analysis.Import) string {
	rest := strings.TrimSuffix(imp.Path, imp.Name)
	if rest != "" && strings.Trim(rest, ".") == "" {
		return rest // Python's `from . import x`: the package beside the file
	}
	return strings.TrimRight(rest, "./:")
}

// imported finds the top-level declaration name of an imported package or
// module: one declared in package pkg, or in a file whose path ends like the
// module path.
func (r *Resolver) imported(f *analysis.FileFacts, name, pkg string, role analysis.Role, conf float64) []Candidate {
	// Every reference through an import asks again; the answer depends on
	// the file, not on where in it the reference is.
	c := memo(&r.mu, r.imports, importKey{f.Path, name, pkg, role, conf}, func(importKey) []Candidate {
		return r.importedFrom(f, name, pkg, role, conf, 0)
	})
	return slices.Clone(c)
}

// importKey is what the resolution of an imported name depends on.
type importKey struct {
	path, name, pkg string
	role            analysis.Role
	conf            float64
}

// importedFrom is imported after depth re-export hops.
func (r *Resolver) importedFrom(f *analysis.FileFacts, name, pkg string, role analysis.Role, conf float64, depth int) []Candidate {
	if depth <= maxDepth {
		if out, _ := r.nodeImportedName(f, name, pkg, role, conf, depth); len(out) > 0 {
			return out
		}
		if out := r.ambientImported(f.Lang, name, pkg, role, conf); len(out) > 0 {
			return out
		}
		if out, ok := r.rustImported(f, name, pkg, role, conf, depth); ok && len(out) > 0 {
			return out
		}
	}
	if f.Lang == "python" && strings.Trim(pkg, ".") == "" {
		// `from . import x`: the package's own __init__ declares x (a
		// submodule x is bound before this is asked).
		return r.declaredAtTopOf(r.moduleFiles(f.Path, pkg), name, role, conf, depth)
	}
	out := r.topLevelIn(f.Lang, pkg, name, role, conf)
	if f.Lang == "python" {
		// typing_extensions.pyi declares assert_type under `else:` of a
		// version check whose `if` imports typing's: the declaration the
		// interpreter has, or the import, not a dead one.
		out = r.withoutUnreachable(out)
	}
	if len(out) > 0 {
		return r.pythonLoaded(f, pkg, out)
	}
	for _, id := range r.defs(name) {
		// The name table and path tests first: they spare decoding the
		// files of common names.
		if id.Nested || !sameFamily(id.Lang, f.Lang) || !moduleMatches(f.Path, id.Path, pkg) ||
			f.Lang == "python" && !r.pythonRooted(f.Path, id.Path, pkg) {
			continue
		}
		if g, d, ok := r.entry(id.DefID); ok && d.Container == analysis.None && sameFamily(g.Lang, f.Lang) {
			out = r.add(out, id.Path, id.Index, conf, ViaImport, role)
		}
	}
	out = r.pythonLoaded(f, pkg, out)
	if f.Lang == "python" {
		out = r.withoutUnreachable(out)
	}
	if len(out) == 0 {
		out = r.typeMembers(f, name, pkg, role, conf, depth+1)
	}
	if len(out) == 0 {
		out = r.reexported(f, name, pkg, role, conf, depth+1)
	}
	if len(out) == 0 && ecmaLang(f.Lang) && strings.HasPrefix(pkg, ".") && depth == 0 {
		// A default import of a module whose default has no name of its
		// own (zod's locales: `export default function () {…}`).
		out = r.defaultExported(r.relativeModuleFilesOf(f.Path, pkg), role, conf)
	}
	return out
}

// typeMembers finds name among the members of the type that a path such as
// "com.acme.Format" names: Java's static imports and Kotlin's imports of
// object members.
func (r *Resolver) typeMembers(f *analysis.FileFacts, name, typePath string, role analysis.Role, conf float64, depth int) []Candidate {
	pkg, typeName := splitQualifier(typePath)
	if pkg == "" || !isName(typePath) {
		return nil
	}
	var out []Candidate
	for _, t := range r.topLevelIn(f.Lang, pkg, typeName, analysis.RoleType, conf) {
		out = append(out, r.members(t.Def, name, role, conf, depth+1)...)
	}
	if len(out) == 0 && overloadLangs[f.Lang] {
		out = r.nestedTypeMembers(f, name, pkg, typeName, role, conf, depth)
	}
	if len(out) == 0 && f.Lang == "java" {
		// A static import from a Kotlin file's facade class.
		out = r.facadeMembers(f, analysis.Ref{Name: name, Qualifier: typePath, Role: role})
	}
	return out
}

// reexported follows a relative module that declares no such name to the
// module it passes the name on from: `export {a as name} from "./b"` or
// `export * from "./b"` in the module file or its index file.
func (r *Resolver) reexported(f *analysis.FileFacts, name, module string, role analysis.Role, conf float64, depth int) []Candidate {
	if depth > maxDepth {
		return nil
	}
	var files []string
	if f.Lang == "python" {
		// A package's __init__ passes on names from absolute imports too
		// (pytest.raises is _pytest.python_api's).
		files = r.moduleFiles(f.Path, module)
	} else if strings.HasPrefix(module, ".") {
		files = r.relativeModuleFilesOf(f.Path, module)
	}
	return r.reexportedIn(files, name, role, conf, depth)
}

// reexportedIn follows the re-exports of name in files.
func (r *Resolver) reexportedIn(files []string, name string, role analysis.Role, conf float64, depth int) []Candidate {
	if depth > maxDepth {
		return nil
	}
	var out []Candidate
	for _, p := range files {
		g := r.file(p)
		if g == nil {
			continue
		}
		for _, imp := range g.Imports {
			if r.pythonUnreachable(g, imp.Span.Start) {
				continue // typeshed's os/path.pyi: `from ntpath import *` under sys.platform == "win32"
			}
			if imp.Path == "" && imp.Alias == name && ecmaLang(g.Lang) {
				return r.declaredLocally([]string{p}, imp.Name, role, conf, depth+1) // `export { a as name }`
			}
			if !imp.Wildcard && cmp.Or(imp.Alias, imp.Name) == name {
				// A Python module may try several imports of the name
				// (simplejson's, else json's): the one that resolves.
				if c := r.passedOnFrom(g, p, importModule(imp), imp.Name, role, conf, depth); len(c) > 0 || g.Lang != "python" {
					return c
				}
			}
		}
		for _, imp := range g.Imports {
			if imp.Wildcard && !r.pythonUnreachable(g, imp.Span.Start) {
				out = append(out, r.passedOnFrom(g, p, imp.Path, name, role, conf, depth)...)
			}
		}
	}
	return out
}

// topLevelIn finds top-level declarations named name in package pkg. The
// name tables say which files declare the name at all: only those of them
// in the package are decoded, not every file of the package (syscall has
// hundreds).
func (r *Resolver) topLevelIn(lang, pkg, name string, role analysis.Role, conf float64) []Candidate {
	var out []Candidate
	files := r.packageFiles(lang, pkg)
	for _, e := range r.topLevelInDirs(name, r.packageDirs(lang, pkg)...) {
		if e.Nested || !sameFamily(e.Lang, lang) {
			continue
		}
		if !files[e.Path] {
			continue
		}
		if g := r.file(e.Path); g != nil && g.Defs[e.Index].Container == analysis.None {
			out = r.add(out, e.Path, e.Index, conf, ViaImport, role)
		}
	}
	return out
}

// packageFiles is the set of files of a package, made once per resolver.
func (r *Resolver) packageFiles(lang, pkg string) map[string]bool {
	return memo(&r.mu, r.packages, [2]string{lang, pkg}, func(key [2]string) map[string]bool {
		paths := r.ws.FilesInPackage(key[0], key[1])
		if other := jvmPartner(key[0]); other != "" {
			// Kotlin and Java classes of one package see each other.
			paths = append(slices.Clip(paths), r.ws.FilesInPackage(other, key[1])...)
		}
		set := make(map[string]bool, len(paths))
		for _, p := range paths {
			set[p] = true
		}
		return set
	})
}

// moduleMatches reports whether an import path such as "pkg.mod", "./mod",
// "crate::a::b" or "example.com/x/y" names the file target, imported from
// the file from.
func moduleMatches(from, target, importPath string) bool {
	if importPath == "" {
		return false
	}
	if strings.HasPrefix(importPath, ".") && strings.Contains(importPath, "/") {
		importPath = path.Join(path.Dir(from), importPath)
		// ES modules name files with their extension: "./date.js", which
		// a declaration file date.d.ts describes.
		t := strings.TrimSuffix(stripExt(target), ".d")
		return t == importPath || t == stripExt(importPath) || path.Dir(target) == importPath
	}
	segs := strings.FieldsFunc(importPath, func(r rune) bool { return r == '.' || r == '/' || r == ':' })
	if len(segs) > 0 && (segs[0] == "self" || segs[0] == "super") && path.Ext(from) == ".rs" {
		return rustRelative(from, target, segs)
	}
	if len(segs) > 0 && segs[0] == "crate" {
		segs = segs[1:]
	}
	if len(segs) == 0 {
		return false
	}
	suffix := "/" + strings.Join(segs, "/")
	t := "/" + stripExt(target)
	if strings.HasSuffix(target, ".pyi") {
		t = stubPackageAsModule(t, segs[0])
	}
	return strings.HasSuffix(t, suffix) || strings.HasSuffix(path.Dir(t), suffix) ||
		strings.HasSuffix(t, suffix+"/__init__") || strings.HasSuffix(t, suffix+"/mod")
}

// rustRelative reports whether a Rust path starting with self:: or super::
// names the file target, seen from the file from.
func rustRelative(from, target string, segs []string) bool {
	mod := stripExt(from)
	switch path.Base(mod) {
	case "mod", "lib", "main":
		mod = path.Dir(mod)
	}
	for len(segs) > 0 && (segs[0] == "self" || segs[0] == "super") {
		if segs[0] == "super" {
			mod = path.Dir(mod)
		}
		segs = segs[1:]
	}
	want := path.Join(append([]string{mod}, segs...)...)
	t := stripExt(target)
	switch path.Base(t) {
	case "mod", "lib", "main":
		t = path.Dir(t)
	}
	return t == want
}

func stripExt(p string) string { return strings.TrimSuffix(p, path.Ext(p)) }

// pythonLoaded keeps, of the declarations found for `from pkg import name`
// in several copies of pkg, those of the copy the import loads: the
// workspace's src/click before an installed click, as pyright resolves
// local code before site-packages.
func (r *Resolver) pythonLoaded(f *analysis.FileFacts, pkg string, c []Candidate) []Candidate {
	if f.Lang != "python" || len(c) < 2 {
		return c
	}
	if kept := r.inImportedModuleFile(f.Path, pkg, c); len(kept) < len(c) {
		return kept
	}
	// Passed on by the package (click/__init__.py's `from .testing import
	// CliRunner`): the declarations inside the loaded package's folder.
	files := r.moduleFiles(f.Path, pkg)
	if len(files) == 0 || strings.TrimSuffix(path.Base(files[0]), path.Ext(files[0])) != "__init__" {
		return c
	}
	dir := path.Dir(files[0]) + "/"
	if kept := slices.DeleteFunc(slices.Clone(c), func(x Candidate) bool { return !strings.HasPrefix(x.Def.Path, dir) }); len(kept) > 0 {
		return kept
	}
	return c
}
