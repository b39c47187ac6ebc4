package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// A module that vendors its dependencies (vendor/modules.txt, go 1.14 or
// later) resolves them to vendor/, not the module cache, even when the
// cache holds another version of the same module.
func TestLSPDefinitionIntoVendor(t *testing.T) {
	files := map[string]string{
		"goroot/src/fmt/print.go":                  "package fmt\n\n// Println prints.\nfunc Println(a ...any) (n int, err error) { return 0, nil }\n",
		"modcache/example.com/vdep@v1.0.0/vdep.go": "package vdep\n\nfunc Hello() string { return \"cache\" }\n",
		"ws/go.mod":                              "module example.com/app\n\ngo 1.22\n\nrequire example.com/vdep v1.0.0\n",
		"ws/vendor/modules.txt":                  "# example.com/vdep v1.0.0\n## explicit; go 1.20\nexample.com/vdep\nexample.com/vdep/inner\n",
		"ws/vendor/example.com/vdep/vdep.go":     "package vdep\n\n// Hello greets.\nfunc Hello() string { return \"vendored\" }\n",
		"ws/vendor/example.com/vdep/inner/in.go": "package inner\n\nfunc In() {}\n",
		"ws/main.go":                             "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/vdep\"\n\t\"example.com/vdep/inner\"\n)\n\nfunc main() {\n\tfmt.Println(vdep.Hello())\n\tinner.In()\n}\n",
	}
	e, dir := startLibraryLSP(t, files, 2)
	root := filepath.ToSlash(dir)
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{10, 19, root + "/ws/vendor/example.com/vdep/vdep.go:3"},
		{11, 8, root + "/ws/vendor/example.com/vdep/inner/in.go:2"},
		{10, 6, root + "/goroot/src/fmt/print.go:3"},
	} {
		if got := e.defAt("main.go", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	st := e.waitLibraries(2)
	var vendor bool
	for _, l := range st.Indexed {
		if strings.HasPrefix(l.Library, "vendor@") {
			vendor = l.Files == 2 && l.Complete
		}
		if strings.HasPrefix(l.Library, "example.com/vdep@") {
			t.Errorf("the module cache's copy was indexed: %+v", l)
		}
	}
	if !vendor {
		t.Errorf("libraries: %+v, want vendor/ with its 2 files", st.Indexed)
	}
}
