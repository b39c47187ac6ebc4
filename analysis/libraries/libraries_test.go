package libraries

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func reasons(f Found) map[string]string {
	out := map[string]string{}
	for _, s := range f.Skipped {
		out[s.Library] = s.Reason
	}
	return out
}

// Bad input never stops discovery: each problem is a skipped library with
// its reason.
func TestDiscoverSkipsWithReasons(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"ws/go.mod":                         "module example.com/ws\n\nrequire (\n\texample.com/ok v1.0.0\n\texample.com/empty v1.0.0\n\texample.com/gone v1.0.0\n\texample.com/local v1.0.0\n)\n\nreplace example.com/local => ../local\n",
		"cache/example.com/ok@v1.0.0/ok.go": "package ok\n",
		"local/local.go":                    "package local\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "cache", "example.com", "empty@v1.0.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := Discover(context.Background(), filepath.Join(dir, "ws"), Options{Go: &GoEnv{GOROOT: filepath.Join(dir, "no-goroot"), GOMODCACHE: filepath.Join(dir, "cache")}})
	r := reasons(f)
	if r["std"] != BrokenGoroot || r["example.com/empty@v1.0.0"] != Incomplete || r["example.com/gone@v1.0.0"] != NotDownloaded {
		t.Errorf("skipped: %+v", f.Skipped)
	}
	if len(f.Libraries) != 1 || f.Libraries[0].Module != "example.com/ok" {
		t.Errorf("libraries: %+v (the locally replaced module is the user's source, not a library)", f.Libraries)
	}

	write(t, dir, map[string]string{"bad/go.mod": "module example.com/bad\n\nrequire (\n"})
	f = Discover(context.Background(), filepath.Join(dir, "bad"), Options{Go: &GoEnv{GOROOT: filepath.Join(dir, "no-goroot")}})
	if r := reasons(f); r[filepath.Join(dir, "bad", "go.mod")] != BadGoMod {
		t.Errorf("a broken go.mod: %+v", f.Skipped)
	}
	if f := Discover(context.Background(), dir, Options{}); len(f.Libraries)+len(f.Skipped) != 0 {
		t.Errorf("a folder without go.mod has no Go libraries: %+v", f)
	}
}

func TestLibraryPathsAndFiles(t *testing.T) {
	std := Library{Lang: "go", Module: "std", Version: "go1.99", Dir: "/goroot/src"}
	mod := Library{Lang: "go", Module: "github.com/BurntSushi/toml", Version: "v1.2.0", Dir: "/cache/github.com/!burnt!sushi/toml@v1.2.0"}
	for _, c := range []struct {
		lib        Library
		importPath string
		want       string
	}{
		{std, "net/http", "/goroot/src/net/http"},
		{std, "github.com/x/y", ""},
		{mod, "github.com/BurntSushi/toml", mod.Dir},
		{mod, "github.com/BurntSushi/toml/internal", mod.Dir + "/internal"},
		{mod, "github.com/BurntSushi/tomlx", ""},
	} {
		if got := filepath.ToSlash(c.lib.PackageDir(c.importPath)); got != c.want {
			t.Errorf("%s: PackageDir(%s) = %q, want %q", c.lib, c.importPath, got, c.want)
		}
	}
	if k := filepath.ToSlash(mod.Key()); k != "go/github.com/!burnt!sushi/toml@v1.2.0" {
		t.Errorf("Key = %s", k)
	}
	for path, want := range map[string]bool{
		"/goroot/src/fmt/print.go":          true,
		"/goroot/src/fmt/print_test.go":     false,
		"/goroot/src/fmt/testdata/x.go":     false,
		"/goroot/src/cmd/go/main.go":        false,
		"/goroot/src/go/build/read.go":      true,
		"/goroot/src/fmt/README.md":         false,
		"/goroot/src/internal/_hidden/x.go": false,
	} {
		if got := std.Include(path); got != want {
			t.Errorf("Include(%s) = %v, want %v", path, got, want)
		}
	}
}

// A virtualenv whose interpreter was deleted: skipped with a reason, and
// its packages (files on disk) are still libraries.
func TestDiscoverPythonWithDeletedInterpreter(t *testing.T) {
	root := t.TempDir()
	site := ".venv/lib/python3.12/site-packages/"
	write(t, root, map[string]string{
		"pyproject.toml":                       "[project]\nname = \"x\"\n",
		".venv/pyvenv.cfg":                     "home = /gone\n",
		site + "attr/__init__.py":              "",
		site + "attrs-23.1.0.dist-info/RECORD": "attr/__init__.py,,\n",
	})
	if err := os.MkdirAll(filepath.Join(root, ".venv", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "gone", "python3.12"), filepath.Join(root, ".venv", "bin", "python3")); err != nil {
		t.Fatal(err)
	}
	f := Discover(context.Background(), root, Options{})
	if r := reasons(f); r[filepath.Join(root, ".venv", "bin", "python3")] != BrokenInterpreter {
		t.Errorf("skipped: %+v", f.Skipped)
	}
	var attrs bool
	for _, l := range f.Libraries {
		attrs = attrs || l.Module == "attr" && l.Version == "23.1.0"
	}
	if !attrs {
		t.Errorf("libraries: %+v", f.Libraries)
	}
}

