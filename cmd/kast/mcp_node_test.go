package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMCPNodeClient runs testdata/mcp/node/mcp-session.mjs: the official MCP
// TypeScript SDK client (@modelcontextprotocol/sdk, pinned with its
// lockfile) against `kast mcp` over stdio — handshake, every tool, a page
// cursor and invalid-params errors. It needs node and `npm ci --prefix
// testdata/mcp/node`; without them it skips, except under CI, which installs
// both (.ci/run).
func TestMCPNodeClient(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "mcp", "node")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or the MCP SDK is missing (.ci/run runs npm ci --prefix testdata/mcp/node): %v", err)
		}
		t.Skipf("node or the MCP SDK is missing (npm ci --prefix testdata/mcp/node): %v", err)
	}
	ws, env := searchWorkspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "mcp-session.mjs")
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(env, "KAST_BIN="+kastBin, "MCP_WORKSPACE="+ws)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
