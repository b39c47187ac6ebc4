package resolve

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Python modules as targets: a name bound by `import a.b`, `import a as m`
// or `from pkg import mod` (mod a submodule) denotes the module's file, as
// does the module path in the import statement itself.

// ModuleAt is the file of the Python module the name at offset denotes
// when no declaration does: `click` in `click.echo()` after `import click`
// is src/click/__init__.py. Stubs (.pyi) are preferred over sources, and a
// module near file over a same-named one farther away.
func (r *Resolver) ModuleAt(file string, offset int) (string, bool) {
	f := r.file(file)
	if f == nil || f.Lang != "python" {
		return "", false
	}
	i := refAt(f, offset)
	if i == analysis.None || r.pythonUnreachable(f, offset) {
		return "", false
	}
	if ref := f.Refs[i]; ref.Qualifier == "" && moduleAttributes[ref.Name] && len(r.unqualified(f, ref, 0)) == 0 {
		return file, true // __name__, __doc__: the module's own
	}
	module := r.moduleNamed(f, f.Refs[i])
	if module == "" {
		return "", false
	}
	files := r.moduleFiles(file, module)
	if len(files) == 0 {
		return "", false
	}
	return files[0], true
}

// moduleNamed is the dotted module path a reference names, or "".
func (r *Resolver) moduleNamed(f *analysis.FileFacts, ref analysis.Ref) string {
	if ref.Role&analysis.RoleImport != 0 {
		// In the import statement: the path up to this segment.
		for _, imp := range f.Imports {
			if imp.Span.Contains(ref.Span.Start) && !imp.Wildcard {
				return importedUpTo(imp.Path, ref.Name)
			}
		}
		return ""
	}
	if ref.Qualifier != "" {
		// q.name where q denotes a module: a submodule q.name, if any file is.
		head, rest, _ := strings.Cut(ref.Qualifier, ".")
		base := r.moduleBinding(f, head)
		if base == "" {
			return ""
		}
		if rest != "" {
			base += "." + rest
		}
		return base + "." + ref.Name
	}
	if c := r.unqualified(f, ref, 0); len(c) > 0 {
		if kept, ok := r.pythonSubmoduleImport(f, ref, c); !ok || len(kept) > 0 {
			return "" // a declaration or an imported name shadows the module
		}
	}
	return r.moduleBinding(f, ref.Name)
}

// moduleBinding is the module the file's imports bind to the plain name,
// or "".
func (r *Resolver) moduleBinding(f *analysis.FileFacts, name string) string {
	for _, imp := range f.Imports {
		if imp.Wildcard {
			continue
		}
		switch {
		case imp.Alias == name:
			return imp.Path // import a.b as name, from a import b as name
		case imp.Alias == "" && imp.Path == name:
			return name // import name
		case imp.Alias == "" && strings.HasPrefix(imp.Path, name+".") && imp.Name != name:
			// import name.sub binds name; `from datetime import datetime`
			// (path datetime.datetime too) binds the class, below.
			return name
		case imp.Alias == "" && imp.Name == name && strings.HasSuffix(imp.Path, "."+name):
			return imp.Path // from pkg import name: a submodule when no declaration is
		}
	}
	return ""
}

// importedUpTo cuts a dotted import path after the segment seg ("os.path",
// "os" → "os"); relative paths keep their leading dots.
func importedUpTo(importPath, seg string) string {
	dots := len(importPath) - len(strings.TrimLeft(importPath, "."))
	parts := strings.Split(importPath[dots:], ".")
	for i, p := range parts {
		if p == seg {
			return importPath[:dots] + strings.Join(parts[:i+1], ".")
		}
	}
	return importPath
}

// PythonModuleFiles lists the files of the module a dotted qualifier
// denotes in file (click, os.path, an alias of either), best first.
func (r *Resolver) PythonModuleFiles(file, qualifier string) []string {
	f := r.file(file)
	if f == nil || f.Lang != "python" {
		return nil
	}
	head, rest, _ := strings.Cut(qualifier, ".")
	module := r.moduleBinding(f, head)
	if module == "" {
		return nil
	}
	if rest != "" {
		module += "." + rest
	}
	return r.moduleFiles(file, module)
}

