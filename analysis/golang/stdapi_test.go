package golang

import (
	"go/build"
	"os"
	"path/filepath"
	"testing"
)

func TestAPISymbol(t *testing.T) {
	for _, c := range []struct{ line, pkg, sym string }{
		{"pkg strings, func CutPrefix(string, string) (string, bool)", "strings", "CutPrefix"},
		{"pkg syscall (linux-386), const AF_ALG = 38", "syscall", "AF_ALG"},
		{"pkg syscall (linux-386-cgo), var ForkLock sync.RWMutex", "syscall", "ForkLock"},
		{"pkg net/http, method (*Request) Clone(context.Context) *Request", "net/http", "Request.Clone"},
		{"pkg sync/atomic, method (*Pointer[$0]) Load() *$0 #50860", "sync/atomic", "Pointer.Load"},
		{"pkg go/ast, type File struct, FileStart token.Pos", "go/ast", "File.FileStart"},
		{"pkg database/sql, type Null[$0 interface{}] struct, Valid bool #60370", "database/sql", "Null.Valid"},
		{"pkg archive/zip, type FileHeader struct, embedded *fs.FileInfo", "archive/zip", "FileHeader.FileInfo"},
		{"pkg reflect, type Type interface, CanSeq() bool", "reflect", "Type.CanSeq"},
		{"pkg net, type Error interface, Temporary //deprecated", "net", ""},
		{"pkg reflect, type Type interface, unexported methods", "reflect", ""},
		{"pkg iter, type Seq[$0 interface{}] func(func($0) bool) #61897", "iter", "Seq"},
		{"pkg os, type DirEntry = fs.DirEntry", "os", "DirEntry"},
	} {
		pkg, sym, ok := apiSymbol(c.line)
		if !ok || pkg != c.pkg || sym != c.sym {
			t.Errorf("apiSymbol(%q) = %q %q %v, want %q %q", c.line, pkg, sym, ok, c.pkg, c.sym)
		}
	}
	for _, bad := range []string{"pkg strings", "pkg strings, frob X", "strings, func X()", "pkg p, method (T Foo"} {
		if _, _, ok := apiSymbol(bad); ok {
			t.Errorf("apiSymbol(%q) read a name", bad)
		}
	}
}

func writeAPI(t *testing.T, files map[string]string) string {
	t.Helper()
	goroot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(goroot, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(goroot, "api", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return goroot
}

// A name listed again later (a constant whose value changed) keeps the
// version it first appeared in; lines that cannot be read are counted.
func TestStdAPIFirstListingWins(t *testing.T) {
	files := map[string]string{
		"go1.txt":   "pkg syscall (linux-386), const EPOLLRDHUP = 8192\npkg strings, func Count(string, string) int\n",
		"go1.1.txt": "pkg syscall (linux-arm), const EPOLLRDHUP = 8192\npkg strings, func Cut(string, string) (string, string, bool)\nnot an api line\n",
		"go1.2.txt": "pkg syscall, const EPOLLRDHUP ideal-int\n",
		"README":    "not an api file",
	}
	before := StdAPIProblems()["apiBadLines"]
	api, err := StdAPIOf(writeAPI(t, files))
	if err != nil {
		t.Fatal(err)
	}
	for sym, want := range map[string]int{"EPOLLRDHUP": 0, "Cut": 1, "Count": 0} {
		pkg := "strings"
		if sym == "EPOLLRDHUP" {
			pkg = "syscall"
		}
		if got, ok := api.Since(pkg, sym); !ok || got != want {
			t.Errorf("Since(%s, %s) = %d %v, want %d", pkg, sym, got, ok, want)
		}
	}
	if _, ok := api.Since("strings", "Nope"); ok {
		t.Error("an unlisted name has a version")
	}
	if api.Newest != 2 {
		t.Errorf("Newest = %d, want 2", api.Newest)
	}
	if got := StdAPIProblems()["apiBadLines"] - before; got != 1 {
		t.Errorf("bad lines counted: %d, want 1", got)
	}
}

// A missing api folder, or a missing file between go1.txt and the newest,
// gives no versions (nothing is filtered), with a counted reason.
func TestStdAPIBrokenIsCounted(t *testing.T) {
	before := StdAPIProblems()
	if _, err := StdAPIOf(t.TempDir()); err == nil {
		t.Error("a GOROOT without api/ gave versions")
	}
	gap := writeAPI(t, map[string]string{"go1.txt": "", "go1.1.txt": "", "go1.3.txt": ""})
	if _, err := StdAPIOf(gap); err == nil {
		t.Error("api/ without go1.2.txt gave versions")
	}
	// Asked again, the answer is remembered, not counted again.
	if _, err := StdAPIOf(gap); err == nil {
		t.Error("api/ without go1.2.txt gave versions")
	}
	after := StdAPIProblems()
	if after[APINoDir]-before[APINoDir] != 1 || after[APIGap]-before[APIGap] != 1 {
		t.Errorf("problems went %v → %v, want one more %s and one more %s", before, after, APINoDir, APIGap)
	}
}

// The toolchain running the tests ships its api files: they parse whole.
func TestStdAPIOfThisToolchain(t *testing.T) {
	goroot := build.Default.GOROOT
	before := StdAPIProblems()["apiBadLines"]
	api, err := StdAPIOf(goroot)
	if err != nil {
		t.Fatalf("the api files of the toolchain at %q: %v", goroot, err)
	}
	if got := StdAPIProblems()["apiBadLines"] - before; got != 0 {
		t.Errorf("%d lines of %s/api could not be read", got, goroot)
	}
	if v, ok := api.Since("strings", "CutPrefix"); !ok || v != 20 {
		t.Errorf("strings.CutPrefix since %d %v, want 20", v, ok)
	}
	if v, ok := api.Since("net/http", "Request.Clone"); !ok || v != 13 {
		t.Errorf("(*http.Request).Clone since %d %v, want 13", v, ok)
	}
}
