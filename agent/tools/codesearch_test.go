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

// rename_preview, regex_search and hybrid_search answer from the real
// index and search engine of a real workspace; the preview changes nothing.
func TestSearchTools(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	files := map[string]string{
		"src/sample/Greeter.kt": "package sample\n\nfun greet(name: String): String = \"hi $name\"\n",
		"src/sample/Use.kt":     "package sample\n\nfun use(): String = greet(\"kast\")\n",
	}
	writeTree(t, root, files)
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	set := &tools.Set{Code: tools.Index{Host: h}}
	env := &agent.ToolEnv{Workspace: root, Reads: &agent.ReadSet{}}
	for _, tc := range []struct{ tool, args, want string }{
		{tools.RenamePreview, `{"path":"src/sample/Greeter.kt","line":3,"column":5,"new_name":"welcome"}`, "src/sample/Use.kt:3:21: \"greet\" → \"welcome\""},
		{tools.RegexSearch, `{"pattern":"gre+t\\(","glob":"*.kt"}`, "src/sample/Use.kt:3: fun use(): String = greet(\"kast\")"},
		{tools.HybridSearch, `{"query":"greet name"}`, "src/sample/Greeter.kt:"},
	} {
		r := set.Run(context.Background(), env, agent.ToolCall{ID: "1", Name: tc.tool, Arguments: tc.args})
		if r.IsError || !strings.Contains(r.Content, tc.want) {
			t.Errorf("%s %s: want %q in\n%s", tc.tool, tc.args, tc.want, r.Content)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/sample/Use.kt")); string(b) != files["src/sample/Use.kt"] {
		t.Error("the rename preview changed a file")
	}
}
