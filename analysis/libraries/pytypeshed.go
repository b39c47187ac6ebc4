package libraries

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// typeshed's standard-library stubs, when a tool installed in the
// project's environment ships a copy (mypy's mypy/typeshed, jedi's
// jedi/third_party/typeshed): type checkers read the standard library
// through them, pyright through its own bundled copy, and they declare
// what the interpreter's sources and introspection cannot say (the
// element type of a CookieJar, what sqlite3's Connection.execute
// returns, _socket's methods). They are indexed as one more read-only
// library, module "typeshed", and replace the stubs kast writes by
// introspection (pybuiltins.go): one builtins.pyi, the better one.

// BrokenStubs is the skip reason of a typeshed folder kast cannot use.
const BrokenStubs = "brokenStubs"

// typeshedHomes are where tools keep typeshed inside site-packages, the
// most recent copies first (mypy follows typeshed closely, jedi lags).
var typeshedHomes = [][]string{{"mypy", "typeshed"}, {"jedi", "third_party", "typeshed"}}

// discoverTypeshed returns the first usable typeshed standard library of
// the sites, or false; unusable ones are skipped with their reason.
func (f *Found) discoverTypeshed(sites []string, pyVersion string) (Library, bool) {
	for _, site := range sites {
		for _, home := range typeshedHomes {
			dir := filepath.Join(append(append([]string{site}, home...), "stdlib")...)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			lib, err := typeshedLibrary(site, home[0], dir, pyVersion)
			if err != nil {
				f.Skipped = append(f.Skipped, Skip{Library: dir, Reason: BrokenStubs, Detail: err.Error()})
				continue
			}
			return lib, true
		}
	}
	return Library{}, false
}

// typeshedLibrary checks a typeshed stdlib folder and names its version:
// the owning tool's, the stubs' VERSIONS file and the interpreter's
// version, which decides the modules left out.
func typeshedLibrary(site, owner, dir, pyVersion string) (Library, error) {
	if !fileExists(filepath.Join(dir, "builtins.pyi")) {
		return Library{}, fmt.Errorf("%s has no builtins.pyi", dir)
	}
	versions, err := os.ReadFile(filepath.Join(dir, "VERSIONS"))
	if err != nil && !os.IsNotExist(err) {
		return Library{}, err
	}
	excluded, err := typeshedExcluded(versions, pyVersion)
	if err != nil {
		return Library{}, fmt.Errorf("%s: %v", filepath.Join(dir, "VERSIONS"), err)
	}
	ownerVersion := distVersions(site)[owner]
	if ownerVersion == "" {
		ownerVersion = "local"
	}
	major, minor, _ := pyMinor(pyVersion)
	version := fmt.Sprintf("%s-%s-py%d.%d-%s", owner, ownerVersion, major, minor, shortHash(dir+"\n"+string(versions)))
	return Library{Lang: "python", Module: "typeshed", Version: version, Dir: dir, stubsExcluded: excluded}, nil
}

// typeshedExcluded lists, one a line, the modules typeshed's VERSIONS
// file says the interpreter does not have ("asynchat: 3.0-3.11" on 3.12,
// "tomllib: 3.11-" on 3.10). No file, or no interpreter version, leaves
// none out.
func typeshedExcluded(versions []byte, pyVersion string) (string, error) {
	major, minor, ok := pyMinor(pyVersion)
	if len(versions) == 0 || !ok {
		return "", nil
	}
	have := major*100 + minor
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(versions))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		module, span, ok := strings.Cut(line, ":")
		lo, hi, ranged := strings.Cut(strings.TrimSpace(span), "-")
		if !ok || !ranged {
			return "", fmt.Errorf("line %d is not \"module: min-max\"", n)
		}
		low, err := versionNumber(lo)
		if err != nil {
			return "", fmt.Errorf("line %d: %v", n, err)
		}
		high := 1 << 30
		if strings.TrimSpace(hi) != "" {
			if high, err = versionNumber(hi); err != nil {
				return "", fmt.Errorf("line %d: %v", n, err)
			}
		}
		if have < low || have > high {
			out = append(out, strings.TrimSpace(module))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n"), sc.Err()
}

// versionNumber turns "3.11" into 311.
func versionNumber(s string) (int, error) {
	major, minor, ok := pyMinor(strings.TrimSpace(s))
	if !ok {
		return 0, fmt.Errorf("%q is not a version", s)
	}
	return major*100 + minor, nil
}

// pyMinor is the major and minor number of a version ("3.11.7").
func pyMinor(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// typeshedInclude reports whether the typeshed library indexes a file:
// stubs of the modules the interpreter has, not typeshed's own tests or
// Python 2 folders.
func (l Library) typeshedInclude(parts []string) bool {
	name := parts[len(parts)-1]
	if !strings.HasSuffix(name, ".pyi") {
		return false
	}
	for _, p := range parts[:len(parts)-1] {
		if strings.HasPrefix(p, "@") {
			return false // @tests, @python2
		}
	}
	if l.stubsExcluded == "" {
		return true
	}
	module := append(slices.Clone(parts[:len(parts)-1]), strings.TrimSuffix(name, ".pyi"))
	if module[len(module)-1] == "__init__" {
		module = module[:len(module)-1]
	}
	excluded := strings.Split(l.stubsExcluded, "\n")
	for i := range module {
		if _, found := slices.BinarySearch(excluded, strings.Join(module[:i+1], ".")); found {
			return false
		}
	}
	return true
}
