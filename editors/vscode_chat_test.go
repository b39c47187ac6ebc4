package editors_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestVSCodeChatPageInChromium runs the chat page's browser tests
// (editors/vscode/webview, `npm test`): the built page in Debian's headless
// Chromium, fed a recorded turn (testdata/vscode) and a live turn from the
// kast built here, checked for what a person sees and what it posts back. Its screenshots stay in
// editors/vscode/webview/test-artifacts. Without Chromium, Node or the page's
// node_modules it skips, except in CI, which installs them (.ci/run).
func TestVSCodeChatPageInChromium(t *testing.T) {
	dir := filepath.Join("vscode", "webview")
	missing := func(what, fix string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing; .ci/run provides it (%s)", what, fix)
		}
		t.Skipf("%s is missing (%s)", what, fix)
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		missing("Debian's chromium", "apt-get install chromium")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		missing("npm", "apt-get install nodejs npm")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		missing("the chat page's node_modules", "npm ci --prefix editors/vscode/webview")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "test")
	cmd.Dir = dir
	// The live test runs this kast against a loopback model.
	cmd.Env = append(os.Environ(), "KAST_BIN="+kastBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm test in %s: %v\n%s", dir, err, out)
	}
	// node --test closes with its counts; a run that skipped everything has
	// checked nothing.
	pass := regexp.MustCompile(`(?m)^# pass (\d+)$`).FindSubmatch(out)
	if pass == nil || string(pass[1]) == "0" || !strings.Contains(string(out), "\n# fail 0") ||
		!strings.Contains(string(out), "\n# skipped 0") {
		t.Fatalf("the chat page's tests did not all run and pass:\n%s", out)
	}
	t.Logf("chat page: %s tests passed in Chromium; screenshots in %s", pass[1], filepath.Join(dir, "test-artifacts"))
}
