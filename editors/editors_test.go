// Package editors_test runs kast under real editors: headless Neovim with the
// plugin in nvim/, and Emacs eglot in batch mode. .ci/run installs both; on a
// machine without them the tests skip, except in CI, where they must run.
package editors_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var kastBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kast-editors-")
	if err != nil {
		panic(err)
	}
	kastBin = filepath.Join(dir, "kast")
	if out, err := exec.Command("go", "build", "-o", kastBin, "../cmd/kast").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needTool finds an editor, skipping the test where it is not installed
// unless running in CI, which must have it.
func needTool(t *testing.T, name string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; .ci/run installs it", name)
		}
		t.Skipf("%s is not installed (apt-get install neovim emacs-nox elpa-eglot)", name)
	}
	return path
}

// sampleWorkspace copies the Kotlin sample into a temporary Gradle-style root.
func sampleWorkspace(t *testing.T) string {
	root := t.TempDir()
	src := filepath.Join("..", "cmd", "kast", "sample")
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "settings.gradle.kts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func runEditor(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "XDG_CACHE_HOME="+t.TempDir())...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}

func lines(out, prefix string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), prefix+" "); ok {
			got = append(got, rest)
		}
	}
	return got
}

func TestNeovimDefinitionReferencesRename(t *testing.T) {
	nvim := needTool(t, "nvim")
	root := sampleWorkspace(t)
	plugin, _ := filepath.Abs("nvim")
	kt := filepath.Join(root, "src", "main", "kotlin", "sample")
	out := runEditor(t, root, []string{
		"KAST_CMD=" + kastBin + " lsp --stdio",
		"KAST_FILE=" + filepath.Join(kt, "Use.kt"), "KAST_LINE=2", "KAST_COL=20", "KAST_NEW_NAME=welcome",
	}, nvim, "--headless", "-u", "NONE", "-c", "set rtp^="+plugin, "-c", "luafile "+filepath.Join(plugin, "test", "features.lua"))
	if defs := lines(out, "DEF"); len(defs) != 1 || defs[0] != filepath.Join(kt, "Greeter.kt")+":4:5" {
		t.Errorf("definition: %v\n%s", defs, out)
	}
	refs := lines(out, "REF")
	want := []string{filepath.Join(kt, "Use.kt") + ":3:21", filepath.Join(kt, "SecondaryUse.kt") + ":3:26"}
	for _, w := range want {
		if !strings.Contains(strings.Join(refs, "\n"), w) {
			t.Errorf("references lack %s: %v", w, refs)
		}
	}
	if renamed := lines(out, "RENAMED"); len(renamed) != 4 {
		t.Errorf("rename must edit four places, Neovim applied %d: %v\n%s", len(renamed), renamed, out)
	}
	if !strings.Contains(out, "OK") {
		t.Errorf("no OK:\n%s", out)
	}
}

// :checkhealth kast reports the binary, its version, the attached client's
// root and what kast.status says of its index.
func TestNeovimCheckHealth(t *testing.T) {
	nvim := needTool(t, "nvim")
	root := sampleWorkspace(t)
	plugin, _ := filepath.Abs("nvim")
	out := runEditor(t, root, []string{
		"KAST_CMD=" + kastBin + " lsp --stdio",
		"KAST_FILE=" + filepath.Join(root, "src", "main", "kotlin", "sample", "Use.kt"),
	}, nvim, "--headless", "-u", "NONE", "-c", "set rtp^="+plugin, "-c", "luafile "+filepath.Join(plugin, "test", "health.lua"))
	report := strings.Join(lines(out, "HEALTH"), "\n")
	for _, want := range []string{kastBin + ": kast ", "client 1 attached, root " + root, "index of " + root + ": references"} {
		if !strings.Contains(report, want) {
			t.Errorf("the health report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(report, "ERROR") || !strings.Contains(out, "OK") {
		t.Errorf("the health report:\n%s", out)
	}
}

func TestEglotDefinition(t *testing.T) {
	emacs := needTool(t, "emacs")
	root := sampleWorkspace(t)
	kt := filepath.Join(root, "src", "main", "kotlin", "sample")
	script, _ := filepath.Abs(filepath.Join("emacs", "kast-eglot-test.el"))
	out := runEditor(t, root, nil, emacs, "--batch", "-Q", "-l", script, "--",
		filepath.Join(kt, "Use.kt"), "2", "20", "kotlin-mode", kastBin, "lsp", "--stdio")
	if defs := lines(out, "DEF"); len(defs) != 1 || defs[0] != filepath.Join(kt, "Greeter.kt")+":4:5" {
		t.Errorf("definition: %v\n%s", defs, out)
	}
}