// A module with vendor/modules.txt and go 1.14 or later builds from
// vendor/: that folder is its one dependency library, serving the modules
// modules.txt lists, and the module cache is not consulted.
// A workspace opened on GOROOT/src is the standard library: it is not
// indexed a second time as a library, while its vendor folder still is.
func TestDiscoverSkipsTheWorkspaceItself(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"goroot/src/go.mod":                               "module std\n\ngo 1.26\n",
		"goroot/src/fmt/print.go":                         "package fmt\n",
		"goroot/src/vendor/modules.txt":                   "# golang.org/x/net v0.1.0\n## explicit; go 1.25\ngolang.org/x/net/idna\n",
		"goroot/src/vendor/golang.org/x/net/idna/idna.go": "package idna\n",
		"ws/go.mod": "module example.com/ws\n\ngo 1.26\n",
	})
	env := &GoEnv{GOROOT: filepath.Join(dir, "goroot"), GOVERSION: "go1.26.0", GOMODCACHE: filepath.Join(dir, "cache")}
	f := Discover(context.Background(), filepath.Join(dir, "goroot", "src"), Options{Go: env})
	if len(f.Libraries) != 1 || f.Libraries[0].Module != vendorModule {
		t.Errorf("libraries of GOROOT/src: %+v, want its vendor folder alone", f.Libraries)
	}
	if r := reasons(f); r["std@go1.26.0"] != InWorkspace {
		t.Errorf("skipped: %+v, want std as the workspace itself", f.Skipped)
	}
	f = Discover(context.Background(), filepath.Join(dir, "ws"), Options{Go: env})
	if len(f.Libraries) != 1 || f.Libraries[0].Module != "std" {
		t.Errorf("another module's libraries: %+v, want std", f.Libraries)
	}
}

func TestDiscoverVendor(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"ws/go.mod":                    "module example.com/ws\n\ngo 1.21\n\nrequire example.com/v v1.0.0\n",
		"ws/vendor/modules.txt":        "# example.com/v v1.0.0\n## explicit; go 1.20\nexample.com/v\nexample.com/v/sub\n# example.com/old v1.0.0 => example.com/new v1.1.0\nexample.com/old\n",
		"ws/vendor/example.com/v/v.go": "package v\n",
		"old/go.mod":                   "module example.com/old\n\ngo 1.13\n\nrequire example.com/v v1.0.0\n",
		"old/vendor/modules.txt":       "# example.com/v v1.0.0\nexample.com/v\n",
	})
	env := &GoEnv{GOROOT: filepath.Join(dir, "no-goroot"), GOMODCACHE: filepath.Join(dir, "cache")}
	f := Discover(context.Background(), filepath.Join(dir, "ws"), Options{Go: env})
	if len(f.Libraries) != 1 || f.Libraries[0].Module != vendorModule || len(f.Skipped) != 1 {
		t.Fatalf("found %+v", f)
	}
	v := f.Libraries[0]
	vendor := filepath.Join(dir, "ws", "vendor")
	for importPath, want := range map[string]string{
		"example.com/v":      filepath.Join(vendor, "example.com", "v"),
		"example.com/v/sub":  filepath.Join(vendor, "example.com", "v", "sub"),
		"example.com/old/x":  filepath.Join(vendor, "example.com", "old", "x"),
		"example.com/vv":     "",
		"example.com":        "",
		"example.com/ws/pkg": "",
		"fmt":                "",
	} {
		if got := v.PackageDir(importPath); got != want {
			t.Errorf("PackageDir(%s) = %q, want %q", importPath, got, want)
		}
	}
	if !v.Include(filepath.Join(vendor, "example.com", "v", "v.go")) || v.Include(filepath.Join(vendor, "modules.txt")) {
		t.Error("the vendor library indexes the vendored Go files only")
	}
	// Before go 1.14 vendor/ is used only when asked for: the module cache.
	f = Discover(context.Background(), filepath.Join(dir, "old"), Options{Go: env})
	if r := reasons(f); r["example.com/v@v1.0.0"] != NotDownloaded {
		t.Errorf("go 1.13 module: %+v", f)
	}
}

