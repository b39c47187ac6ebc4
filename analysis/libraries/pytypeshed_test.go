package libraries

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// mypy's copy of typeshed in a site-packages is the standard library's
// stubs: a library of its own (not mypy's modules) that replaces kast's
// introspected built-in stubs, keeps the modules VERSIONS gives the
// interpreter, and a broken copy found first is skipped with its reason.
func TestDiscoverPythonTypeshed(t *testing.T) {
	root := t.TempDir()
	venvSite := filepath.Join(root, ".venv", "lib", "python3.11", "site-packages")
	system := filepath.Join(root, "usr", "dist-packages")
	stdlib := filepath.Join(system, "mypy", "typeshed", "stdlib")
	write(t, root, map[string]string{
		"pyproject.toml":   "[project]\nname = \"x\"\n",
		".venv/pyvenv.cfg": "include-system-site-packages = true\n",
		// jedi's copy, first on the path, lost its builtins.pyi.
		".venv/lib/python3.11/site-packages/jedi/__init__.py":                        "",
		".venv/lib/python3.11/site-packages/jedi/third_party/typeshed/stdlib/os.pyi": "",
		"usr/dist-packages/mypy/__init__.py":                                         "",
		"usr/dist-packages/mypy-1.0.1.egg-info/top_level.txt":                        "mypy\n",
		"usr/dist-packages/mypy/typeshed/stdlib/VERSIONS":                            "# comment\nbuiltins: 3.0-\nasynchat: 3.0-3.11\ntomllib: 3.11-\ndistutils.command.bdist_msi: 3.0-3.10\ntyping_extensions: 3.7-  # after\n",
		"usr/dist-packages/mypy/typeshed/stdlib/builtins.pyi":                        "class object: ...\n",
		"usr/dist-packages/mypy/typeshed/stdlib/asynchat.pyi":                        "",
		"usr/dist-packages/mypy/typeshed/stdlib/tomllib.pyi":                         "",
		"usr/dist-packages/mypy/typeshed/stdlib/distutils/command/bdist_msi.pyi":     "",
		"usr/dist-packages/mypy/typeshed/stdlib/distutils/command/build.pyi":         "",
		"usr/dist-packages/mypy/typeshed/stdlib/@tests/test_cases/check.pyi":         "",
		"usr/dist-packages/mypy/typeshed/stdlib/notes.py":                            "",
		"builtins-k/builtins.pyi":                                                    "class object: ...\n",
	})
	env := &PythonEnv{Version: "3.11.2", Sites: []string{venvSite, system}, Builtins: filepath.Join(root, "builtins-k")}
	f := Discover(context.Background(), root, Options{Python: env})
	if r := reasons(f); r[filepath.Join(venvSite, "jedi", "third_party", "typeshed", "stdlib")] != BrokenStubs {
		t.Errorf("the copy without builtins.pyi is not skipped as broken: %+v", f.Skipped)
	}
	var stubs, mypy Library
	for _, l := range f.Libraries {
		switch l.Module {
		case "typeshed":
			stubs = l
		case "mypy":
			mypy = l
		case "builtins":
			t.Errorf("kast's own built-in stubs are indexed beside typeshed's: %+v", l)
		}
	}
	if stubs.Dir != stdlib || !strings.HasPrefix(stubs.Version, "mypy-1.0.1-py3.11-") {
		t.Fatalf("typeshed: %+v in %+v", stubs, f.Libraries)
	}
	for rel, want := range map[string]bool{
		"builtins.pyi":                    true,
		"asynchat.pyi":                    true, // up to 3.11
		"tomllib.pyi":                     true, // from 3.11
		"distutils/command/build.pyi":     true,
		"distutils/command/bdist_msi.pyi": false, // up to 3.10
		"@tests/test_cases/check.pyi":     false,
		"notes.py":                        false,
	} {
		if got := stubs.Include(filepath.Join(stdlib, filepath.FromSlash(rel))); got != want {
			t.Errorf("typeshed includes %s: %v, want %v", rel, got, want)
		}
	}
	if mypy.Dir == "" || mypy.Include(filepath.Join(stdlib, "builtins.pyi")) || !mypy.Include(filepath.Join(system, "mypy", "__init__.py")) {
		t.Errorf("mypy's library must index its modules, not its typeshed: %+v", mypy)
	}
}

// Without typeshed, kast's introspected stubs stay the built-in names.
func TestDiscoverPythonBuiltinsWithoutTypeshed(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"pyproject.toml":          "[project]\nname = \"x\"\n",
		"builtins-k/builtins.pyi": "class object: ...\n",
	})
	env := &PythonEnv{Version: "3.11.2", Builtins: filepath.Join(root, "builtins-k")}
	f := Discover(context.Background(), root, Options{Python: env})
	for _, l := range f.Libraries {
		if l.Module == "builtins" && l.Dir == env.Builtins {
			return
		}
	}
	t.Errorf("no built-in stubs: %+v", f.Libraries)
}

// A VERSIONS file kast cannot read skips the copy with the line at fault.
func TestTypeshedVersionsBroken(t *testing.T) {
	if _, err := typeshedExcluded([]byte("builtins 3.0-\n"), "3.11.2"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("err = %v", err)
	}
	if _, err := typeshedExcluded([]byte("builtins: three-\n"), "3.11.2"); err == nil {
		t.Error("a version that is no number is accepted")
	}
}
