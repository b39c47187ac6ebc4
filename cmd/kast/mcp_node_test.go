package main

import (
	"context"
	"os/exec"
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
	node, dir := nodeSDK(t, "mcp", "@modelcontextprotocol/sdk")
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