// A node package's entry points: types/typings, exports with conditions,
// subpaths and patterns, main's declaration file, and @types names.
func TestNodeEntryFiles(t *testing.T) {
	nm := filepath.Join(t.TempDir(), "node_modules")
	write(t, nm, map[string]string{
		"typed/package.json":       `{"version": "1.0.0", "typings": "./lib/main.d.ts", "main": "lib/main.js"}`,
		"typed/lib/main.d.ts":      "",
		"exp/package.json":         `{"version": "2.0.0", "exports": {".": {"import": {"types": "./dist/esm/index.d.mts", "default": "./dist/esm/index.mjs"}, "require": "./dist/cjs/index.js"}, "./util": {"types": "./dist/util.d.ts"}, "./feature/*": "./dist/features/*.js"}}`,
		"exp/dist/esm/index.d.mts": "",
		"exp/dist/util.d.ts":       "",
		"exp/dist/features/a.d.ts": "",
		"exp/dist/hidden.d.ts":     "",
		"plain/package.json":       `{"version": "3.0.0", "main": "./src/entry.js"}`,
		"plain/src/entry.js":       "",
		"plain/src/other.js":       "",
		"sugar/package.json":       `{"version": "1.0.0", "exports": "./sugar.js"}`,
		"sugar/sugar.js":           "",
		"sugar/sugar.d.ts":         "",
	})
	pkg := func(name string) Library {
		l, s := nodePackage(nm, name)
		if s != nil {
			t.Fatalf("%s: %+v", name, s)
		}
		return l
	}
	rel := func(files []string) []string {
		var out []string
		for _, f := range files {
			r, _ := filepath.Rel(nm, f)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for _, c := range []struct {
		pkg, sub string
		want     []string
	}{
		{"typed", "", []string{"typed/lib/main.d.ts"}},
		{"exp", "", []string{"exp/dist/esm/index.d.mts"}},
		{"exp", "util", []string{"exp/dist/util.d.ts"}},
		{"exp", "feature/a", []string{"exp/dist/features/a.d.ts"}},
		{"exp", "dist/hidden", nil}, // not in the exports map
		{"plain", "", []string{"plain/src/entry.js"}},
		{"plain", "src/other", []string{"plain/src/other.js"}},
		{"sugar", "", []string{"sugar/sugar.d.ts"}},
	} {
		if got := rel(pkg(c.pkg).NodeEntryFiles(c.sub)); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: %v, want %v", c.pkg, c.sub, got, c.want)
		}
	}
	for spec, want := range map[string][2]string{"react": {"react", ""}, "react-dom/client": {"react-dom", "client"},
		"@scope/pkg/a/b": {"@scope/pkg", "a/b"}, "./rel": {"", ""}, "node:fs": {"", ""}} {
		if n, s := NodePackageName(spec); n != want[0] || s != want[1] {
			t.Errorf("NodePackageName(%q) = %q, %q", spec, n, s)
		}
	}
	if TypesPackage("@scope/pkg") != "@types/scope__pkg" || TypesPackage("lodash") != "@types/lodash" {
		t.Error("TypesPackage")
	}
}

// A virtualenv made with --system-site-packages imports the system's
// packages after its own: both are libraries, a package in both is the
// virtualenv's, and a system package's version is its .egg-info's.
func TestDiscoverPythonSystemSitePackages(t *testing.T) {
	root := t.TempDir()
	venvSite := filepath.Join(root, ".venv", "lib", "python3.12", "site-packages")
	system := filepath.Join(root, "usr", "dist-packages")
	write(t, root, map[string]string{
		"pyproject.toml":   "[project]\nname = \"x\"\n",
		".venv/pyvenv.cfg": "include-system-site-packages = true\n",
		".venv/lib/python3.12/site-packages/pip/__init__.py":           "",
		".venv/lib/python3.12/site-packages/pip-24.0.dist-info/RECORD": "pip/__init__.py,,\n",
		"usr/dist-packages/pip/__init__.py":                            "",
		"usr/dist-packages/pip-23.0.1.dist-info/RECORD":                "pip/__init__.py,,\n",
		"usr/dist-packages/jinja2/__init__.py":                         "",
		"usr/dist-packages/Jinja2-3.1.2.egg-info/top_level.txt":        "jinja2\n",
		"usr/dist-packages/cryptography/__init__.py":                   "",
		"usr/dist-packages/cryptography.egg-info/PKG-INFO":             "Metadata-Version: 2.1\nName: cryptography\nVersion: 38.0.4\n\nVersion: 0\n",
		"usr/dist-packages/cryptography.egg-info/top_level.txt":        "cryptography\n",
	})
	env := &PythonEnv{Version: "3.12.0", Sites: []string{venvSite, system}}
	f := Discover(context.Background(), root, Options{Python: env})
	got := map[string]string{}
	for _, l := range f.Libraries {
		if _, dup := got[l.Module]; dup && l.Module != "site-modules" {
			t.Errorf("%s found twice: %+v", l.Module, f.Libraries)
		}
		got[l.Module] = l.Version + " " + l.Dir
	}
	for module, want := range map[string]string{
		"pip":          "24.0 " + filepath.Join(venvSite, "pip"),
		"jinja2":       "3.1.2 " + filepath.Join(system, "jinja2"),
		"cryptography": "38.0.4 " + filepath.Join(system, "cryptography"),
	} {
		if got[module] != want {
			t.Errorf("%s: %q, want %q", module, got[module], want)
		}
	}
}
