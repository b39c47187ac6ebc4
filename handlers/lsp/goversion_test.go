package lsp

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A fake toolchain whose api files date its names, and a go 1.19 module
// (with a go 1.15 module nested in it) that completes them.
var goVersionFiles = map[string]string{
	"goroot/src/strings/strings.go": "package strings\n\nfunc Count(s, substr string) int { return 0 }\n\nfunc Cut(s, sep string) (before, after string, found bool) { return }\n\n" +
		"func CutPrefix(s, prefix string) (after string, found bool) { return }\n\nfunc ContainsFunc(s string, f func(rune) bool) bool { return false }\n",
	"goroot/src/fmt/print.go":         "package fmt\n", // what makes a GOROOT
	"goroot/src/iter/iter.go":         "package iter\n\ntype Seq[V any] func(yield func(V) bool)\n",
	"goroot/src/sync/atomic/types.go": "package atomic\n\nfunc AddInt64(addr *int64, delta int64) int64 { return 0 }\n\ntype Int64 struct{ v int64 }\n\nfunc (x *Int64) Load() int64 { return 0 }\n\nfunc (x *Int64) Store(v int64) {}\n",
	"goroot/src/net/http/request.go": "package http\n\ntype Request struct {\n\tMethod  string\n\tPattern string\n}\n\n" +
		"func (r *Request) Clone() *Request { return r }\n\nfunc (r *Request) PathValue(name string) string { return \"\" }\n",
	"goroot/api/go1.txt":    "pkg strings, func Count(string, string) int\npkg sync/atomic, func AddInt64(*int64, int64) int64\npkg net/http, type Request struct\npkg net/http, type Request struct, Method string\n",
	"goroot/api/go1.13.txt": "pkg net/http, method (*Request) Clone(context.Context) *Request\n",
	"goroot/api/go1.18.txt": "pkg strings, func Cut(string, string) (string, string, bool)\n",
	"goroot/api/go1.19.txt": "pkg sync/atomic, type Int64 struct\npkg sync/atomic, method (*Int64) Load() int64\npkg sync/atomic, method (*Int64) Store(int64)\n",
	"goroot/api/go1.20.txt": "pkg strings, func CutPrefix(string, string) (string, bool)\n",
	"goroot/api/go1.21.txt": "pkg strings, func ContainsFunc(string, func(int32) bool) bool\n",
	"goroot/api/go1.22.txt": "pkg net/http, method (*Request) PathValue(string) string\n",
	"goroot/api/go1.23.txt": "pkg net/http, type Request struct, Pattern string\npkg iter, type Seq[$0 interface{}] func(func($0) bool)\n",
	"ws/go.mod":             "module example.com/app\n\ngo 1.19\n",
	"ws/main.go":            "package main\n\nfunc main() {}\n",
	"ws/old/go.mod":         "module example.com/old\n\ngo 1.15\n",
	"ws/old/old.go":         "package old\n",
}

const goVersionMain = "package main\n\nimport (\n\t\"iter\"\n\t\"net/http\"\n\t\"strings\"\n\t\"sync/atomic\"\n)\n\n" +
	"func f(r *http.Request, x *atomic.Int64, s iter.Seq[int]) {\n\tstrings.C\n\tr.\n\tx.\n\titer.\n\tatomic.\n}\n"

// Completion offers no standard-library name newer than the file's Go
// version: go.mod's go line, or the //go:build line's version (at least
// 1.21); a type that is too new hides itself, not its members.
func TestLSPGoCompletionFollowsGoVersion(t *testing.T) {
	e, _ := startLibraryLSPWith(t, goVersionFiles, 1, func(dir string) {
		for minor := 1; minor <= 23; minor++ { // the api files between, empty
			p := filepath.Join(dir, "goroot", "api", fmt.Sprintf("go1.%d.txt", minor))
			if _, err := os.Stat(p); err != nil {
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	check := func(name, text string, line, char int, want ...string) {
		t.Helper()
		got := e.completionLabels(name, "go", text, line, char)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:%d:%d (%s) = %v, want %v", name, line, char, strings.SplitN(text, "\n", 2)[0], got, want)
		}
	}
	// go 1.19
	check("main.go", goVersionMain, 10, 10, "Count", "Cut")
	check("main.go", goVersionMain, 11, 3, "Clone", "Method", "Clone().Clone", "Clone().Method") // deep ones too
	check("main.go", goVersionMain, 12, 3, "Load", "Store")
	check("main.go", goVersionMain, 13, 6)
	check("main.go", goVersionMain, 14, 8, "AddInt64", "Int64")
	// go1.22 by the build constraint
	tagged := "//go:build go1.22 && linux\n\n" + goVersionMain
	check("tagged.go", tagged, 12, 10, "ContainsFunc", "Count", "Cut", "CutPrefix")
	check("tagged.go", tagged, 13, 3, "Clone", "Method", "PathValue", "Clone().Clone", "Clone().Method", "Clone().PathValue")
	// go1.20 by the build constraint counts as 1.21
	check("tagged.go", "//go:build go1.20\n\n"+goVersionMain, 12, 10, "ContainsFunc", "Count", "Cut", "CutPrefix")
	// go 1.15 in a nested module: atomic.Int64 is too new, its methods are not
	old := strings.Replace(goVersionMain, "package main", "package old", 1)
	check("old/old.go", old, 14, 8, "AddInt64")
	check("old/old.go", old, 12, 3, "Load", "Store")
}

// A toolchain without api files dates nothing: completion offers every
// name, and kast.status counts why.
func TestLSPGoCompletionWithoutAPIFiles(t *testing.T) {
	files := maps.Clone(goVersionFiles)
	maps.DeleteFunc(files, func(name, _ string) bool { return strings.HasPrefix(name, "goroot/api/") })
	e, _ := startLibraryLSP(t, files, 1)
	got := e.completionLabels("main.go", "go", goVersionMain, 10, 10)
	slices.Sort(got)
	if want := []string{"ContainsFunc", "Count", "Cut", "CutPrefix"}; !slices.Equal(got, want) {
		t.Errorf("strings.C without api files = %v, want %v", got, want)
	}
	var status struct {
		Libraries struct {
			StdAPIProblems map[string]int `json:"stdApiProblems"`
		} `json:"libraries"`
	}
	if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": cmdStatus}, &status); err != nil {
		t.Fatal(err)
	}
	if status.Libraries.StdAPIProblems["noApiDir"] == 0 {
		t.Errorf("kast.status libraries.stdApiProblems = %v, want noApiDir counted", status.Libraries.StdAPIProblems)
	}
}
