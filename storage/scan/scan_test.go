package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		path    string
		isDir   bool
		want    bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "deep/dir/a.log", false, true},
		{"*.log", "a.log.txt", false, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"build/", "src/build", true, true},
		{"/root.txt", "root.txt", false, true},
		{"/root.txt", "sub/root.txt", false, false},
		{"doc/*.md", "doc/a.md", false, true},
		{"doc/*.md", "doc/sub/a.md", false, false},
		{"doc/*.md", "x/doc/a.md", false, false},
		{"**/tmp", "tmp", true, true},
		{"**/tmp", "a/b/tmp", true, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**", "a/x/y", false, true},
		{"a/**", "a", true, false},
		{"file?.txt", "file1.txt", false, true},
		{"file?.txt", "file10.txt", false, false},
		{"[!a]*.c", "b.c", false, true},
		{"[!a]*.c", "a.c", false, false},
		{`\#hash`, "#hash", false, true},
		{"trailing   ", "trailing", false, true},
		{`space\ `, "space ", false, true},
	}
	for _, c := range cases {
		p, ok := parsePattern(c.pattern)
		if !ok {
			t.Errorf("%q: not parsed", c.pattern)
			continue
		}
		if got := p.match(c.path, c.isDir); got != c.want {
			t.Errorf("%q matching %q (dir %v) = %v, want %v", c.pattern, c.path, c.isDir, got, c.want)
		}
	}
	for _, skip := range []string{"", "   ", "# comment", "/"} {
		if _, ok := parsePattern(skip); ok {
			t.Errorf("%q should not be a pattern", skip)
		}
	}
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func relPaths(t *testing.T, root string, files []File) []string {
	var out []string
	for _, f := range files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

func TestWalk(t *testing.T) {
	root := t.TempDir()
	for rel, content := range map[string]string{
		".gitignore":             "*.log\n/generated/\n!keep.log\n**/cache/\n",
		"main.go":                "package main",
		"debug.log":              "x",
		"keep.log":               "kept by negation",
		"generated/gen.go":       "ignored: anchored dir",
		"pkg/generated/real.go":  "not ignored: /generated/ is anchored to the root",
		"pkg/.gitignore":         "local.txt\n!important.log\n",
		"pkg/local.txt":          "ignored by the nested file",
		"pkg/important.log":      "re-included by the nested file",
		"pkg/other.log":          "still ignored by the root file",
		"other/local.txt":        "the nested file does not reach here",
		"pkg/cache/c.go":         "ignored dir at depth",
		"node_modules/lib/x.js":  "default exclude",
		"src/vendor/v.go":        "default exclude at depth",
		".git/config":            "default exclude",
		".git/info/exclude":      "secret.go\n",
		"secret.go":              "ignored by .git/info/exclude",
		"big.go":                 strings.Repeat("x", 20000),
		"blob.bin":               "abc\x00def",
		"late_nul.txt":           strings.Repeat("a", 9000) + "\x00",
		"empty.go":               "",
		"pkg/sub/deeper/deep.go": "package deeper",
	} {
		write(t, root, rel, content)
	}
	if err := os.Symlink(filepath.Join(root, "main.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}

	res, err := Walk(context.Background(), root, Options{MaxFileSize: 10000})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "empty.go", "keep.log", "late_nul.txt", "main.go", "other/local.txt",
		"pkg/.gitignore", "pkg/generated/real.go", "pkg/important.log", "pkg/sub/deeper/deep.go"}
	if got := relPaths(t, root, res.Files); !slices.Equal(got, want) {
		t.Errorf("files:\n got %v\nwant %v", got, want)
	}
	if res.Skipped != (Skipped{TooLarge: 1, Binary: 1}) {
		t.Errorf("skipped = %+v", res.Skipped)
	}
	for _, f := range res.Files {
		if strings.HasSuffix(f.Path, "main.go") && (f.Size != 12 || f.ModTime.IsZero()) {
			t.Errorf("main.go: size %d, mtime %v", f.Size, f.ModTime)
		}
	}

	// Include filters before anything is opened or counted.
	res, err = Walk(context.Background(), root, Options{Include: func(p string) bool { return strings.HasSuffix(p, ".go") }})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"big.go", "empty.go", "main.go", "pkg/generated/real.go", "pkg/sub/deeper/deep.go"}
	if got := relPaths(t, root, res.Files); !slices.Equal(got, want) || res.Skipped != (Skipped{}) {
		t.Errorf("with Include: %v, skipped %+v", got, res.Skipped)
	}
}

func TestWalkUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files regardless of permissions")
	}
	root := t.TempDir()
	write(t, root, "ok.go", "package ok")
	write(t, root, "secret.go", "package secret")
	write(t, root, "locked/x.go", "package x")
	if err := os.Chmod(filepath.Join(root, "secret.go"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	res, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Skipped.Unreadable != 2 {
		t.Errorf("files %v, skipped %+v", relPaths(t, root, res.Files), res.Skipped)
	}
}

func TestBinaryAboveSniffWindowIsText(t *testing.T) {
	if IsBinary([]byte(strings.Repeat("a", sniffLen) + "\x00")) {
		t.Error("a NUL after the first 8 KB should not count")
	}
	if !IsBinary([]byte("\x7fELF\x00")) {
		t.Error("NUL in the first 8 KB should count")
	}
}

func TestWalkCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Walk(ctx, t.TempDir(), Options{}); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestBuildOutputsOnlyBesideTheirBuildFile(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{
		"app/build.gradle.kts", "app/build/generated/Gen.kt", "app/src/Main.kt",
		"lib/Cargo.toml", "lib/target/debug/build.rs", "lib/src/lib.rs",
		"web/package.json", "web/dist/bundle.js", "web/out/x.js",
		"go/build/build.go", "tools/target/target.go", "docs/out/page.md",
	} {
		write(t, root, rel, "x")
	}
	res, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app/build.gradle.kts", "app/src/Main.kt", "docs/out/page.md", "go/build/build.go",
		"lib/Cargo.toml", "lib/src/lib.rs", "tools/target/target.go", "web/package.json"}
	if got := relPaths(t, root, res.Files); !slices.Equal(got, want) {
		t.Errorf("files:\n got %v\nwant %v", got, want)
	}
}

