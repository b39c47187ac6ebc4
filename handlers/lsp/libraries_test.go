package lsp

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/libraries"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// A fake toolchain and module cache: the standard library's fmt and a
// module the workspace requires, both outside the workspace.
var libraryFiles = map[string]string{
	"goroot/src/fmt/errors.go":                "package fmt\n\n// Errorf formats an error.\nfunc Errorf(format string, a ...any) error { return nil }\n",
	"goroot/src/fmt/print.go":                 "package fmt\n\n// Println prints.\nfunc Println(a ...any) (n int, err error) { return 0, nil }\n",
	"goroot/src/fmt/fmt_test.go":              "package fmt\n\nfunc TestHidden() {}\n",
	"modcache/example.com/!dep@v1.2.0/go.mod": "module example.com/Dep\n",
	"modcache/example.com/!dep@v1.2.0/dep.go": "package dep\n\n// Client talks.\ntype Client struct{ addr string }\n\n// New makes a Client.\nfunc New() *Client { return &Client{} }\n\n// Send sends.\nfunc (c *Client) Send(msg string) error { return nil }\n\nfunc (c *Client) reset() {}\n",
	// An interrupted extraction: skipped with a reason.
	"modcache/example.com/half@v0.1.0/half.go":                   "package half\n",
	"modcache/cache/download/example.com/half/@v/v0.1.0.partial": "",
	"ws/go.mod":  "module example.com/app\n\ngo 1.22\n\nrequire (\n\texample.com/Dep v1.2.0\n\texample.com/half v0.1.0\n\texample.com/missing v1.0.0\n)\n",
	"ws/main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/Dep\"\n)\n\nfunc main() {\n\tc := dep.New()\n\t_ = c.Send(\"x\")\n\tfmt.Println(fmt.Errorf(\"e\"))\n}\n",
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startLibraryLSP serves the workspace ws/ of a tree written from files,
// with the tree's goroot/ and modcache/ as its toolchain and module cache,
// and waits until its libraries are indexed.
func startLibraryLSP(t *testing.T, files map[string]string, libs int) (*lspEnv, string) {
	t.Helper()
	return startLibraryLSPWith(t, files, libs, nil)
}

// startLibraryLSPWith is startLibraryLSP with prepare run on the tree
// before the server starts.
func startLibraryLSPWith(t *testing.T, files map[string]string, libs int, prepare func(dir string)) (*lspEnv, string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	writeTree(t, dir, files)
	if prepare != nil {
		prepare(dir)
	}
	return startLibraryLSPOn(t, dir, libs), dir
}

// startLibraryLSPOn serves ws/ of a tree already written with a host of
// its own, and waits until libs libraries are indexed.
func startLibraryLSPOn(t *testing.T, dir string, libs int) *lspEnv {
	t.Helper()
	return startLibraryLSPOnWith(t, dir, libs, nil)
}

// startLibraryLSPOnWith is startLibraryLSPOn sending options as the
// initializationOptions.
func startLibraryLSPOnWith(t *testing.T, dir string, libs int, options any) *lspEnv {
	t.Helper()
	h := host.New(host.Options{Libraries: true})
	h.SetLibraryOptions(libraries.Options{Go: &libraries.GoEnv{GOROOT: filepath.Join(dir, "goroot"), GOVERSION: "go1.99-test",
		GOMODCACHE: filepath.Join(dir, "modcache")}, Python: &libraries.PythonEnv{Version: "3.99.0", Stdlib: filepath.Join(dir, "pystd"),
		Builtins: filepath.Join(dir, "pybuiltins")}})
	t.Cleanup(h.Close)
	return serveLibraryHostWith(t, h, dir, libs, 30*time.Second, options)
}

// serveLibraryHost serves ws/ of dir through h, within timeout, and waits
// until libs libraries are indexed.
func serveLibraryHost(t *testing.T, h *host.Host, dir string, libs int, timeout time.Duration) *lspEnv {
	t.Helper()
	return serveLibraryHostWith(t, h, dir, libs, timeout, nil)
}

// serveLibraryHostWith is serveLibraryHost sending options as the
// initializationOptions.
func serveLibraryHostWith(t *testing.T, h *host.Host, dir string, libs int, timeout time.Duration, options any) *lspEnv {
	t.Helper()
	l := New(h)
	t.Cleanup(l.WaitSessions)
	reg := server.NewRegistry()
	l.Register(reg)
	srv := server.New(server.Options{Registry: reg, Profile: l.Profile()})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	client, _ := servertest.Pipe(t, srv, servertest.Header)
	client.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	root := filepath.Join(dir, "ws")
	if _, err := client.InitializeWith(ctx, root, map[string]any{"window": map[string]any{"workDoneProgress": true}}, options); err != nil {
		t.Fatal(err)
	}
	e := &lspEnv{t, ctx, client, root}
	e.waitLibraries(libs)
	return e
}

type libraryStatus struct {
	Indexed []host.LibraryStatus `json:"indexed"`
	Skipped []libraries.Skip     `json:"skipped"`
}

// waitLibraries polls kast.status until n libraries are indexed.
func (e *lspEnv) waitLibraries(n int) libraryStatus {
	e.t.Helper()
	for {
		var status struct {
			Libraries libraryStatus `json:"libraries"`
		}
		if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": cmdStatus}, &status); err != nil {
			e.t.Fatal(err)
		}
		done := 0
		for _, l := range status.Libraries.Indexed {
			if l.Complete {
				done++
			}
		}
		if done >= n {
			return status.Libraries
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("libraries not indexed: %+v", status.Libraries)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (e *lspEnv) defAt(name string, line, char int) string {
	e.t.Helper()
	locs, err := e.definition(e.at(name, line, char))
	if err != nil {
		e.t.Fatal(err)
	}
	if len(locs) != 1 {
		return ""
	}
	return filepath.ToSlash(uri.URI(locs[0].URI).FsPath()) + ":" + strconv.Itoa(locs[0].Range.Start.Line)
}

// Definitions reach the standard library and a required module in the
// module cache; the half-extracted and the missing modules are skipped with
// their reasons, and tests in the library are not indexed.
func TestLSPDefinitionIntoLibraries(t *testing.T) {
	e, dir := startLibraryLSP(t, libraryFiles, 2)
	root := filepath.ToSlash(dir)
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{9, 10, root + "/modcache/example.com/!dep@v1.2.0/dep.go:6"}, // dep.New
		{10, 8, root + "/modcache/example.com/!dep@v1.2.0/dep.go:9"}, // c.Send
		{11, 5, root + "/goroot/src/fmt/print.go:3"},                 // fmt.Println
		{11, 18, root + "/goroot/src/fmt/errors.go:3"},               // fmt.Errorf
	} {
		if got := e.defAt("main.go", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	st := e.waitLibraries(2)
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Library] = s.Reason
	}
	if reasons["example.com/half@v0.1.0"] != libraries.Incomplete || reasons["example.com/missing@v1.0.0"] != libraries.NotDownloaded {
		t.Errorf("skipped = %+v", st.Skipped)
	}
	began := false
	for _, n := range e.client.Notifications("$/progress") {
		began = began || strings.Contains(string(n.Params), "kast: indexing libraries")
	}
	if !began {
		t.Error("no $/progress for the libraries")
	}
	for _, l := range st.Indexed {
		if strings.HasPrefix(l.Library, "std@") && l.Files != 2 {
			t.Errorf("std indexed %d files, want 2 (tests left out)", l.Files)
		}
	}
}

// Hover, signature help, completion after a package and after a value of
// a library type, workspace symbols and outgoing calls reach the libraries;
// completion across packages offers exported names only; rename refuses a
// library target and says so.
func TestLSPFeaturesIntoLibraries(t *testing.T) {
	files := maps.Clone(libraryFiles)
	files["ws/client.go"] = "package main\n\n// Client is the workspace's own.\ntype Client struct{}\n"
	e, _ := startLibraryLSP(t, files, 2)
	main := e.uri("main.go")
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := e.client.Call(e.ctx, "textDocument/hover", e.at("main.go", 11, 18), &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; !strings.Contains(v, "func Errorf(format string, a ...any) error") || !strings.Contains(v, "Errorf formats an error.") {
		t.Errorf("hover on fmt.Errorf = %q", v)
	}
	var sig struct {
		Signatures []struct{ Label string } `json:"signatures"`
	}
	if err := e.client.Call(e.ctx, "textDocument/signatureHelp", e.at("main.go", 11, 26), &sig); err != nil {
		t.Fatal(err)
	}
	if len(sig.Signatures) == 0 || !strings.Contains(sig.Signatures[0].Label, "Errorf(format string, a ...any)") {
		t.Errorf("signature help in fmt.Errorf( = %+v", sig)
	}

	// Completion after `fmt.` and after `c.` in an edited main.go.
	text := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/Dep\"\n)\n\nfunc main() {\n\tc := dep.New()\n\tc.\n\tfmt.\n}\n"
	if err := e.client.DidOpen(main, "go", 1, text); err != nil {
		t.Fatal(err)
	}
	labels := func(line, char int) []string {
		var list struct {
			Items []struct{ Label string } `json:"items"`
		}
		if err := e.client.Call(e.ctx, "textDocument/completion", e.at("main.go", line, char), &list); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		slices.Sort(out)
		return out
	}
	if got := labels(10, 3); !slices.Equal(got, []string{"Send"}) {
		t.Errorf("completion after c. = %v, want [Send] (reset is unexported, addr too)", got)
	}
	if got := labels(11, 5); !slices.Equal(got, []string{"Errorf", "Println"}) {
		t.Errorf("completion after fmt. = %v, want [Errorf Println]", got)
	}

	var syms []struct {
		Name     string               `json:"name"`
		Location struct{ URI string } `json:"location"`
	}
	if err := e.client.Call(e.ctx, "workspace/symbol", map[string]string{"query": "Client"}, &syms); err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, s := range syms {
		if s.Name == "Client" {
			where = append(where, filepath.Base(filepath.Dir(uri.URI(s.Location.URI).FsPath())))
		}
	}
	if !slices.Equal(where, []string{"ws", "!dep@v1.2.0"}) {
		t.Errorf("workspace/symbol Client from %v, want the workspace's first, then the library's", where)
	}

	// Outgoing calls of main reach into both libraries (main.go is open
	// with the edited text: close it to ask about the original).
	if err := e.client.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": main}}); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := e.client.Call(e.ctx, "textDocument/prepareCallHierarchy", e.at("main.go", 8, 6), &items); err != nil || len(items) != 1 {
		t.Fatalf("prepareCallHierarchy on main: %v %s", err, items)
	}
	var calls []struct {
		To struct{ Name, URI string } `json:"to"`
	}
	if err := e.client.Call(e.ctx, "callHierarchy/outgoingCalls", map[string]any{"item": items[0]}, &calls); err != nil {
		t.Fatal(err)
	}
	var callees []string
	for _, c := range calls {
		callees = append(callees, c.To.Name+"@"+filepath.Base(uri.URI(c.To.URI).FsPath()))
	}
	slices.Sort(callees)
	if want := []string{"Errorf@errors.go", "New@dep.go", "Println@print.go", "Send@dep.go"}; !slices.Equal(callees, want) {
		t.Errorf("outgoing calls of main = %v, want %v", callees, want)
	}

	var rename json.RawMessage
	err := e.client.Call(e.ctx, "textDocument/rename", map[string]any{"textDocument": map[string]string{"uri": main},
		"position": map[string]int{"line": 9, "character": 10}, "newName": "Make"}, &rename)
	if err == nil || !strings.Contains(err.Error(), "library example.com/Dep@v1.2.0") {
		t.Errorf("rename of dep.New: %v %s, want a refusal naming the library", err, rename)
	}
}

// Python: the interpreter's standard library and the virtualenv's packages
// (each at its .dist-info version; tests left out) answer definitions.
func TestLSPPythonDefinitionIntoLibraries(t *testing.T) {
	e, dir := startLibraryLSP(t, map[string]string{
		"pystd/os.py":            "def getcwd():\n    return '.'\n",
		"pystd/json/__init__.py": "def dumps(obj):\n    return ''\n",
		"pystd/test/test_os.py":  "def getcwd():\n    pass\n",
		"ws/.venv/pyvenv.cfg":    "home = /nonexistent/bin\n",
		"ws/.venv/lib/python3.99/site-packages/requests/__init__.py":             "from requests.api import get\n",
		"ws/.venv/lib/python3.99/site-packages/requests/api.py":                  "def get(url, params=None):\n    return None\n",
		"ws/.venv/lib/python3.99/site-packages/requests-2.31.0.dist-info/RECORD": "requests/__init__.py,,\nrequests/api.py,,\n",
		"ws/.venv/lib/python3.99/site-packages/six.py":                           "def iteritems(d):\n    return d.items()\n",
		"ws/pyproject.toml": "[project]\nname = \"app\"\n",
		"ws/app.py":         "import os\nimport json\nimport requests\nimport six\n\nos.getcwd()\njson.dumps(1)\nrequests.get('u')\nsix.iteritems({})\n",
	}, 3)
	root := filepath.ToSlash(dir)
	site := root + "/ws/.venv/lib/python3.99/site-packages"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{5, 3, root + "/pystd/os.py:0"},
		{6, 5, root + "/pystd/json/__init__.py:0"},
		{7, 9, site + "/requests/api.py:0"},
		{8, 4, site + "/six.py:0"},
	} {
		if got := e.defAt("app.py", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	st := e.waitLibraries(3)
	versions := map[string]bool{}
	for _, l := range st.Indexed {
		versions[l.Library] = true
	}
	if !versions["requests@2.31.0"] || !versions["stdlib@3.99.0"] {
		t.Errorf("libraries: %+v", st.Indexed)
	}
}

// TypeScript: a dependency's declaration files in node_modules answer
// definitions; a dependency whose folder is a link loop and one not
// installed are skipped with reasons, and a generated declaration file
// over the size limit is counted as skipped, not parsed.
func TestLSPTypeScriptDefinitionIntoLibraries(t *testing.T) {
	files := map[string]string{
		"ws/package.json":                       `{"name": "app", "dependencies": {"left-pad": "^1.3.0", "loopy": "1", "absent": "2"}, "devDependencies": {"huge": "1"}}`,
		"ws/node_modules/left-pad/package.json": `{"name": "left-pad", "version": "1.3.0", "types": "index.d.ts"}`,
		"ws/node_modules/left-pad/index.d.ts":   "export declare function leftPad(s: string, n: number): string;\n",
		"ws/node_modules/left-pad/index.js":     "exports.leftPad = function (s, n) { return s; };\n",
		"ws/node_modules/huge/package.json":     `{"name": "huge", "version": "0.0.1"}`,
		"ws/node_modules/huge/small.d.ts":       "export declare const small: number;\n",
		"ws/node_modules/huge/big.d.ts":         strings.Repeat("export declare const x: number;\n", 3<<16),
		"ws/app.ts":                             "import { leftPad } from \"left-pad\";\n\nleftPad(\"a\", 3);\n",
	}
	e, tree := startLibraryLSPWith(t, files, 2, func(tree string) {
		l := filepath.Join(tree, "ws", "node_modules", "loopy")
		if err := os.Symlink(l, l); err != nil {
			t.Fatal(err)
		}
	})
	want := filepath.ToSlash(tree) + "/ws/node_modules/left-pad/index.d.ts:0"
	if got := e.defAt("app.ts", 2, 2); got != want {
		t.Errorf("definition of leftPad = %q, want %q", got, want)
	}
	st := e.waitLibraries(2)
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Library] = s.Reason
	}
	if reasons["loopy"] != libraries.LinkLoop || reasons["absent"] != libraries.NotInstalled {
		t.Errorf("skipped: %+v", st.Skipped)
	}
	for _, l := range st.Indexed {
		if strings.HasPrefix(l.Library, "huge@") && (l.Files != 1 || l.Skipped["tooLarge"] != 1) {
			t.Errorf("huge: %+v, want one file indexed and one too large", l)
		}
	}
}
