package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kast query def answers as the language server does: a guess below the
// confidence threshold (a method of an unknown receiver, found by name
// alone) is printed only with --uncertain.
func TestQueryDefGuessesOnlyWhenAsked(t *testing.T) {
	root := t.TempDir()
	src := "class Engine {\n  frobnicate() {}\n}\n\nfunction run(x) {\n  x.frobnicate();\n}\n"
	if err := os.WriteFile(filepath.Join(root, "app.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	at := "app.js:6:5"
	if out, code := runKast(t, root, env, "query", "--root", root, "def", at); code != 1 || out != "" {
		t.Errorf("def without --uncertain: exit %d, output %q; want nothing, as the language server", code, out)
	}
	out, code := runKast(t, root, env, "query", "--root", root, "def", "--uncertain", at)
	if code != 0 || !strings.Contains(out, "app.js:2:3") || !strings.Contains(out, "uncertain") {
		t.Errorf("def --uncertain: exit %d\n%s", code, out)
	}
}

// kast query def answers what textDocument/definition answers where that
// is not a declaration: a Go package name is its file's import spec, and a
// TypeScript namespace binding imported by name is its module's file, at
// its start (as tsserver answers).
func TestQueryDefAnswersAsTheLanguageServer(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"main.go":       "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println()\n}\n",
		"core/index.ts": "export const version = 1;\n",
		"mini/index.ts": "import * as z from \"../core/index.js\";\nexport { z };\n",
		"app.ts":        "import { z } from \"./mini/index.js\";\nz.version;\n",
	}
	for name, src := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	for _, c := range []struct{ at, want string }{
		{"main.go:6:2", "main.go:3:8"},
		{"app.ts:2:1", filepath.Join("core", "index.ts") + ":1:1"},
	} {
		out, code := runKast(t, root, env, "query", "--root", root, "def", c.at)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("def %s: exit %d, output %q; want %s", c.at, code, out, c.want)
		}
	}
}
