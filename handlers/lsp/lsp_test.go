package lsp

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server/servertest"
)

type lspEnv struct {
	t      *testing.T
	ctx    context.Context
	client *servertest.Client
	root   string
}

func startLSP(t *testing.T, files map[string]string) *lspEnv {
	t.Helper()
	return startLSPWith(t, files, host.Options{})
}

// startLSPWith is startLSP on a host made with opts.
func startLSPWith(t *testing.T, files map[string]string, opts host.Options) *lspEnv {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	client, _ := servertest.Pipe(t, newTestServerWith(t, opts), servertest.Header)
	client.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	if _, err := client.Initialize(ctx, root, map[string]any{"window": map[string]any{"workDoneProgress": true}}); err != nil {
		t.Fatal(err)
	}
	return &lspEnv{t, ctx, client, root}
}

func (e *lspEnv) uri(name string) string { return servertest.FileURI(filepath.Join(e.root, name)) }

func (e *lspEnv) at(name string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]string{"uri": e.uri(name)}, "position": map[string]int{"line": line, "character": char}}
}

func (e *lspEnv) definition(params map[string]any) ([]wireLoc, error) {
	var locs []wireLoc
	err := e.client.Call(e.ctx, "textDocument/definition", params, &locs)
	return locs, err
}

func (e *lspEnv) reindex() {
	e.t.Helper()
	if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": cmdReindex}, nil); err != nil {
		e.t.Fatal(err)
	}
	// Reindexing also resolves references, so that they are read back
	// from the stored uses.
	var status struct {
		Roots []struct{ References string } `json:"roots"`
	}
	if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": cmdStatus}, &status); err != nil {
		e.t.Fatal(err)
	}
	for _, r := range status.Roots {
		if r.References != "stored" {
			e.t.Fatalf("after kast.reindex, references are %q, want stored", r.References)
		}
	}
}

var greeterFiles = map[string]string{
	"src/sample/Greeter.kt": "package sample\n\nfun greet(name: String): String = \"hi $name\"\n",
	"src/sample/Use.kt":     "package sample\n\nfun use(): String = greet(\"kast\")\n",
	"notes.txt":             "not code\n",
}

func TestLSPBadInput(t *testing.T) {
	e := startLSP(t, greeterFiles)
	if err := e.client.DidOpen(e.uri("src/sample/Use.kt"), "kotlin", 1, greeterFiles["src/sample/Use.kt"]); err != nil {
		t.Fatal(err)
	}
	// A line past the end of the file is a clear error.
	if _, err := e.definition(e.at("src/sample/Use.kt", 99, 0)); err == nil || !strings.Contains(err.Error(), "position outside the document") {
		t.Errorf("line past the end: err = %v, want a position error", err)
	}
	// A column past the end of a line clamps to the line's end.
	if _, err := e.definition(e.at("src/sample/Use.kt", 2, 500)); err != nil {
		t.Errorf("column past the end: %v", err)
	}
	for name, params := range map[string]map[string]any{
		"unknown file":         e.at("src/sample/Nope.kt", 0, 0),
		"unsupported language": e.at("notes.txt", 0, 2),
		"non-file URI":         {"textDocument": map[string]string{"uri": "untitled:Untitled-1"}, "position": map[string]int{"line": 0, "character": 0}},
	} {
		locs, err := e.definition(params)
		if err != nil || len(locs) != 0 {
			t.Errorf("%s: got %v, %v; want an empty answer", name, locs, err)
		}
		for _, method := range []string{"textDocument/hover", "textDocument/references", "textDocument/completion", "textDocument/documentSymbol",
			"textDocument/foldingRange", "textDocument/semanticTokens/full", "textDocument/diagnostic", "textDocument/prepareCallHierarchy"} {
			params["context"] = map[string]bool{"includeDeclaration": true}
			if err := e.client.Call(e.ctx, method, params, nil); err != nil {
				t.Errorf("%s: %s: %v", name, method, err)
			}
		}
	}
	params := e.at("notes.txt", 0, 2)
	params["newName"] = "x"
	if err := e.client.Call(e.ctx, "textDocument/rename", params, nil); err == nil || !strings.Contains(err.Error(), "cannot rename") {
		t.Errorf("rename in an unsupported file: err = %v", err)
	}
	if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": "kast.nope"}, nil); err == nil {
		t.Error("unknown command: want an error")
	}
}

