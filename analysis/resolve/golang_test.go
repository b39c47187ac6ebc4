package resolve

import (
	"testing"

	"github.com/kast-dev/kast/analysis"
)

func TestGoFilePlatform(t *testing.T) {
	for _, c := range []struct{ path, goos, goarch string }{
		{"os/file_unix.go", "", ""},
		{"os/file_windows.go", "windows", ""},
		{"runtime/defs_linux_amd64.go", "linux", "amd64"},
		{"math/exp_amd64.go", "", "amd64"},
		{"os/exec_windows_test.go", "windows", ""},
		{"syscall/linux.go", "", ""},
		{"x/mips64x.go", "", ""},
	} {
		if goos, goarch := goFilePlatform(c.path); goos != c.goos || goarch != c.goarch {
			t.Errorf("goFilePlatform(%q) = %q, %q; want %q, %q", c.path, goos, goarch, c.goos, c.goarch)
		}
	}
	for _, c := range []struct {
		from, candidate string
		want            int
	}{
		{"a/use.go", "a/fd_unix.go", 1},
		{"a/use.go", "a/fd_windows.go", 0},
		{"a/use.go", "a/defs_linux_arm64.go", 0},
		{"a/use_windows.go", "a/fd_windows.go", 1},
		{"a/use_windows.go", "a/fd_linux.go", 0},
		{"a/use_windows_arm64.go", "a/defs_windows_amd64.go", 0},
		{"a/use_android.go", "a/fd_linux.go", 1},
		{"a/Main.kt", "a/fd_windows.go", 0},
	} {
		if got := goBuildFit(c.from, c.candidate); got != c.want {
			t.Errorf("goBuildFit(%q, %q) = %d, want %d", c.from, c.candidate, got, c.want)
		}
	}
}

func TestGoTypeText(t *testing.T) {
	for _, c := range []struct{ results, want string }{
		{"*Cmd", "*Cmd"},
		{"(*Cmd, error)", "*Cmd"},
		{"(n int, err error)", "int"},
		{"(a, b *Point)", "*Point"},
		{"(map[string]int, error)", "map[string]int"},
		{"(chan int)", "chan int"},
		{"", ""},
	} {
		if got := nthResult(c.results, 0); got != c.want {
			t.Errorf("nthResult(%q, 0) = %q, want %q", c.results, got, c.want)
		}
	}
	for _, c := range []struct {
		results string
		n       int
		want    string
	}{
		{"(r *File, w *File, err error)", 1, "*File"},
		{"(r, w *File, err error)", 0, "*File"},
		{"(*Cmd, error)", 1, "error"},
		{"(*Cmd, error)", 2, ""},
		{"*Cmd", 1, ""},
	} {
		if got := nthResult(c.results, c.n); got != c.want {
			t.Errorf("nthResult(%q, %d) = %q, want %q", c.results, c.n, got, c.want)
		}
	}
	for _, c := range []struct{ typ, want string }{
		{"[]*Value", "*Value"}, {"[4]T", "T"}, {"*[4]T", "T"}, {"map[string][]int", "[]int"}, {"T", ""},
	} {
		if got := elemType(c.typ); got != c.want {
			t.Errorf("elemType(%q) = %q, want %q", c.typ, got, c.want)
		}
	}
	for _, c := range []struct{ path, name string }{
		{"fmt", "fmt"}, {"math/rand/v2", "rand"}, {"gopkg.in/yaml.v3", "yaml"}, {"github.com/x/go-cmp", "cmp"},
	} {
		imp := analysis.Import{Path: c.path, Name: c.path[max(0, lastSlash(c.path)+1):]}
		if got := goImportName(imp); got != c.name {
			t.Errorf("goImportName(%q) = %q, want %q", c.path, got, c.name)
		}
	}
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}
