package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func touch(t *testing.T, p string) {
	t.Helper()
	mkdirs(t, filepath.Dir(p))
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// isolate points HOME and TMPDIR into base so that the machine's own folders
// play no part.
func isolate(t *testing.T) string {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkdirs(t, filepath.Join(base, "home", "u"), filepath.Join(base, "tmp"))
	t.Setenv("HOME", filepath.Join(base, "home", "u"))
	t.Setenv("TMPDIR", filepath.Join(base, "tmp"))
	return base
}

func TestFindRootNearestMarker(t *testing.T) {
	base := isolate(t)
	repo := filepath.Join(base, "repo")
	touch(t, filepath.Join(repo, ".git", "HEAD"))
	touch(t, filepath.Join(repo, "web", "package.json"))
	touch(t, filepath.Join(repo, "web", "src", "app.ts"))
	touch(t, filepath.Join(repo, "svc", "go.mod"))
	touch(t, filepath.Join(repo, "svc", "internal", "x", "x.go"))
	touch(t, filepath.Join(repo, "docs", "guide", "intro.md"))
	for _, tc := range []struct{ start, root, marker string }{
		{"repo", "repo", ".git"},
		{"repo/docs/guide", "repo", ".git"},
		{"repo/docs/guide/intro.md", "repo", ".git"},
		{"repo/svc/internal/x", "repo/svc", "go.mod"},
		{"repo/svc/internal/x/x.go", "repo/svc", "go.mod"},
		{"repo/web/src/app.ts", "repo/web", "package.json"},
	} {
		root, marker, err := FindRoot(filepath.Join(base, filepath.FromSlash(tc.start)))
		if err != nil || root != filepath.Join(base, filepath.FromSlash(tc.root)) || marker != tc.marker {
			t.Errorf("FindRoot(%s) = %s, %q, %v; want %s, %q", tc.start, root, marker, err, tc.root, tc.marker)
		}
	}
}

func TestFindRootEveryMarker(t *testing.T) {
	base := isolate(t)
	for _, m := range Markers {
		dir := filepath.Join(base, "p-"+m)
		touch(t, filepath.Join(dir, m))
		mkdirs(t, filepath.Join(dir, "a", "b"))
		root, marker, err := FindRoot(filepath.Join(dir, "a", "b"))
		if err != nil || root != dir || marker != m {
			t.Errorf("marker %s: got %s, %q, %v", m, root, marker, err)
		}
	}
}

func TestFindRootOutsideAnyProject(t *testing.T) {
	base := isolate(t)
	home := filepath.Join(base, "home", "u")
	plain := filepath.Join(base, "plain", "sub")
	mkdirs(t, plain, filepath.Join(home, "scratch"))
	// A stray marker in the home folder does not make it a project.
	touch(t, filepath.Join(home, "package.json"))

	root, marker, err := FindRoot(plain)
	if err != nil || root != plain || marker != "" {
		t.Errorf("a plain folder is its own root: %s, %q, %v", root, marker, err)
	}
	root, marker, err = FindRoot(filepath.Join(home, "scratch"))
	if err != nil || root != filepath.Join(home, "scratch") || marker != "" {
		t.Errorf("a folder under home is its own root, home's marker ignored: %s, %q, %v", root, marker, err)
	}
	for _, tc := range []struct{ start, why string }{
		{home, "the home folder"},
		{filepath.Join(base, "home"), "a folder above the home folder"},
		{filepath.Join(base, "tmp"), "a temp root"},
		{string(filepath.Separator), "the filesystem root"},
	} {
		_, _, err := FindRoot(tc.start)
		var np *NoProjectError
		if !errors.As(err, &np) || np.Why != tc.why || !strings.Contains(err.Error(), "pass --root DIR") {
			t.Errorf("FindRoot(%s): %v; want a NoProjectError for %s", tc.start, err, tc.why)
		}
	}
	if _, _, err := FindRoot(filepath.Join(base, "missing")); err == nil {
		t.Error("a missing start must be an error")
	}
}

func TestFindOutsideAnyProjectUsesTheCurrentFolder(t *testing.T) {
	base := isolate(t)
	plain := filepath.Join(base, "plain")
	touch(t, filepath.Join(plain, "src", "deep", "x.kt"))
	other := filepath.Join(base, "other", "y.kt")
	touch(t, other)
	home := filepath.Join(base, "home", "u")
	touch(t, filepath.Join(home, "notes", "z.kt"))
	for _, tc := range []struct{ start, cwd, root string }{
		{filepath.Join(plain, "src", "deep", "x.kt"), plain, plain},                                      // a file below: the current folder
		{filepath.Join(plain, "src", "deep"), plain, plain},                                              // a folder below: the same
		{other, plain, filepath.Join(base, "other")},                                                     // a file elsewhere: its folder
		{filepath.Join(home, "notes", "z.kt"), home, filepath.Dir(filepath.Join(home, "notes", "z.kt"))}, // home is too broad
	} {
		root, marker, err := Find(tc.start, tc.cwd)
		if err != nil || root != tc.root || marker != "" {
			t.Errorf("Find(%s, %s) = %s, %q, %v; want %s", tc.start, tc.cwd, root, marker, err, tc.root)
		}
	}
	var np *NoProjectError
	if _, _, err := Find(home, home); !errors.As(err, &np) {
		t.Errorf("Find(home, home): %v, want a NoProjectError", err)
	}
}
