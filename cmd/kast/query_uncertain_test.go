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