// Files the caller reports unchanged are listed without the binary check;
// the others are still checked.
func TestUnchangedFilesAreNotReopened(t *testing.T) {
	root := t.TempDir()
	write(t, root, "known.bin", "abc\x00def")
	write(t, root, "new.bin", "abc\x00def")
	write(t, root, "new.go", "package x")
	res, err := Walk(context.Background(), root, Options{Unchanged: func(path string, size int64, _ time.Time) bool {
		return filepath.Base(path) == "known.bin" && size == 7
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := relPaths(t, root, res.Files); !slices.Equal(got, []string{"known.bin", "new.go"}) || res.Skipped.Binary != 1 {
		t.Errorf("files %v, skipped %+v", got, res.Skipped)
	}
}

// With CallerChecksBinary, Walk lists files without opening them: binary and
// unreadable files are listed for the caller to check.
func TestCallerChecksBinaryListsWithoutOpening(t *testing.T) {
	root := t.TempDir()
	write(t, root, "data.bin", "abc\x00def")
	write(t, root, "secret.go", "package x")
	write(t, root, "x.go", "package x")
	if err := os.Chmod(filepath.Join(root, "secret.go"), 0); err != nil {
		t.Fatal(err)
	}
	res, err := Walk(context.Background(), root, Options{CallerChecksBinary: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := relPaths(t, root, res.Files); !slices.Equal(got, []string{"data.bin", "secret.go", "x.go"}) || res.Skipped != (Skipped{}) {
		t.Errorf("files %v, skipped %+v", got, res.Skipped)
	}
}
