package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-search-golden", false, "rewrite the golden files of search tests")

// searchWorkspace copies testdata/search/repo into a temp dir (no .git above
// it, so it is its own workspace) with a private index cache.
func searchWorkspace(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "search", "repo")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "ignored"), 0o755)
	os.WriteFile(filepath.Join(dir, "ignored", "hidden.go"), []byte("package x\n\nfunc ParseConfig() {}\n"), 0o644)
	return dir, append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "KAST_EMBEDDER=")
}

func TestSearchGolden(t *testing.T) {
	dir, env := searchWorkspace(t)
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"regex_n", []string{"-n", `func \w+`}, 0},
		{"ignore_case_context", []string{"-n", "-i", "-C", "1", "timeout"}, 0},
		{"whole_word", []string{"-w", "Timeout"}, 0},
		{"fixed", []string{"-F", "-n", "map[string]string", "pkg"}, 0},
		{"files_with", []string{"-l", "Request"}, 0},
		{"files_without", []string{"-L", "Request"}, 0},
		{"jsonl", []string{"--jsonl", "-w", "Timeout"}, 0},
		{"lex", []string{"--lex", "--scores", "--topk", "2", "retry backoff"}, 0},
		{"sem", []string{"--sem", "--topk", "1", "parse config"}, 0},
		{"hybrid_json", []string{"--hybrid", "--json", "--topk", "1", "handle request"}, 0},
		{"scoped_exclude", []string{"-n", "--exclude", "*.txt", "-i", "timeout"}, 0},
		{"no_match", []string{"zzzznothing"}, 1},
		{"gitignored", []string{"-l", "ParseConfig"}, 0},
		// ck's flags.
		{"no_filename", []string{"--no-filename", "-n", "-w", "Timeout"}, 0},
		{"one_file", []string{"-n", "func", "pkg/config.go"}, 0},
		{"one_file_H", []string{"-H", "-n", "func", "pkg/config.go"}, 0},
		{"several_paths", []string{"-n", "-i", "timeout", "pkg/server.go", "notes.txt"}, 0},
		{"hidden", []string{"-l", "--hidden", "ignored"}, 0},
		{"no_ignore", []string{"-l", "--no-ignore", "ParseConfig"}, 0},
		{"json_v1", []string{"--json-v1", "-w", "Timeout"}, 0},
		{"no_snippet", []string{"--jsonl", "--no-snippet", "-w", "Timeout"}, 0},
		{"limit", []string{"-n", "--limit", "1", "func"}, 0},
		{"full_section", []string{"--full-section", "parseLines\\("}, 0},
		{"multiline", []string{"-n", "-U", "err != nil \\{\\n\\s+return"}, 0},
		{"newline_needs_U", []string{"a\\nb"}, 2},
		{"print_default_ckignore", []string{"--print-default-ckignore"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runKast(t, dir, env, append([]string{"search"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; output:\n%s", code, tc.code, out)
			}
			golden := filepath.Join("..", "..", "testdata", "search", "golden", tc.name+".txt")
			if *updateGolden {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", golden, out, want)
			}
		})
	}
}

func TestSearchBadPattern(t *testing.T) {
	dir, env := searchWorkspace(t)
	out, code := runKast(t, dir, env, "search", "[unclosed")
	if code != 2 || out != "" {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if _, code := runKast(t, dir, env, "search", "--lex", "--sem", "x"); code != 2 {
		t.Fatalf("--lex with --sem: exit %d", code)
	}
	if !strings.Contains(dir, os.TempDir()) {
		t.Fatal("workspace outside the temp dir")
	}
}

// A subfolder with a project marker of its own, inside a folder already
// indexed, is searched with the parent's index: no second index is built.
func TestSearchSubfolderReusesParentIndex(t *testing.T) {
	dir, env := searchWorkspace(t)
	cache := strings.TrimPrefix(env[len(env)-2], "XDG_CACHE_HOME=")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "tool")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "package.json"), []byte(`{"name": "tool"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "main.js"), []byte("const retryBudget = 3\n"), 0o644)
	if out, code := runKast(t, dir, env, "search", "-l", "retryBudget"); code != 0 || strings.TrimSpace(out) != "tool/main.js" {
		t.Fatalf("from the parent: exit %d, %q", code, out)
	}
	out, code := runKast(t, sub, env, "search", "-n", "retryBudget")
	if code != 0 || strings.TrimSpace(out) != "main.js:1:const retryBudget = 3" {
		t.Fatalf("from the subfolder: exit %d, %q", code, out)
	}
	entries, err := os.ReadDir(filepath.Join(cache, "kast"))
	if err != nil {
		t.Fatal(err)
	}
	var indexes []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			indexes = append(indexes, e.Name())
		}
	}
	if len(indexes) != 1 {
		t.Errorf("index folders %v, want the parent's alone", indexes)
	}
}
