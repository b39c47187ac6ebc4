package resolve

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
)

// Before the reference pass has stored a definition's uses, finding its
// references resolves every reference with its name: for a common Go name
// (Type, Pos, Name) thousands, in files that cannot see the definition at
// all. A Go file surely names a declaration of package P only when its own
// package is P or depends on P through imports: every step of resolution
// (an import, a variable's type, a call's result, an embedded field) goes
// through a declaration its package imports. An import is a reference
// named by the last segment of its path, so the files importing a folder
// are found through the name tables, without decoding a file. The
// folders that can reach P are found backwards from P, generously (any
// import named like the folder counts as one of it), so that pruning drops
// no certain reference of code that compiles; guesses (uncertain
// references) may be dropped, which is why only CertainReferences prunes.

// GoImports is implemented by a workspace that knows, without decoding
// files, the packages a folder's Go files declare and which files import
// a package of a given name.
type GoImports interface {
	GoPackagesIn(dir string) []string
	// GoImporters lists the files with an import whose reference is
	// named name: the last segment of the import's path.
	GoImporters(name string) []string
}

// maxReachDirs bounds the folders one search expands: past it, most of the
// workspace depends on the definition's package and pruning spares little.
const maxReachDirs = 512

// goReachers returns the folders whose files may surely refer to def, of
// those in candidates (the folders of the references named like it); nil
// when it cannot tell or every candidate folder may, and no file is pruned.
func (r *Resolver) goReachers(def DefID, f *analysis.FileFacts, candidates map[string]bool) map[string]bool {
	dp, ok := r.ws.(GoImports)
	if !ok || f.Lang != "go" {
		return nil
	}
	home := filepath.Dir(def.Path)
	reach := map[string]bool{home: true}
	if name := f.Defs[def.Index].Name; !exported(name) {
		// Unexported: only its own package names it (its test package is
		// in the same folder).
		return reach
	}
	left := len(candidates)
	if candidates[home] {
		left--
	}
	queue := []string{home}
	for i := 0; i < len(queue); i++ {
		if left == 0 || i >= maxReachDirs {
			return nil
		}
		for _, name := range r.importNames(dp, queue[i]) {
			for _, dir := range r.importerDirs(dp, name) {
				if reach[dir] {
					continue
				}
				reach[dir] = true
				queue = append(queue, dir)
				if candidates[dir] {
					left--
				}
			}
		}
	}
	if left == 0 {
		return nil
	}
	return reach
}

// exported reports whether a Go name is visible outside its package.
func exported(name string) bool {
	c, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(c)
}

// importNames lists the names a file importing the package in dir may
// refer to it by: the folder's name (an import's reference is named by the
// last segment of its path), the packages it declares (found by package
// name when an import's path is not a folder), and for a module's root the
// last segment of the module's path.
func (r *Resolver) importNames(dp GoImports, dir string) []string {
	base := filepath.Base(dir)
	names := []string{base}
	if at := strings.IndexByte(base, '@'); at > 0 {
		names = append(names, base[:at]) // a module cache folder: path@version
	}
	names = append(names, dp.GoPackagesIn(dir)...)
	if mod := goModulePath(filepath.Join(dir, "go.mod")); mod != "" {
		names = append(names, path.Base(mod))
	}
	return names
}

// importerDirs lists the folders of the files importing a package by the
// name, once per resolver.
func (r *Resolver) importerDirs(dp GoImports, name string) []string {
	return memo(&r.mu, r.importers, name, func(name string) []string {
		seen := map[string]bool{}
		var out []string
		for _, p := range dp.GoImporters(name) {
			if d := filepath.Dir(p); !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
		return out
	})
}

// goModulePath reads the module path of a go.mod file; "" when there is
// none.
func goModulePath(file string) string {
	fh, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
