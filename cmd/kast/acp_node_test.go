package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent/agenttest"
)

// TestACPNodeClient runs testdata/acp/node/acp-session.mjs: the official ACP
// SDK client (@agentclientprotocol/sdk, pinned with its lockfile) against
// `kast acp` and a loopback model. It needs node and `npm ci --prefix
// testdata/acp/node`; without them it skips, except under CI, which
// installs both (.ci/run).
func TestACPNodeClient(t *testing.T) {
	node, dir := acpNodeSDK(t)
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"KAST_PROVIDER=moonshot", "MOONSHOT_API_KEY=sk-moonshot-test-123456", "KAST_MODEL=",
		"KAST_BASE_URL="+acpNodeModel(t), "KAST_BIN="+kastBin, "ACP_WORKSPACE="+ws)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "acp-session.mjs")
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// acpNodeModel plays the script's model: a write, its answer, a second
// write, its answer, then a stream that stalls until abandoned.
func acpNodeModel(t *testing.T) string {
	return agenttest.ScriptedModel(t, modelScript(t,
		writeCall("c1", "hello from ACP\n"), map[string]any{"text": []string{"Written."}},
		writeCall("c2", "changed\n"), map[string]any{"text": []string{"Not changed."}},
		map[string]any{"stall": true}))
}

// acpNodeSDK finds node and the ACP SDK installed in testdata/acp/node.
func acpNodeSDK(t *testing.T) (node, dir string) {
	return nodeSDK(t, "acp", "@agentclientprotocol/sdk")
}

// nodeSDK finds node and the npm package pkg installed in
// testdata/<family>/node: the test skips without them, except under CI,
// which installs both (.ci/run).
func nodeSDK(t *testing.T, family, pkg string) (node, dir string) {
	t.Helper()
	dir = filepath.Join("..", "..", "testdata", family, "node")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg)))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or %s is missing (.ci/run runs npm ci --prefix %s): %v", pkg, filepath.ToSlash(dir), err)
		}
		t.Skipf("node or %s is missing (npm ci --prefix %s): %v", pkg, filepath.ToSlash(dir), err)
	}
	return node, dir
}