// PythonModulePath lists the files of a dotted module path as an import
// in file names it (relative ones from file's folder), best first.
func (r *Resolver) PythonModulePath(file, module string) []string {
	return r.moduleFiles(file, module)
}

// moduleFiles lists the files that may be the module, best first. A
// dotted module no file is may be a name its parent binds to another
// module: os.path is posixpath, by os's `import posixpath as path`, and
// .compat.chardet is chardet, by compat's `import chardet`.
func (r *Resolver) moduleFiles(from, module string) []string {
	return r.moduleFilesAt(from, module, 0)
}

func (r *Resolver) moduleFilesAt(from, module string, depth int) []string {
	out := r.moduleFilesNamed(from, module)
	i := strings.LastIndexByte(module, '.')
	if len(out) > 0 || depth >= 3 || i <= 0 || strings.Trim(module[:i], ".") == "" {
		return out // found, too deep, or a module alone (os, .compat) that no parent binds
	}
	parent, name := module[:i], module[i+1:]
	for _, p := range r.moduleFilesAt(from, parent, depth+1) {
		g := r.file(p)
		if g == nil {
			continue
		}
		if bound := r.moduleBinding(g, name); bound != "" && bound != module {
			if out = r.moduleFilesAt(p, bound, depth+1); len(out) > 0 {
				return out
			}
		}
		break // the parent's first file is the module
	}
	return nil
}

func (r *Resolver) moduleFilesNamed(from, module string) []string {
	if strings.HasPrefix(module, ".") {
		var out []string
		for _, p := range moduleCandidates(relativeModule(from, module)) {
			if r.file(p) != nil {
				out = append(out, p)
			}
		}
		return out
	}
	segs := strings.Split(module, ".")
	suffix := "/" + strings.Join(segs, "/")
	var out []string
	for _, p := range r.pythonModules()[segs[len(segs)-1]] {
		m := stubPackageAsModule(stripExt(p), segs[0])
		top := strings.TrimSuffix(m, suffix)
		if top == m {
			if top = strings.TrimSuffix(m, suffix+"/__init__"); top == m {
				continue
			}
		}
		// The module's first segment must sit in a folder of the import
		// path, not in a package: pip/_vendor/rich/json.py is not json.
		if r.file(top+"/__init__.py") == nil && r.file(top+"/__init__.pyi") == nil && r.pythonImportRoot(from, p, top) {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		// The nearest (the most leading folders shared with from), then
		// stubs before sources.
		return cmp.Or(cmp.Compare(sharedDirs(b, from), sharedDirs(a, from)), cmp.Compare(path.Ext(b), path.Ext(a)))
	})
	return out
}

// inImportedModuleFile keeps, of the declarations found in the files of a
// Python module's package, those of the file the import loads when it
// declares any: the nearest, a stub before a source (re.pyi's compile, not
// re/__init__.py's, wherever either lies).
func (r *Resolver) inImportedModuleFile(from, module string, c []Candidate) []Candidate {
	if len(c) < 2 {
		return c
	}
	for _, p := range r.moduleFiles(from, module) {
		if kept := slices.DeleteFunc(slices.Clone(c), func(x Candidate) bool { return x.Def.Path != p }); len(kept) > 0 {
			return kept
		}
	}
	return c
}

// moduleCandidates are the files a module at base may be, stubs first.
func moduleCandidates(base string) []string {
	return []string{base + ".pyi", base + ".py", base + "/__init__.pyi", base + "/__init__.py"}
}

func sharedDirs(a, b string) int {
	n := 0
	for {
		x, restA, okA := strings.Cut(a, "/")
		y, restB, okB := strings.Cut(b, "/")
		if !okA || !okB || x != y {
			return n
		}
		n++
		a, b = restA, restB
	}
}

