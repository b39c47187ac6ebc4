package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kast index on a workspace whose libraries are broken in the ways the
// issue lists: no go command (so no GOROOT), a virtualenv whose interpreter
// was deleted and no python3, node_modules with a link loop (a package
// that is one, and one inside a package) and a 50 MB generated .d.ts.
// Each is skipped with a reason, the rest is indexed, and kast exits 0.
func TestIndexLibrariesBadInput(t *testing.T) {
	root := t.TempDir()
	site := ".venv/lib/python3.12/site-packages/"
	for name, text := range map[string]string{
		"go.mod":                               "module example.com/app\n\ngo 1.22\n",
		"main.go":                              "package main\n\nfunc main() {}\n",
		"pyproject.toml":                       "[project]\nname = \"app\"\n",
		".venv/pyvenv.cfg":                     "home = /gone\n",
		site + "attr/__init__.py":              "def define(): pass\n",
		site + "attrs-23.1.0.dist-info/RECORD": "attr/__init__.py,,\n",
		"package.json":                         `{"name": "app", "dependencies": {"left-pad": "1", "loopy": "1", "absent": "2", "huge": "1"}}`,
		"node_modules/left-pad/package.json":   `{"name": "left-pad", "version": "1.3.0"}`,
		"node_modules/left-pad/index.d.ts":     "export declare function leftPad(s: string): string;\n",
		"node_modules/huge/package.json":       `{"name": "huge", "version": "0.0.1"}`,
		"node_modules/huge/small.d.ts":         "export declare const small: number;\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	big, err := os.Create(filepath.Join(root, "node_modules", "huge", "generated.d.ts"))
	must(err)
	must(big.Truncate(50 << 20))
	must(big.Close())
	loopy := filepath.Join(root, "node_modules", "loopy")
	must(os.Symlink(loopy, loopy))
	must(os.Symlink("..", filepath.Join(root, "node_modules", "huge", "again")))
	must(os.MkdirAll(filepath.Join(root, ".venv", "bin"), 0o755))
	must(os.Symlink(filepath.Join(root, "gone", "python3.12"), filepath.Join(root, ".venv", "bin", "python3")))

	// An empty PATH: neither go nor python3 is found.
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "PATH="+t.TempDir(), "VIRTUAL_ENV=")
	out, code := runKast(t, root, env, "index", "--json", root)
	if code != 0 {
		t.Fatalf("kast index: exit %d: %s", code, out)
	}
	var rep struct {
		Libraries struct {
			Indexed []libraryReport
			Skipped []struct{ Library, Reason string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	reasons := map[string]string{}
	for _, s := range rep.Libraries.Skipped {
		reasons[filepath.Base(s.Library)] = s.Reason
	}
	for lib, want := range map[string]string{"go": "noToolchain", "python3": "noInterpreter", "loopy": "linkLoop", "absent": "notInstalled"} {
		if reasons[lib] != want {
			t.Errorf("%s skipped for %q, want %q (skipped: %+v)", lib, reasons[lib], want, rep.Libraries.Skipped)
		}
	}
	var brokenVenv bool
	for _, s := range rep.Libraries.Skipped {
		brokenVenv = brokenVenv || s.Reason == "brokenInterpreter" && strings.HasSuffix(s.Library, filepath.Join(".venv", "bin", "python3"))
	}
	if !brokenVenv {
		t.Errorf("the virtualenv's deleted interpreter is not reported: %+v", rep.Libraries.Skipped)
	}
	indexed := map[string]libraryReport{}
	for _, l := range rep.Libraries.Indexed {
		indexed[l.Library] = l
	}
	if l := indexed["huge@0.0.1"]; l.Files != 1 || l.Skipped["tooLarge"] != 1 || l.Error != "" {
		t.Errorf("huge: %+v, want small.d.ts indexed and the 50 MB file counted as too large", l)
	}
	if l := indexed["left-pad@1.3.0"]; l.Files != 1 {
		t.Errorf("left-pad: %+v", l)
	}
	if l := indexed["attr@23.1.0"]; l.Files != 1 {
		t.Errorf("the virtualenv's packages are files, indexed without the interpreter: %+v", rep.Libraries.Indexed)
	}

	// The text output of a first run (a later one reuses the indexes).
	env = append(env, "XDG_CACHE_HOME="+t.TempDir())
	text, _ := runKast(t, root, env, "index", root)
	if !strings.Contains(text, "skipped (linkLoop)") || !strings.Contains(text, "1 skipped (tooLarge)") {
		t.Errorf("kast index output:\n%s", text)
	}
}
