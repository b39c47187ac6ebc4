package editors_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestVSCodeExtension runs the VS Code extension's own tests (npm test in
// vscode/: the real vscode-languageclient and the extension's activate()
// under node's test runner with a stub vscode module) against the kast this
// package built. They need the extension's node modules (npm ci in
// editors/vscode; .ci/run installs them): without them the test skips,
// except in CI.
func TestVSCodeExtension(t *testing.T) {
	npm := needTool(t, "npm")
	dir, _ := filepath.Abs("vscode")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageclient")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("editors/vscode has no node modules; .ci/run installs them (npm ci --prefix editors/vscode)")
		}
		t.Skip("editors/vscode has no node modules (cd editors/vscode && npm ci)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KAST_CMD="+kastBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm test in editors/vscode: %v\n%s", err, out)
	}
	t.Logf("%s", tail(out, 600))
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
