package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/server/servertest"
)

var kastBin string

// TestMain builds the real binary once; the tests drive it as editors do.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kast-bin-")
	if err != nil {
		panic(err)
	}
	kastBin = filepath.Join(dir, "kast")
	if out, err := exec.Command("go", "build", "-o", kastBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building kast: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// kastCmd runs the built kast with a deadline, so a process that never ends
// fails its test instead of stalling the whole run.
func kastCmd(t *testing.T, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return exec.CommandContext(ctx, kastBin, args...)
}

func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("kast did not exit")
	}
	return cmd.ProcessState.ExitCode()
}

func TestStdioLifecycleExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		framing  servertest.Framing
		shutdown bool
		want     int
	}{
		{"header/shutdown-exit", servertest.Header, true, 0},
		{"ndjson/shutdown-exit", servertest.NDJSON, true, 0},
		{"header/exit-only", servertest.Header, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			c, cmd := servertest.Process(t, kastBin, tc.framing, "--log-level", "debug", "lsp", "--stdio")
			res, err := c.Initialize(ctx, t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.ServerInfo.Name != "kast" || res.Capabilities.PositionEncoding != "utf-16" {
				t.Errorf("initialize result: %+v", res)
			}
			if tc.shutdown {
				if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Notify("exit", nil); err != nil {
				t.Fatal(err)
			}
			if got := waitExit(t, cmd); got != tc.want {
				t.Errorf("exit code %d, want %d", got, tc.want)
			}
		})
	}
}

