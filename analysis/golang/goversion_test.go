package golang

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestBuildConstraintMinor(t *testing.T) {
	for _, c := range []struct {
		text  string
		minor int
		ok    bool
	}{
		{"//go:build go1.22\n\npackage p\n", 22, true},
		{"// Copyright.\n\n//go:build linux && go1.23\n\npackage p\n", 23, true},
		{"//go:build linux || go1.23\n\npackage p\n", 0, false}, // no version required
		{"//go:build !go1.22\n\npackage p\n", 0, false},
		{"package p\n\n//go:build go1.22\n", 0, false}, // past the header
		{"/* x */\n//go:build go1.22\npackage p\n", 0, false},
	} {
		minor, ok := buildConstraintMinor([]byte(c.text))
		if minor != c.minor || ok != c.ok {
			t.Errorf("buildConstraintMinor(%q) = %d %v, want %d %v", c.text, minor, ok, c.minor, c.ok)
		}
	}
}

// A file's version: its module's go line (1.16 without one), unless its
// build constraint names one, raised to 1.21. go.mod is read again when it
// changes.
func TestFileGoMinor(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gomod := write("m/go.mod", "module m\n\ngo 1.19.2\n")
	write("m/none/go.mod", "module none\n")
	write("m/bad/go.mod", "module bad\ngo what\n!!\n")
	check := func(file, text string, want int, wantOK bool) {
		t.Helper()
		if got, ok := FileGoMinor(filepath.Join(dir, filepath.FromSlash(file)), []byte(text)); got != want || ok != wantOK {
			t.Errorf("FileGoMinor(%s) = %d %v, want %d %v", file, got, ok, want, wantOK)
		}
	}
	check("m/a/b/x.go", "package b\n", 19, true)
	check("m/a/b/x.go", "//go:build go1.20\n\npackage b\n", 21, true)
	check("m/a/b/x.go", "//go:build go1.24\n\npackage b\n", 24, true)
	check("m/none/x.go", "package none\n", 16, true)
	check("m/bad/x.go", "package bad\n", 0, false)
	check("x.go", "package x\n", 0, false) // no module
	if err := os.WriteFile(gomod, []byte("module m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(gomod, later, later); err != nil {
		t.Fatal(err)
	}
	check("m/a/b/x.go", "package b\n", 22, true)
}
