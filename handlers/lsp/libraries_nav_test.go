package lsp

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"go.lsp.dev/uri"
)

// navLibraryFiles: the standard library's strings.Builder and io.Writer,
// a module whose type implements a workspace interface, and a workspace
// type implementing the library's interface.
var navLibraryFiles = map[string]string{
	"goroot/src/strings/builder.go":           "package strings\n\n// A Builder builds strings.\ntype Builder struct {\n\tbuf []byte\n}\n\nfunc (b *Builder) WriteString(s string) (int, error) { return 0, nil }\n\nfunc (b *Builder) String() string { return \"\" }\n",
	"goroot/src/io/io.go":                     "package io\n\n// Writer writes.\ntype Writer interface {\n\tWrite(p []byte) (n int, err error)\n}\n",
	"goroot/src/fmt/errors.go":                "package fmt\n\n// Errorf formats an error.\nfunc Errorf(format string, a ...any) error { return nil }\n",
	"modcache/example.com/!dep@v1.2.0/dep.go": "package dep\n\n// Client talks.\ntype Client struct{}\n\n// New makes a Client.\nfunc New() *Client { return &Client{} }\n\n// Send sends.\nfunc (c *Client) Send(msg string) error { return nil }\n",
	"modcache/example.com/!dep@v1.2.0/go.mod": "module example.com/Dep\n",
	"ws/go.mod":    "module example.com/app\n\ngo 1.22\n\nrequire example.com/Dep v1.2.0\n",
	"ws/sink.go":   "package main\n\n// Sink is the workspace's writer.\ntype Sink struct{}\n\nfunc (s *Sink) Write(p []byte) (int, error) { return len(p), nil }\n",
	"ws/sender.go": "package main\n\n// Sender sends.\ntype Sender interface {\n\tSend(msg string) error\n}\n",
	"ws/main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"strings\"\n\n\t\"example.com/Dep\"\n)\n\n" +
		"func main() {\n\tvar b strings.Builder\n\tb.WriteString(\"x\")\n\tvar w io.Writer = &Sink{}\n\tvar s Sender = dep.New()\n\t_, _ = w, s\n\t_ = fmt.Errorf(\"e\")\n\tw.Write(nil)\n}\n",
}

func (e *lspEnv) locsAt(method, name string, line, char int) []string {
	e.t.Helper()
	var raw json.RawMessage
	if err := e.client.Call(e.ctx, method, e.at(name, line, char), &raw); err != nil {
		e.t.Fatalf("%s at %d:%d: %v", method, line, char, err)
	}
	var locs []wireLoc
	if len(raw) > 0 && raw[0] == '{' {
		var one wireLoc
		_ = json.Unmarshal(raw, &one)
		locs = append(locs, one)
	} else {
		_ = json.Unmarshal(raw, &locs)
	}
	var out []string
	for _, l := range locs {
		out = append(out, filepath.ToSlash(uri.URI(l.URI).FsPath())+":"+strconv.Itoa(l.Range.Start.Line))
	}
	slices.Sort(out)
	return out
}

// Type definition, declaration and implementation reach the libraries as
// definition does.
func TestLSPNavigationIntoLibraries(t *testing.T) {
	e, dir := startLibraryLSP(t, navLibraryFiles, 2)
	root := filepath.ToSlash(dir)
	for _, c := range []struct {
		method     string
		line, char int
		want       []string
	}{
		// b is a strings.Builder: its type is in GOROOT.
		{"textDocument/typeDefinition", 12, 1, []string{root + "/goroot/src/strings/builder.go:3"}},
		// A method of a library type: its declaration is its definition.
		{"textDocument/declaration", 12, 4, []string{root + "/goroot/src/strings/builder.go:7"}},
		{"textDocument/declaration", 16, 9, []string{root + "/goroot/src/fmt/errors.go:3"}},
		// The library's io.Writer is implemented by the workspace's Sink.
		{"textDocument/implementation", 13, 12, []string{root + "/ws/sink.go:3"}},
		// The workspace's Sender is implemented by the module's Client.
		{"textDocument/implementation", 14, 8, []string{root + "/modcache/example.com/!dep@v1.2.0/dep.go:3"}},
		// The library's interface method is the workspace's method.
		{"textDocument/implementation", 17, 3, []string{root + "/ws/sink.go:5"}},
		// s is a Sender: its type definition is the workspace's.
		{"textDocument/typeDefinition", 15, 11, []string{root + "/ws/sender.go:3"}},
	} {
		if got := e.locsAt(c.method, "main.go", c.line, c.char); !slices.Equal(got, c.want) {
			t.Errorf("%s at %d:%d = %v, want %v", c.method, c.line, c.char, got, c.want)
		}
	}
}
