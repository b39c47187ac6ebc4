package libraries

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// Go's vendor mode: since Go 1.14 a module whose go.mod says go 1.14 or
// later and that has vendor/modules.txt builds its dependencies from
// vendor/, not the module cache. The vendor folder is then one library
// (the workspace scan leaves vendor/ out) serving the modules modules.txt
// lists.

// vendorModule is the Module of a vendor folder's library.
const vendorModule = "vendor"

// vendored reports whether the module at root builds in vendor mode, and
// returns its vendored library.
func vendored(root string) (Library, *Skip, bool) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return Library{}, nil, false
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil || mf.Go == nil || semver.Compare("v"+mf.Go.Version, "v1.14") < 0 {
		return Library{}, nil, false
	}
	dir := filepath.Join(root, "vendor")
	list, err := os.ReadFile(filepath.Join(dir, "modules.txt"))
	if err != nil {
		return Library{}, nil, false
	}
	mods := vendoredModules(list)
	if len(mods) == 0 {
		return Library{}, &Skip{Library: dir, Reason: Incomplete, Detail: "vendor/modules.txt lists no modules"}, true
	}
	// The version names the folder and what modules.txt says is in it:
	// re-vendoring other versions gets a fresh index.
	return Library{Lang: "go", Module: vendorModule, Version: shortHash(dir + "\n" + string(list)), Dir: dir,
		vendored: "\n" + strings.Join(mods, "\n") + "\n"}, nil, true
}

// vendoredModules lists the module paths of modules.txt's "# path version"
// lines (a replaced module is vendored under its own path).
func vendoredModules(list []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(list))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "# ")
		if !ok {
			continue
		}
		if path, _, _ := strings.Cut(line, " "); path != "" && !strings.Contains(path, "..") {
			out = append(out, path)
		}
	}
	return out
}

// vendorPackageDir maps an import path served by a vendored module to its
// folder under vendor/.
func (l Library) vendorPackageDir(importPath string) string {
	for p := importPath; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if strings.Contains(l.vendored, "\n"+p+"\n") {
			return filepath.Join(l.Dir, filepath.FromSlash(importPath))
		}
		if !strings.Contains(p, "/") {
			break
		}
	}
	return ""
}
