package lsp

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// References and incoming calls stay in the workspace unless the editor
// asks, with initializationOptions {"references": {"includeLibraries":
// true}}, for the uses inside library sources too.
func TestLSPReferencesIntoLibrariesWhenAsked(t *testing.T) {
	files := maps.Clone(libraryFiles)
	files["goroot/src/fmt/print.go"] = "package fmt\n\n// Println prints.\nfunc Println(a ...any) (n int, err error) {\n\t_ = Errorf(\"x\")\n\treturn 0, nil\n}\n"
	for _, c := range []struct {
		name    string
		options any
		refs    []string
		callers []string
	}{
		{"default", nil, []string{"ws/main.go:11"}, []string{"main"}},
		{"not asked", map[string]any{"references": map[string]any{"includeLibraries": false}, "other": 1},
			[]string{"ws/main.go:11"}, []string{"main"}},
		{"asked", map[string]any{"references": map[string]any{"includeLibraries": true}},
			[]string{"goroot/src/fmt/print.go:4", "ws/main.go:11"}, []string{"Println", "main"}},
		{"malformed", map[string]any{"references": "yes"}, []string{"ws/main.go:11"}, []string{"main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			dir := t.TempDir()
			writeTree(t, dir, files)
			e := startLibraryLSPOnWith(t, dir, 2, c.options)
			// The session takes a library in just after kast.status lists it.
			for e.defAt("main.go", 11, 18) == "" {
				if e.ctx.Err() != nil {
					t.Fatal("fmt.Errorf never resolved into the library")
				}
				time.Sleep(10 * time.Millisecond)
			}
			var refs []string
			for _, l := range e.locsAt("textDocument/references", "main.go", 11, 18) {
				refs = append(refs, strings.TrimPrefix(l, filepath.ToSlash(dir)+"/"))
			}
			if !slices.Equal(refs, c.refs) {
				t.Errorf("references of fmt.Errorf = %v, want %v", refs, c.refs)
			}
			var items []map[string]any
			if err := e.client.Call(e.ctx, "textDocument/prepareCallHierarchy", e.at("main.go", 11, 18), &items); err != nil || len(items) != 1 {
				t.Fatalf("prepareCallHierarchy: %v %v", items, err)
			}
			var calls []struct {
				From struct {
					Name string  `json:"name"`
					URI  uri.URI `json:"uri"`
				} `json:"from"`
			}
			if err := e.client.Call(e.ctx, "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &calls); err != nil {
				t.Fatal(err)
			}
			var callers []string
			for _, call := range calls {
				callers = append(callers, call.From.Name)
			}
			slices.Sort(callers)
			if !slices.Equal(callers, c.callers) {
				t.Errorf("incoming calls of fmt.Errorf = %v, want %v", callers, c.callers)
			}
		})
	}
}