// Logs must go to stderr: anything else on stdout would corrupt the stream.
func TestStdioStdoutCarriesOnlyProtocol(t *testing.T) {
	cmd := kastCmd(t, "--log-level", "debug", "lsp", "--stdio")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	shutdown := `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	var in bytes.Buffer
	for _, b := range []string{body, `{"jsonrpc":"2.0","id":3,"method":"nope"}`, shutdown, exit} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kast: %v\n%s", err, stderr.String())
	}
	rest := stdout.String()
	frames := 0
	for rest != "" {
		var n int
		if _, err := fmt.Sscanf(rest, "Content-Length: %d\r\n\r\n", &n); err != nil {
			t.Fatalf("stdout is not pure LSP frames at %q", rest[:min(60, len(rest))])
		}
		head := strings.Index(rest, "\r\n\r\n") + 4
		rest = rest[head+n:]
		frames++
	}
	if frames != 3 {
		t.Errorf("want 3 responses on stdout, got %d", frames)
	}
	if !strings.Contains(stderr.String(), "level=") {
		t.Errorf("expected log lines on stderr, got %q", stderr.String())
	}
}

func TestStdinClosedWithoutExit(t *testing.T) {
	cmd := kastCmd(t, "lsp")
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("end of input without shutdown: %v, want exit status 1", err)
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// stderrWatch is a process's stderr, kept for failure messages and watched
// for the line a test waits on (such as "listening"), so that the test acts
// on the event rather than retrying until it works.
type stderrWatch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func watchStderr(cmd *exec.Cmd) *stderrWatch {
	w := &stderrWatch{changed: make(chan struct{})}
	cmd.Stderr = w
	return w
}

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.changed)
	w.changed = make(chan struct{})
	return w.buf.Write(p)
}

func (w *stderrWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor returns once the process has written text; a process that does
// not within 10 s fails the test.
func (w *stderrWatch) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		found, changed := strings.Contains(w.buf.String(), text), w.changed
		w.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%q not on stderr after 10 s:\n%s", text, w.String())
		}
	}
}

func TestListen(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "kast.sock")
	for _, tc := range []struct{ network, addr string }{
		{"tcp", fmt.Sprintf("127.0.0.1:%d", freePort(t))},
		{"unix", sock},
	} {
		t.Run(tc.network, func(t *testing.T) {
			cmd := kastCmd(t, "lsp", "--listen", tc.network+":"+tc.addr)
			stderr := watchStderr(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			stderr.waitFor(t, "msg=listening")
			// Two clients in turn, each with its own LSP session.
			for i := 0; i < 2; i++ {
				conn, err := net.Dial(tc.network, tc.addr)
				if err != nil {
					t.Fatal(err)
				}
				c := servertest.Dial(t, conn, servertest.NDJSON)
				if _, err := c.Initialize(testCtx(t), t.TempDir(), nil); err != nil {
					t.Fatalf("client %d: %v\n%s", i, err, stderr.String())
				}
				if err := c.Shutdown(testCtx(t)); err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			if tc.network == "unix" {
				fi, err := os.Stat(tc.addr)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("socket mode: %v %v, want 0600", fi.Mode(), err)
				}
			}
			_ = cmd.Process.Signal(os.Interrupt)
			if got := waitExit(t, cmd); got != 0 {
				t.Errorf("interrupted listener exit code %d\n%s", got, stderr.String())
			}
		})
	}
}

func TestListenRefusesBadAddresses(t *testing.T) {
	for _, addr := range []string{"tcp:0.0.0.0:7000", "tcp:192.168.1.5:7000", "tcp:example.com:7000", "udp:127.0.0.1:7000", "127.0.0.1:7000", "unix:"} {
		out, err := kastCmd(t, "lsp", "--listen", addr).CombinedOutput()
		if err == nil {
			t.Errorf("--listen %s was accepted", addr)
			continue
		}
		if !strings.Contains(string(out), "--listen") {
			t.Errorf("--listen %s: unclear error %q", addr, out)
		}
	}
}

func TestVersionAndDemo(t *testing.T) {
	out, err := kastCmd(t, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "kast ") {
		t.Fatalf("version: %q %v", out, err)
	}
	demo := kastCmd(t, "demo")
	demo.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "KAST_PROVIDER=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENROUTER_API_KEY=", "MOONSHOT_API_KEY=")
	out, err = demo.Output()
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	for _, want := range []string{"9 source files", "initialize: kast", "didOpen: 9 documents", "exit code 0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestDemoSteps checks every step of the demo's transcript (--json) on the
// embedded sample: what a person reading it is told.
func TestDemoSteps(t *testing.T) {
	demo := kastCmd(t, "demo", "--json")
	demo.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "KAST_PROVIDER=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "OPENROUTER_API_KEY=", "MOONSHOT_API_KEY=")
	out, err := demo.Output()
	if err != nil {
		t.Fatalf("demo --json: %v", err)
	}
	var transcript struct {
		Files int `json:"files"`
		Steps []struct {
			Method  string   `json:"method"`
			Answer  []string `json:"answer"`
			Skipped string   `json:"skipped"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(out, &transcript); err != nil {
		t.Fatalf("demo --json: %v\n%s", err, out)
	}
	want := []struct{ method, answer string }{
		{"workspace/executeCommand", "answering"},
		{"textDocument/definition", "→ src/main/kotlin/sample/Greeter.kt:4:5"},
		{"textDocument/references", "3 references\n  src/main/kotlin/sample/SecondaryUse.kt:3:26\n  src/main/kotlin/sample/Shop.kt:14:30\n  src/main/kotlin/sample/Use.kt:3:21"},
		{"textDocument/hover", "fun greet(name: String): String\nGreets someone by name."},
		{"textDocument/completion", "5 items: items, name, add, count, describe"},
		{"textDocument/rename", "4 edits in 4 files"},
		{"textDocument/prepareCallHierarchy", "greet"},
		{"callHierarchy/incomingCalls", "← useAgain\n← describe\n← use"},
		{"textDocument/prepareTypeHierarchy", "FriendlyGreeter"},
		{"typeHierarchy/supertypes", "↑ Greeter"},
		{"typeHierarchy/subtypes", "↓ LoudGreeter\n↓ Shop"},
		{"textDocument/diagnostic", "src/main/kotlin/sample/Broken.kt:3:12: missing )"},
		{"workspace/symbol", "greet      python/greet.py:4:5\ngreet      src/main/kotlin/sample/Greeter.kt:4:5\ngreet      web/greet.ts:2:17\nGreet      go/greet/greet.go:8:6"},
		{"ck/regex_search", "8 matches"},
		{"ck/hybrid_search", "3 matches\n  python/greet.py:4  def greet(name: str) -> str:"},
		{"raw/resolve", "FUNCTION sample.greet"},
		{"database/metrics", "sample.greet: 3 uses map[CALL:3]"},
		{"turns/start", ""},
	}
	if transcript.Files != 9 || len(transcript.Steps) != len(want) {
		t.Fatalf("%d files, %d steps, want 9 and %d:\n%s", transcript.Files, len(transcript.Steps), len(want), out)
	}
	for i, w := range want {
		got := transcript.Steps[i]
		if got.Method != w.method || !strings.HasPrefix(strings.Join(got.Answer, "\n"), w.answer) {
			t.Errorf("step %d: %s %q, want %s beginning %q", i+1, got.Method, got.Answer, w.method, w.answer)
		}
	}
	if last := transcript.Steps[len(want)-1]; !strings.Contains(last.Skipped, "no model provider is configured") {
		t.Errorf("the agent step without a provider: %+v", last)
	}
}
