package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/analysis/host"
)

// writeTree writes files (by path relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The agent's code tools answer from a real index of a real workspace, and
// see an edit the agent made a moment before.
func TestIndexTools(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	files := map[string]string{
		"src/sample/Greeter.kt": "package sample\n\nfun greet(name: String): String = \"hi $name\"\n",
		"src/sample/Use.kt":     "package sample\n\nfun use(): String = greet(\"kast\")\n",
		"src/sample/Types.kt":   "package sample\n\ninterface Greeter\n\nclass LoudGreeter : Greeter\n",
		"src/sample/Broken.kt":  "package sample\n\nfun broken( = \"oops\"\n",
	}
	writeTree(t, root, files)
	set := &tools.Set{Code: tools.Index{Host: host.New(host.Options{})}}
	env := &agent.ToolEnv{Workspace: root, Reads: &agent.ReadSet{}}
	run := func(name, args string) string {
		t.Helper()
		r := set.Run(context.Background(), env, agent.ToolCall{ID: "1", Name: name, Arguments: args})
		if r.IsError {
			t.Fatalf("%s %s: %s", name, args, r.Content)
		}
		return r.Content
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"resolve_symbol", `{"path":"src/sample/Use.kt","line":3,"column":21}`, "src/sample/Greeter.kt:3:5: function greet"},
		{"find_references", `{"path":"src/sample/Greeter.kt","line":3,"column":5}`, "src/sample/Use.kt:3:21: call"},
		{"file_outline", `{"path":"src/sample/Types.kt"}`, "src/sample/Types.kt:5:7: class LoudGreeter"},
		{"workspace_symbols", `{"query":"Greeter"}`, "interface Greeter"},
		{"file_diagnostics", `{"path":"src/sample/Broken.kt"}`, "src/sample/Broken.kt:3:"},
		{"file_diagnostics", `{"path":"src/sample/Use.kt"}`, "No syntax errors."},
		{"resolve_symbol", `{"path":"src/sample/Use.kt","line":1,"column":1}`, "No results."},
	} {
		if got := run(tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s:\n%s\nwant %q", tc.tool, tc.args, got, tc.want)
		}
	}
	// The agent edits a file; the next query sees it.
	if err := os.WriteFile(filepath.Join(root, "src/sample/Use.kt"), []byte("package sample\n\nfun use(): String = greet(\"a\") + greet(\"b\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run("find_references", `{"path":"src/sample/Greeter.kt","line":3,"column":5}`); strings.Count(got, "call") != 2 {
		t.Errorf("after the edit:\n%s", got)
	}
	r := set.Run(context.Background(), env, agent.ToolCall{ID: "2", Name: "file_outline", Arguments: `{"path":"../outside.kt"}`})
	if !r.IsError {
		t.Errorf("a path outside the workspace must be refused: %+v", r)
	}
}
