package semantic

import (
	"bufio"

	"github.com/kast-dev/kast/analysis"
	"os"
	"path/filepath"
	"strings"
)

// unresolvedImports reports imports of the workspace's own code that name
// nothing there: a Go package of the file's own module whose folder holds
// no Go file, a TypeScript relative module with no file. Imports of other
// modules and packages are a library's business, which kast does not judge.
func (c *checker) unresolvedImports() {
	switch c.f.Lang {
	case "go":
		mod, root := goModule(filepath.Dir(c.f.Path))
		if mod == "" {
			return
		}
		for _, imp := range c.f.Imports {
			rest, ok := strings.CutPrefix(imp.Path, mod)
			if !ok || rest != "" && rest[0] != '/' {
				continue
			}
			if !hasGoFiles(filepath.Join(root, filepath.FromSlash(rest))) {
				c.report(imp.Span, Error, CodeUnresolvedImport, "unresolved import: no package "+imp.Path+" in module "+mod)
			}
		}
	case "python":
		for _, imp := range c.f.Imports {
			dir, module, ok := pythonRelative(filepath.Dir(c.f.Path), imp)
			if ok && !moduleExists(filepath.Join(dir, filepath.FromSlash(module))) {
				c.report(imp.Span, Error, CodeUnresolvedImport, "unresolved import: no module "+strings.TrimSuffix(imp.Path, "."+imp.Name))
			}
		}
	case "typescript":
		seen := map[string]bool{}
		for _, imp := range c.f.Imports {
			module := imp.Path
			if imp.Name != "" {
				module = strings.TrimSuffix(module, "/"+imp.Name)
			}
			if !strings.HasPrefix(module, "./") && !strings.HasPrefix(module, "../") || seen[module] {
				continue
			}
			seen[module] = true
			if !moduleExists(filepath.Join(filepath.Dir(c.f.Path), filepath.FromSlash(module))) {
				c.report(imp.Span, Error, CodeUnresolvedImport, "unresolved import: no module "+module)
			}
		}
	}
}

// pythonRelative reads a relative import (from .a.b import c): the
// folder its dots lead to and the module path under it. A bare "from .
// import x" is left alone: x may be a submodule or a name of __init__.py.
func pythonRelative(dir string, imp analysis.Import) (string, string, bool) {
	if !strings.HasPrefix(imp.Path, ".") || imp.Wildcard || imp.Name == "" {
		return "", "", false
	}
	rest := strings.TrimSuffix(imp.Path, "."+imp.Name)
	dots := len(rest) - len(strings.TrimLeft(rest, "."))
	module := rest[dots:]
	if module == "" || rest == imp.Path {
		return "", "", false
	}
	for range dots - 1 {
		dir = filepath.Dir(dir)
	}
	return dir, strings.ReplaceAll(module, ".", "/"), true
}

// goModule finds the module a folder belongs to: its path and root folder.
func goModule(dir string) (module, root string) {
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return strings.Trim(strings.TrimSpace(m), `"`), dir
				}
			}
			return "", ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

func hasGoFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return !os.IsNotExist(err) // unreadable is not missing
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			return true
		}
	}
	return false
}

// moduleExists reports whether a relative module specifier names a file or
// folder: as written, with any extension (TypeScript maps "./a.js" to
// a.ts), or as a folder's index.
func moduleExists(base string) bool {
	if _, err := os.Stat(base); err == nil {
		return true
	}
	for _, b := range []string{base, strings.TrimSuffix(base, filepath.Ext(base))} {
		if m, _ := filepath.Glob(globEscape(b) + ".*"); len(m) > 0 {
			return true
		}
	}
	return false
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}
