package complete

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Members of packages and modules after their name and a dot, and the
// Go rule that another package's unexported names cannot be named.

// goPackageMembers adds the top-level names of the Go package the file
// imports under the name qualifier (its methods are reached through values);
// its types alone when typesOnly (*http.R in a parameter's type).
func (c *collector) goPackageMembers(qualifier string, typesOnly bool) {
	r := c.s.Resolver()
	for _, imp := range c.f.Imports {
		if imp.Wildcard || resolve.GoImportName(imp) != qualifier {
			continue
		}
		dirs, mapped := goPackageDirs(c.s, imp.Path)
		files := c.s.FilesInPackage("go", packageClause(imp))
		if mapped && !slices.ContainsFunc(files, func(p string) bool { return slices.Contains(dirs, filepath.Dir(p)) }) {
			// The package clause differs from the import path's last
			// element (go-yaml's is yaml): look in the folders.
			files = slices.DeleteFunc(slices.Clone(c.s.Files()), func(p string) bool {
				return !strings.HasSuffix(p, ".go") || !slices.Contains(dirs, filepath.Dir(p))
			})
		}
		for _, p := range files {
			dir := filepath.Dir(p)
			if mapped && !slices.Contains(dirs, dir) || !mapped && !strings.HasSuffix(filepath.ToSlash(dir), "/"+imp.Path) ||
				!r.GoFileBuilds(c.f.Path, p) {
				continue
			}
			for _, d := range c.s.TopLevel(p) {
				if d.Receiver == "" && d.Kind != analysis.KindLambda && (!typesOnly || d.Kind.IsType()) {
					c.add(Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, Rank: RankMember})
				}
			}
		}
	}
}

// goTypePosition reports whether the name being completed at offset after
// qualifier and a dot is written where Go expects a type: the file's
// facts, extracted from the text as typed, hold it as a type reference.
func (c *collector) goTypePosition(qualifier string, offset int) bool {
	for _, ref := range c.f.Refs {
		if ref.Span.Start == offset && ref.Qualifier == qualifier {
			return ref.Role&analysis.RoleType != 0
		}
	}
	return false
}

// goUniverse adds Go's predeclared names (string, len, nil), declared for
// documentation in the standard library's builtin package when it is
// indexed.
func (c *collector) goUniverse() {
	if c.f.Lang != "go" {
		return
	}
	for _, p := range c.s.FilesInPackage("go", "builtin") {
		if filepath.Base(filepath.Dir(p)) != "builtin" {
			continue
		}
		for _, d := range c.s.TopLevel(p) {
			if d.Receiver == "" && resolve.GoPredeclared(d.Name) {
				c.add(Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, Rank: RankImported})
			}
		}
	}
}

// goTypeKeywords begin the type literals a Go type position takes.
var goTypeKeywords = map[string]bool{"struct": true, "map": true, "chan": true, "func": true, "interface": true}

// keepTypes leaves, where Go expects a type, the names that can begin one:
// types, type parameters, packages and the type literals' keywords, as
// gopls offers after `names ...s`.
func (c *collector) keepTypes() {
	kept := c.items[:0]
	clear(c.seen)
	for _, it := range c.items {
		if it.Keyword && goTypeKeywords[it.Label] || !it.Keyword && (it.Kind.IsType() || it.Kind == analysis.KindTypeParameter || it.Kind == analysis.KindModule) {
			c.seen[it.Label] = len(kept)
			kept = append(kept, it)
		}
	}
	c.items = kept
}

// packageClause guesses the name a Go package's files declare: the name
// its import gives it without an alias.
func packageClause(imp analysis.Import) string {
	imp.Alias = ""
	return resolve.GoImportName(imp)
}

func goPackageDirs(s Snapshot, importPath string) ([]string, bool) {
	if gp, ok := s.(resolve.GoPackages); ok {
		return gp.GoPackageDirs(importPath)
	}
	return nil, false
}

// dropUnexported removes the members of other Go packages that the file
// cannot name: those not starting with an upper-case letter.
func (c *collector) dropUnexported() {
	dir := filepath.Dir(c.f.Path)
	kept := c.items[:0]
	clear(c.seen)
	for _, it := range c.items {
		if it.Def.Path != "" && filepath.Dir(it.Def.Path) != dir && !isExported(it.Label) {
			continue
		}
		c.seen[it.Label] = len(kept)
		kept = append(kept, it)
	}
	c.items = kept
}

func isExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}
