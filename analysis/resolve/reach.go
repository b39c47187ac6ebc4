package resolve

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
)

// Before the reference pass has stored a definition's uses, finding its
// references resolves every reference with its name: for a common Go name
// (Type, Pos, Name) thousands, in files that cannot see the definition at
// all. A Go file of code that compiles names a declaration of package P
// only when its own package is P or depends on P through imports: every
// step of resolution (an import, a variable's type, a call's result, an
// embedded field) goes through a declaration its package imports. The file
// table holds each Go file's import paths, so the folders that can reach P
// are found backwards from P without decoding a file, generously (an
// import path counts when the folder ends with it, or with its end below a
// module root). The resolver's guesses for code that does not compile
// (uncertain references) may be dropped, which is why only
// CertainReferences prunes.

// GoImport is one import of a Go file.
type GoImport struct {
	File, Path string
}

// GoImports is implemented by a workspace that knows its Go files'
// imports without decoding the files.
type GoImports interface {
	// GoImportsNamed lists the imports whose paths end in the segment
	// name.
	GoImportsNamed(name string) []GoImport
	// GoDirsNamed lists the folders named name (GoDirName) that hold Go
	// files.
	GoDirsNamed(name string) []string
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
	if f.Package == "builtin" && filepath.Base(home) == "builtin" {
		return nil // the universe scope: seen from everywhere
	}
	reach := map[string]bool{home: true}
	// An import whose path ends in the name is resolved as a use of a
	// declaration so named in the package above the path, if any.
	name := f.Defs[def.Index].Name
	for _, imp := range dp.GoImportsNamed(name) {
		reach[filepath.Dir(imp.File)] = true
	}
	if !exported(name) {
		// Unexported: only its own package names it (its test package is
		// in the same folder).
		return reach
	}
	// Declarations of test files are seen by no other package: a folder
	// whose tests alone import a reached one is reached, its importers not.
	left := len(candidates)
	for d := range reach {
		if candidates[d] {
			left--
		}
	}
	expand := map[string]bool{home: true}
	queue := []string{home}
	for i := 0; i < len(queue); i++ {
		if left == 0 || i >= maxReachDirs {
			return nil
		}
		for _, imp := range r.importerDirs(dp, queue[i]) {
			if !reach[imp.dir] {
				reach[imp.dir] = true
				if candidates[imp.dir] {
					left--
				}
			}
			if !imp.tests && !expand[imp.dir] {
				expand[imp.dir] = true
				queue = append(queue, imp.dir)
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

// importer is a folder holding files that import a package.
type importer struct {
	dir   string
	tests bool // only test files import it
}

// importerDirs lists the folders of the files importing the package in
// dir, once per resolver.
func (r *Resolver) importerDirs(dp GoImports, dir string) []importer {
	return memo(&r.mu, r.importers, dir, func(dir string) []importer {
		at := map[string]int{}
		var out []importer
		for _, name := range r.importNames(dir) {
			for _, imp := range dp.GoImportsNamed(name) {
				if !r.mayImport(dp, imp.Path, dir) {
					continue
				}
				d, test := filepath.Dir(imp.File), strings.HasSuffix(imp.File, "_test.go")
				if i, ok := at[d]; ok {
					out[i].tests = out[i].tests && test
					continue
				}
				at[d] = len(out)
				out = append(out, importer{d, test})
			}
		}
		return out
	})
}

// importNames lists the last segments of the import paths that may name
// the package in dir: the folder's name, and for a module's root the last
// segment of the module's path.
func (r *Resolver) importNames(dir string) []string {
	base := GoDirName(filepath.Base(dir))
	names := []string{base}
	if mod := r.modulePath(dir); mod != "" && path.Base(mod) != base {
		names = append(names, path.Base(mod))
	}
	return names
}

// mayImport reports whether an import path may name the package in dir:
// the folder the workspace maps it to, or else the one the resolver picks
// by name (goImported): of the folders ending like the path, the one with
// the most segments in common, then the one nearest the root.
func (r *Resolver) mayImport(dp GoImports, importPath, dir string) bool {
	if gp, ok := r.ws.(GoPackages); ok {
		if dirs, ok := gp.GoPackageDirs(importPath); ok && slices.Contains(dirs, dir) {
			return true
		}
	}
	return slices.Contains(memo(&r.mu, r.importDirs, importPath, func(importPath string) []string {
		segs := strings.Split(importPath, "/")
		var best []string
		bestScore, bestRest := 0, 0
		for _, d := range dp.GoDirsNamed(segs[len(segs)-1]) {
			score, rest := matchDirSegments(segs, filepath.ToSlash(d))
			if score == 0 || score < bestScore || score == bestScore && rest > bestRest {
				continue
			}
			if score > bestScore || rest < bestRest {
				best, bestScore, bestRest = best[:0], score, rest
			}
			best = append(best, d)
		}
		return best
	}), dir)
}

// modulePath is the module path of a go.mod in dir, "" when there is none,
// read once per resolver.
func (r *Resolver) modulePath(dir string) string {
	return memo(&r.mu, r.goMods, dir, func(dir string) string {
		return goModulePath(filepath.Join(dir, "go.mod"))
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
