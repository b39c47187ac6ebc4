package ck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/lsp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// The ck tools answer on the LSP connection as ck/<tool>, confined to the
// editor's workspace folders.
func TestCKOnLSP(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	files := map[string]string{
		"pkg/config.go": "package pkg\n\n// ParseConfig reads a config file.\nfunc ParseConfig(path string) error {\n\treturn nil\n}\n\nfunc retryWithBackoff(n int) int {\n\treturn n * 2\n}\n",
		"README.md":     "Configuration is parsed by ParseConfig.\n",
	}
	for rel, text := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close) // before the temp dirs go
	reg := server.NewRegistry()
	New(h).Register(reg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l := lsp.New(h)
	t.Cleanup(l.WaitSessions)
	l.Register(reg)
	client, _ := servertest.Pipe(t, server.New(server.Options{Registry: reg, Profile: l.Profile()}), servertest.Header)
	client.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	if _, err := client.Initialize(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	call := func(method string, params any) (map[string]any, *servertest.RPCError) {
		t.Helper()
		resp, err := client.CallID(ctx, json.RawMessage("1"), method, params)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error != nil {
			return nil, resp.Error
		}
		var out map[string]any
		if err := json.Unmarshal(resp.Result, &out); err != nil {
			t.Fatal(err)
		}
		return out, nil
	}
	// The root opens once the session has started; until then it is outside.
	var regex map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; {
		var rpcErr *servertest.RPCError
		regex, rpcErr = call("ck/regex_search", map[string]any{"pattern": `ParseConfig\(`, "path": root})
		if rpcErr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ck/regex_search: %v", rpcErr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ms := regex["results"].(map[string]any)["matches"].([]any)
	if len(ms) != 1 || !strings.HasSuffix(ms[0].(map[string]any)["file"].(map[string]any)["path"].(string), "config.go") {
		t.Fatalf("ck/regex_search = %v", regex)
	}
	hyb, rpcErr := call("ck/hybrid_search", map[string]any{"query": "parse config", "path": root, "top_k": 2})
	if rpcErr != nil {
		t.Fatal(rpcErr)
	}
	// Both the README line and the function mention it; the function is in the top two.
	var names []any
	for _, m := range hyb["results"].(map[string]any)["matches"].([]any) {
		match := m.(map[string]any)["match"].(map[string]any)
		if match["rrf_score"] == nil {
			t.Fatalf("hybrid match without rrf_score: %v", match)
		}
		names = append(names, match["name"])
	}
	if len(names) != 2 || names[0] != "ParseConfig" && names[1] != "ParseConfig" {
		t.Fatalf("ck/hybrid_search names = %v", names)
	}
	if out, rpcErr := call("ck/health_check", nil); rpcErr != nil || out["status"] != "healthy" {
		t.Fatalf("ck/health_check = %v %v", out, rpcErr)
	}
	_, rpcErr = call("ck/lexical_search", map[string]any{"query": "x", "path": filepath.Dir(root)})
	if rpcErr == nil || rpcErr.Code != -32602 || rpcErr.DataCode() != server.CodeInvalidParams {
		t.Fatalf("path outside the folders: %v", rpcErr)
	}
	if _, rpcErr = call("ck/regex_search", map[string]any{"pattern": "(", "path": root}); rpcErr == nil || rpcErr.Code != -32602 {
		t.Fatalf("bad regex: %v", rpcErr)
	}
}
