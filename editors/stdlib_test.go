package editors_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A Go module whose main.go calls fmt.Println; the definition is in the
// standard library of the toolchain (go env GOROOT), which kast indexes as
// a library.
const stdlibMain = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"

var stdlibCache struct {
	once sync.Once
	dir  string
	err  error
}

// sharedLibraryCache builds the standard library's index once for the
// editors' tests, with kast index, into a cache folder they share: each
// test's own server then finds it built.
func sharedLibraryCache(t *testing.T, root string) string {
	stdlibCache.once.Do(func() {
		// Beside the binary, which TestMain removes at the end.
		stdlibCache.dir, stdlibCache.err = os.MkdirTemp(filepath.Dir(kastBin), "cache-")
		if stdlibCache.err != nil {
			return
		}
		cmd := exec.Command(kastBin, "index", root)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+stdlibCache.dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			stdlibCache.err = fmt.Errorf("kast index: %v\n%s", err, out)
		}
	})
	if stdlibCache.err != nil {
		t.Fatal(stdlibCache.err)
	}
	return stdlibCache.dir
}

func goWorkspace(t *testing.T) string {
	root := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/hello\n\ngo 1.22\n", "main.go": stdlibMain} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// printlnDecl is where fmt.Println is declared, as DEF lines print it.
func printlnDecl(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "src", "fmt", "print.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "func Println(") {
			return fmt.Sprintf("%s:%d:6", file, i+1)
		}
	}
	t.Fatalf("no func Println in %s", file)
	return ""
}

func runEditorCached(t *testing.T, dir, cache string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "XDG_CACHE_HOME="+cache)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}

func TestNeovimDefinitionInStandardLibrary(t *testing.T) {
	nvim := needTool(t, "nvim")
	root := goWorkspace(t)
	cache := sharedLibraryCache(t, root)
	plugin, _ := filepath.Abs("nvim")
	out := runEditorCached(t, root, cache, []string{
		"KAST_CMD=" + kastBin + " lsp --stdio", "KAST_FILE=" + filepath.Join(root, "main.go"), "KAST_LINE=5", "KAST_COL=6",
	}, nvim, "--headless", "-u", "NONE", "-c", "set rtp^="+plugin, "-c", "luafile "+filepath.Join(plugin, "test", "definition.lua"))
	if defs := lines(out, "DEF"); len(defs) != 1 || defs[0] != printlnDecl(t) {
		t.Errorf("definition of fmt.Println: %v, want %s\n%s", defs, printlnDecl(t), out)
	}
}

func TestEglotDefinitionInStandardLibrary(t *testing.T) {
	emacs := needTool(t, "emacs")
	root := goWorkspace(t)
	cache := sharedLibraryCache(t, root)
	script, _ := filepath.Abs(filepath.Join("emacs", "kast-eglot-test.el"))
	out := runEditorCached(t, root, cache, nil, emacs, "--batch", "-Q", "-l", script, "--",
		filepath.Join(root, "main.go"), "5", "6", "go-mode", kastBin, "lsp", "--stdio")
	if defs := lines(out, "DEF"); len(defs) != 1 || defs[0] != printlnDecl(t) {
		t.Errorf("definition of fmt.Println: %v, want %s\n%s", defs, printlnDecl(t), out)
	}
}
