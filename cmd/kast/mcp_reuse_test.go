package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// kast mcp finds the index `kast search --index` built and indexes nothing:
// started on a subfolder of the project (--root) or in the project without
// --root, it shares the project's index. Its index_status counts the files
// the process indexed; a kast mcp with a cache of its own shows the count
// is real.
func TestMCPReusesTheCLIIndex(t *testing.T) {
	dir, env := searchWorkspace(t)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "pkg")
	out, code := runKast(t, dir, env, "search", "--index", pkg)
	var files, indexed int
	if _, err := fmt.Sscanf(out, "%d files: %d indexed", &files, &indexed); err != nil || code != 0 || indexed == 0 {
		t.Fatalf("kast search --index: exit %d: %s", code, out)
	}
	cases := []struct {
		name      string
		args      []string
		path      string
		ownCache  bool
		wantFresh bool // the process indexes nothing
	}{
		{"a subfolder as --root", []string{"mcp", "--root", pkg}, pkg, false, true},
		{"the project, no --root", []string{"mcp"}, dir, false, true},
		{"another cache", []string{"mcp", "--root", pkg}, pkg, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := kastCmd(t, tc.args...)
			cmd.Dir, cmd.Env = dir, append(env, "KAST_MCP_INDEX_WAIT=0")
			if tc.ownCache {
				cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+t.TempDir())
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := call(t, cs, "lexical_search", map[string]any{"query": "parse config", "path": tc.path})
			if err != nil {
				t.Fatal(err)
			}
			if n := res["results"].(map[string]any)["total_count"]; n.(float64) < 1 {
				t.Fatalf("lexical_search = %v", res)
			}
			st, err := call(t, cs, "index_status", map[string]any{"path": tc.path})
			if err != nil {
				t.Fatal(err)
			}
			ing := st["indexing"].(map[string]any)
			since := int(ing["files_indexed_since_start"].(float64))
			if int(st["file_count"].(float64)) != files || ing["in_progress"] != false {
				t.Errorf("index_status = %v, want the project's %d files, built", st, files)
			}
			if tc.wantFresh && since != 0 {
				t.Errorf("kast mcp indexed %d files of an index kast search had built", since)
			}
			if !tc.wantFresh && since != files {
				t.Errorf("kast mcp with its own cache indexed %d files, want %d", since, files)
			}
		})
	}
}