// Requests on closed documents answer from the index; edits to open ones
// shadow it; added workspace folders are indexed.
func TestLSPIndexAndOverlay(t *testing.T) {
	e := startLSP(t, greeterFiles)
	e.reindex()
	// Greeter.kt and Use.kt are closed: the index answers.
	locs, err := e.definition(e.at("src/sample/Use.kt", 2, 21))
	if err != nil || len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "Greeter.kt") {
		t.Fatalf("definition on a closed document = %v, %v", locs, err)
	}
	// Opening Use.kt with unsaved text that calls a local function instead.
	text := "package sample\n\nfun greet2() = 1\nfun use() = greet2()\n"
	if err := e.client.DidOpen(e.uri("src/sample/Use.kt"), "kotlin", 1, text); err != nil {
		t.Fatal(err)
	}
	locs, err = e.definition(e.at("src/sample/Use.kt", 3, 13))
	if err != nil || len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "Use.kt") || locs[0].Range.Start.Line != 2 {
		t.Fatalf("definition in the overlay = %v, %v", locs, err)
	}
	if err := e.client.DidChangeRange(e.uri("src/sample/Use.kt"), 2, 3, 12, 3, 18, "greet"); err != nil {
		t.Fatal(err)
	}
	locs, err = e.definition(e.at("src/sample/Use.kt", 3, 13))
	if err != nil || len(locs) != 1 || !strings.HasSuffix(locs[0].URI, "Greeter.kt") {
		t.Fatalf("definition after didChange = %v, %v", locs, err)
	}
	// A second root.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "Extra.kt"), []byte("package extra\n\nfun extraordinary() = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = e.client.Notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []map[string]string{{"uri": servertest.FileURI(other), "name": "other"}}, "removed": []any{},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e.reindex()
	var syms []struct {
		Name string `json:"name"`
	}
	if err := e.client.Call(e.ctx, "workspace/symbol", map[string]string{"query": "extraord"}, &syms); err != nil || len(syms) == 0 || syms[0].Name != "extraordinary" {
		t.Fatalf("workspace/symbol over an added root = %v, %v", syms, err)
	}
	// Indexing reported its progress.
	ended := false
	for _, n := range e.client.Notifications("$/progress") {
		ended = ended || strings.Contains(string(n.Params), `"end"`)
	}
	if !ended {
		t.Error("no $/progress end notification")
	}
}

// Positions in files served from the index convert to UTF-16 with or without
// reading them: ASCII files by their flag, others from their text.
func TestLSPUTF16ColumnsInIndexedFiles(t *testing.T) {
	e := startLSP(t, map[string]string{
		"go.mod":    "module example.com/p\n",
		"target.go": "package p\n\nfunc Target() {}\n",
		"ascii.go":  "package p\n\nfunc a() { Target() }\n",
		"wide.go":   "package p\n\nfunc b() { _ = \"é😀\"; Target() }\n",
	})
	e.reindex()
	var locs []wireLoc
	params := e.at("target.go", 2, 6)
	params["context"] = map[string]bool{"includeDeclaration": false}
	if err := e.client.Call(e.ctx, "textDocument/references", params, &locs); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range locs {
		got[filepath.Base(l.URI)] = l.Range.Start.Character
	}
	// wide.go: 16 ASCII bytes, é (2 bytes, 1 unit), 😀 (4 bytes, 2 units), 3 more.
	if want := map[string]int{"ascii.go": 11, "wide.go": 22}; !maps.Equal(got, want) {
		t.Fatalf("reference columns in UTF-16 = %v, want %v", got, want)
	}
}

// Workspace symbols list what files declare outside function bodies:
// parameters and locals are not symbols of the workspace.
func TestLSPWorkspaceSymbolsLeaveOutLocals(t *testing.T) {
	e := startLSP(t, map[string]string{
		"go.mod": "module example.com/p\n",
		"p.go":   "package p\n\nvar Counter int\n\nfunc count(counted int) int {\n\tcounter := counted + 1\n\treturn counter\n}\n",
	})
	e.reindex()
	var syms []struct {
		Name string `json:"name"`
	}
	if err := e.client.Call(e.ctx, "workspace/symbol", map[string]string{"query": "count"}, &syms); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		got = append(got, s.Name)
	}
	slices.Sort(got)
	if want := []string{"Counter", "count"}; !slices.Equal(got, want) {
		t.Fatalf("workspace/symbol count = %v, want %v", got, want)
	}
}

// A broken build (a missing include, a cycle) is reported in kast.status,
// one line per problem, and navigation still answers.
func TestLSPStatusReportsBuildProblems(t *testing.T) {
	files := map[string]string{
		"settings.gradle.kts":      "include(\":app\", \":lib\", \":gone\")\n",
		"app/build.gradle.kts":     "dependencies { implementation(project(\":lib\")) }\n",
		"lib/build.gradle.kts":     "dependencies { implementation(project(\":app\")) }\n",
		"app/src/main/kotlin/A.kt": "package a\n\nfun a(): String = b.b()\n",
		"lib/src/main/kotlin/B.kt": "package b\n\nfun b(): String = \"b\"\n",
	}
	e := startLSP(t, files)
	var status struct {
		Roots []struct {
			BuildProblems []string `json:"buildProblems"`
		} `json:"roots"`
	}
	if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": cmdStatus}, &status); err != nil {
		t.Fatal(err)
	}
	if len(status.Roots) != 1 {
		t.Fatalf("roots = %+v", status.Roots)
	}
	got := strings.Join(status.Roots[0].BuildProblems, "\n")
	if !strings.Contains(got, ":gone") || !strings.Contains(got, "cyclic module dependencies") {
		t.Errorf("buildProblems = %q, want the missing :gone folder and the app/lib cycle", got)
	}
}