// pythonModules maps a module's last name (the file's base name, or its
// package folder's for __init__) to the Python files with it, built once per
// resolver.
func (r *Resolver) pythonModules() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pyModules != nil {
		return r.pyModules
	}
	r.pyModules = map[string][]string{}
	for _, p := range r.ws.Files() {
		ext := path.Ext(p)
		if ext != ".py" && ext != ".pyi" {
			continue
		}
		name := strings.TrimSuffix(path.Base(p), ext)
		if name == "__init__" {
			name = strings.TrimSuffix(path.Base(path.Dir(p)), "-stubs")
		}
		r.pyModules[name] = append(r.pyModules[name], p)
	}
	return r.pyModules
}

// pythonRooted reports whether file may belong to the dotted module
// imported in from (as the module itself or a file inside its package): a
// relative module is the one beside from; an absolute one sits under an
// import-path folder, the folder above its first segment no package, so
// pip/_vendor/requests/models.py is not requests.models.
func (r *Resolver) pythonRooted(from, file, module string) bool {
	if module == "" {
		return true
	}
	if strings.HasPrefix(module, ".") {
		// Relative: the module beside from (or above it), nowhere else.
		base := relativeModule(from, module)
		m := stripExt(file)
		return m == base || m == base+"/__init__" || path.Dir(file) == base
	}
	suffix := "/" + strings.ReplaceAll(module, ".", "/")
	first, _, _ := strings.Cut(module, ".")
	m := stubPackageAsModule(stripExt(file), first)
	i := strings.LastIndex(m, suffix)
	if i < 0 {
		return true // matched some other way: not this rule's to judge
	}
	top := m[:i]
	return r.file(top+"/__init__.py") == nil && r.file(top+"/__init__.pyi") == nil && r.pythonImportRoot(from, file, top)
}

// WorkspaceRoots is what a workspace knows of its roots, apart from the
// libraries it holds.
type WorkspaceRoots interface {
	Roots() []string
	InWorkspace(path string) bool
}

// pythonImportRoot reports whether an absolute import in file from may find
// its module's file in folder top (where its first segment sits), as
// pyright searches. pyright's roots are the workspace root, its src folder,
// the folders from the importing file's up to the root, and the libraries
// (site-packages, the standard library), so a nested project's src folder
// (examples/celery/src) is none for examples/celery/make_celery.py. Only
// src folders are held to that: kast also reads stand-ins of libraries laid
// out in folders of the workspace. Without roots every folder may be one.
func (r *Resolver) pythonImportRoot(from, file, top string) bool {
	wr, ok := r.ws.(WorkspaceRoots)
	if !ok || path.Base(top) != "src" || !wr.InWorkspace(from) || !wr.InWorkspace(file) {
		return true
	}
	dir := path.Dir(from)
	for _, root := range wr.Roots() {
		if top == root+"/src" || strings.HasPrefix(top, root+"/") && (dir == top || strings.HasPrefix(dir, top+"/")) {
			return true
		}
	}
	return false
}

// relativeModule is the path, without extension, of a relative module
// (".models", "..util") imported in from.
func relativeModule(from, module string) string {
	dir := path.Dir(from)
	rest := strings.TrimLeft(module, ".")
	for range len(module) - len(rest) - 1 {
		dir = path.Dir(dir)
	}
	return path.Join(dir, strings.ReplaceAll(rest, ".", "/"))
}

// stubPackageAsModule reads a file path without extension inside a PEP 561
// stub package (simplejson-stubs/errors, installed by types-simplejson or
// Debian's python3-typeshed) as the module path it declares
// (simplejson/errors), first being the module's first segment; other paths
// are returned as they are. Type checkers take such a package before the
// package itself, as kast takes a stub before a source.
func stubPackageAsModule(p, first string) string {
	dir := "/" + first + "-stubs"
	i := strings.LastIndex(p, dir)
	if i < 0 {
		return p
	}
	if j := i + len(dir); j == len(p) || p[j] == '/' {
		return p[:i] + "/" + first + p[j:]
	}
	return p
}
