package complete

import (
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis/golang"
)

// Go completion offers no name of the standard library newer than the Go
// version the file is compiled at (go.mod's go line, or its //go:build
// line), as gopls does: strings.CutPrefix (1.20) is not offered in a go
// 1.19 module, nor any name of iter (1.23) in a go 1.21 one. The api files
// of the toolchain say when each name appeared.

// goVersionGate answers, for one request, whether a member is too new.
type goVersionGate struct {
	minor int  // the file's minor Go version
	known bool // whether it is known: else nothing is too new
	pkgs  map[string]stdPackage
}

// stdPackage is a folder of the standard library: its import path and the
// versions of its toolchain's names; api is nil for other folders.
type stdPackage struct {
	path string
	api  *golang.StdAPI
}

// libraryRoots is what the snapshot says of its libraries.
type libraryRoots interface {
	InLibrary(path string) string
	LibraryDirs() []string
}

func (c *collector) goGate() *goVersionGate {
	if c.gate == nil {
		minor, known := golang.FileGoMinor(c.f.Path, c.text)
		c.gate = &goVersionGate{minor: minor, known: known, pkgs: map[string]stdPackage{}}
	}
	return c.gate
}

// tooNewGo reports whether it is a standard-library name that appeared
// after the file's Go version. A member of a type that is itself too new
// is not: gopls lets the type's absence speak for it.
func (c *collector) tooNewGo(it Item) bool {
	if it.Def.Path == "" || it.Keyword {
		return false
	}
	g := c.goGate()
	if !g.known {
		return false
	}
	pkg := c.stdPackageOf(it.Def.Path)
	if pkg.api == nil {
		return false
	}
	name := it.Label[strings.LastIndexByte(it.Label, '.')+1:] // a deep completion's last name
	sym := name
	if it.owner != "" {
		if v, listed := pkg.api.Since(pkg.path, it.owner); listed && v > g.minor {
			return false
		}
		sym = it.owner + "." + name
	}
	v, listed := pkg.api.Since(pkg.path, sym)
	return listed && v > g.minor
}

// stdPackageOf says which standard-library package declares the file at
// path, once per folder and request.
func (c *collector) stdPackageOf(path string) stdPackage {
	g := c.goGate()
	dir := filepath.Dir(path)
	if pkg, ok := g.pkgs[dir]; ok {
		return pkg
	}
	var pkg stdPackage
	if libs, ok := c.s.(libraryRoots); ok && strings.HasPrefix(libs.InLibrary(path), "std@") {
		src := ""
		for _, d := range libs.LibraryDirs() {
			if len(d) > len(src) && strings.HasPrefix(dir, d+string(filepath.Separator)) {
				src = d // GOROOT/src
			}
		}
		if src != "" {
			if api, err := golang.StdAPIOf(filepath.Dir(src)); err == nil {
				rel, _ := filepath.Rel(src, dir)
				pkg = stdPackage{path: filepath.ToSlash(rel), api: api}
			}
		}
	}
	g.pkgs[dir] = pkg
	return pkg
}

// dropTooNew removes the standard library's names newer than the file's
// Go version.
func (c *collector) dropTooNew() {
	if !c.goGate().known {
		return
	}
	kept := c.items[:0]
	clear(c.seen)
	for _, it := range c.items {
		if c.tooNewGo(it) {
			continue
		}
		c.seen[it.Label] = len(kept)
		kept = append(kept, it)
	}
	c.items = kept
}
