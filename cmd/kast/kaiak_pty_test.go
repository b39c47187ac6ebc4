//go:build linux || darwin

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
)

// terminal is kast's side of a pseudo-terminal: what kast wrote so far, and
// a way to type.
type terminal struct {
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	wake chan struct{}
}

func (tm *terminal) read() {
	buf := make([]byte, 4096)
	for {
		n, err := tm.ptmx.Read(buf)
		tm.mu.Lock()
		tm.out.Write(buf[:n])
		close(tm.wake)
		tm.wake = make(chan struct{})
		tm.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitCount waits until s appears n times in the output.
func (tm *terminal) waitCount(t *testing.T, s string, n int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		tm.mu.Lock()
		got, wake := strings.Count(tm.out.String(), s), tm.wake
		tm.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-wake:
		case <-deadline:
			t.Fatalf("waiting for %q (%d times):\n%s", s, n, tm.String())
		}
	}
}

func (tm *terminal) String() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// `kast kaiak fix` on a terminal: each proposal is shown as a coloured
// unified diff and asked about; y applies it, n rejects it, a applies it and
// every later one. The files change as answered and the summary counts the
// answers.
func TestKaiakFixAsksOnATerminal(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	t.Setenv("NO_COLOR", "")
	ws := kaiaktest.Fixture(t, "java")
	before := map[string]string{}
	for _, f := range []string{"HelloServlet.java", "Order.java", "OrderService.java"} {
		rel := "src/main/java/com/example/" + f
		before[rel] = readFile(t, filepath.Join(ws, rel))
	}
	cmd := kastCmd(t, "kaiak", "fix", "--analysis", filepath.Join(kaiaktest.Testdata(), "java-analysis.yaml"), "--workspace", ws)
	ptmx, err := pty.Start(cmd)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no pseudo-terminal: %v", err)
		}
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	tm := &terminal{ptmx: ptmx, wake: make(chan struct{})}
	go tm.read()

	const prompt = "Apply this change? [y/N/a(ll)/q(uit)] "
	answers := []string{"y", "n", "a"}
	for i, a := range answers {
		tm.waitCount(t, prompt, i+1)
		if _, err := io.WriteString(ptmx, a+"\r"); err != nil {
			t.Fatal(err)
		}
	}
	tm.waitCount(t, "Summary:", 1)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v:\n%s", err, tm.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("kast did not exit:\n%s", tm.String())
	}
	raw := tm.String()
	if strings.Count(raw, prompt) != 3 {
		t.Fatalf("asked %d times, want 3 (a answers the rest):\n%s", strings.Count(raw, prompt), raw)
	}
	// Coloured: additions green, removals red, hunk headers cyan.
	for _, want := range []string{"\x1b[32m+import jakarta.", "\x1b[31m-import javax.", "\x1b[36m@@ "} {
		if !strings.Contains(raw, want) {
			t.Errorf("no %q in the output:\n%s", want, raw)
		}
	}
	plain := ansi.ReplaceAllString(strings.ReplaceAll(raw, "\r\n", "\n"), "")
	// Which file each answer went to, in the order asked.
	proposed := regexp.MustCompile(`(?m)^Proposed edit (\S+) \(confidence`).FindAllStringSubmatch(plain, -1)
	if len(proposed) != 3 {
		t.Fatalf("%d proposals shown, want 3:\n%s", len(proposed), plain)
	}
	for i, m := range proposed {
		rel := m[1]
		got := readFile(t, filepath.Join(ws, rel))
		applied := got == strings.ReplaceAll(before[rel], "javax.", "jakarta.")
		if want := answers[i] != "n"; applied != want || (!applied && got != before[rel]) {
			t.Errorf("%s answered %s: applied=%v\n%s", rel, answers[i], applied, got)
		}
	}
	for _, want := range []string{"✓ applied", "✗ rejected", "3 changes proposed: 2 applied, 1 rejected, 0 not applied"} {
		if !strings.Contains(plain, want) {
			t.Errorf("output lacks %q:\n%s", want, plain)
		}
	}
}
