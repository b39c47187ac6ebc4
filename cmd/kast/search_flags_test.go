package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ck's index management flags, each with ck's meaning, on one workspace in
// the order a user would run them.
func TestSearchIndexManagementFlags(t *testing.T) {
	dir, env := searchWorkspace(t)
	run := func(want int, args ...string) string {
		t.Helper()
		out, code := runKast(t, dir, env, append([]string{"search"}, args...)...)
		if code != want {
			t.Fatalf("search %v: exit %d, want %d; output:\n%s", args, code, want, out)
		}
		return out
	}
	if out := run(0, "--index", "."); !regexp.MustCompile(`^4 files: 4 indexed, 0 removed, \d+ chunks`).MatchString(out) {
		t.Fatalf("--index: %q", out)
	}
	if out := run(0, "--status", "."); !strings.Contains(out, "4 files") || !strings.Contains(out, "last updated") {
		t.Errorf("--status: %q", out)
	}
	if out := run(0, "--status-verbose", "."); !strings.Contains(out, "embedding model: kast-learned-v1-192") || !strings.Contains(out, "segments") {
		t.Errorf("--status-verbose: %q", out)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(run(0, "--status-json", ".")), &st); err != nil || st["file_count"] != 4.0 || st["indexed"] != true {
		t.Errorf("--status-json: %v %v", st, err)
	}
	// --inspect lists a file's chunks; --dump-chunks adds their text.
	if out := run(0, "--inspect", "pkg/config.go"); !strings.Contains(out, "function ParseConfig lines 5-12") || strings.Contains(out, "os.ReadFile") {
		t.Errorf("--inspect: %q", out)
	}
	if out := run(0, "--dump-chunks", "pkg/config.go"); !strings.Contains(out, "function ParseConfig lines 5-12") || !strings.Contains(out, "os.ReadFile") {
		t.Errorf("--dump-chunks: %q", out)
	}
	// --add indexes one new file; --clean-orphans drops a deleted one.
	added := filepath.Join(dir, "pkg", "added.go")
	os.WriteFile(added, []byte("package pkg\n\nfunc AddedLater() {}\n"), 0o644)
	if out := run(0, "--add", "pkg/added.go"); !strings.HasPrefix(out, "5 files: 1 indexed, 0 removed") {
		t.Errorf("--add: %q", out)
	}
	if out := run(0, "--inspect", "pkg/added.go"); !strings.Contains(out, "function AddedLater") {
		t.Errorf("--inspect after --add: %q", out)
	}
	os.Remove(added)
	if out := run(0, "--clean-orphans", "."); !strings.HasPrefix(out, "4 files: 0 indexed, 1 removed") {
		t.Errorf("--clean-orphans: %q", out)
	}
	// --force rebuilds every file; without it an unchanged tree reads none.
	if out := run(0, "--index", "."); !strings.HasPrefix(out, "4 files: 0 indexed") {
		t.Errorf("--index again: %q", out)
	}
	if out := run(0, "--index", "--force", "."); !strings.HasPrefix(out, "4 files: 4 indexed") {
		t.Errorf("--index --force: %q", out)
	}
	// --clean deletes the index.
	if out := run(0, "--clean", "."); !strings.Contains(out, "removed the search index") {
		t.Errorf("--clean: %q", out)
	}
	if out := run(0, "--status", "."); !strings.Contains(out, "not indexed") {
		t.Errorf("--status after --clean: %q", out)
	}
}

// ck's scope flags: .ckignore files and ck's default excludes apply unless
// --no-ckignore and --no-default-excludes say otherwise; -r and -R are
// accepted (search is always recursive) and -q (ck: no progress output)
// changes no result.
func TestSearchScopeFlags(t *testing.T) {
	dir, env := searchWorkspace(t)
	for name, text := range map[string]string{"build/out.txt": "needle\n", "keep/.ckignore": "b.txt\n", "keep/b.txt": "needle\n", "keep/a.txt": "needle\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	files := func(args ...string) string {
		t.Helper()
		out, code := runKast(t, dir, env, append([]string{"search", "-l"}, args...)...)
		if code > 1 {
			t.Fatalf("search -l %v: exit %d", args, code)
		}
		return strings.Join(strings.Fields(out), " ")
	}
	for args, want := range map[string]string{
		"needle":                       "keep/a.txt",
		"--no-ckignore needle":         "keep/a.txt keep/b.txt",
		"--no-default-excludes needle": "build/out.txt keep/a.txt",
		"--no-ckignore --no-default-excludes needle": "build/out.txt keep/a.txt keep/b.txt",
		"-q -r needle": "keep/a.txt",
		"-R needle .":  "keep/a.txt",
		"--no-ckignore --no-default-excludes -q needle": "build/out.txt keep/a.txt keep/b.txt",
	} {
		if got := files(strings.Fields(args)...); got != want {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}

// --rerank scales lexical scores by the share of the query's terms a chunk
// holds; --rerank-model names kast's one reranker, and another name is an
// error rather than a silent substitute.
func TestSearchRerankFlags(t *testing.T) {
	dir, env := searchWorkspace(t)
	plain, _ := runKast(t, dir, env, "search", "--lex", "--scores", "--topk", "1", "retry zebra")
	reranked, code := runKast(t, dir, env, "search", "--lex", "--rerank", "--rerank-model", "kast-term-coverage", "--scores", "--topk", "1", "retry zebra")
	score := regexp.MustCompile(`\(([0-9.]+)\)`)
	p, r := score.FindStringSubmatch(plain), score.FindStringSubmatch(reranked)
	if code != 0 || p == nil || r == nil || p[1] == r[1] {
		t.Fatalf("--rerank left the score as it was or failed (exit %d):\n%s\n%s", code, plain, reranked)
	}
	_, stderr, code := runKastErr(t, dir, env, "search", "--lex", "--rerank-model", "jina-reranker-v1-turbo-en", "retry")
	if code != 2 || !strings.Contains(stderr, "kast has one reranker") {
		t.Fatalf("unknown --rerank-model: exit %d, %q", code, stderr)
	}
}
