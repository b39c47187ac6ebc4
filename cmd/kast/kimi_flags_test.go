package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// kimi-cli's flags on `kast kimi --wire`, through the built binary and a
// loopback Moonshot endpoint: --work-dir is where tools run, --model is the
// model the provider is asked for, --yolo runs a shell command unasked,
// --session names the stored session and --continue resumes the work
// folder's latest one, whose conversation the next request carries.
func TestKimiWireFlags(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			io.WriteString(w, `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"run_shell_command","arguments":"{\"command\":\"echo flags > y.txt\"}"}}]},"index":0}]}`+"\n\n")
			io.WriteString(w, `data: {"choices":[{"delta":{},"finish_reason":"tool_calls","index":0}]}`+"\n\ndata: [DONE]\n\n")
			return
		}
		io.WriteString(w, `data: {"choices":[{"delta":{"content":"ok"},"index":0}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"KAST_PROVIDER=moonshot", "MOONSHOT_API_KEY=sk-moonshot-test-123456", "KAST_MODEL=", "KAST_BASE_URL="+srv.URL)
	run := func(input string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, kastBin, append([]string{"kimi", "--wire"}, args...)...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, dir, strings.NewReader(input)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("kast kimi --wire %v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	out := run(`{"jsonrpc":"2.0","id":"p1","method":"prompt","params":{"user_input":"remember the word walnut"}}`+"\n",
		"--work-dir", work, "--session", "s1", "--model", "kimi-flag-model", "--yolo")
	if !finished(out, "p1") || strings.Contains(out, "ApprovalRequest") {
		t.Fatalf("the first prompt:\n%s", out)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "y.txt")); string(got) != "flags\n" {
		t.Fatalf("the unasked command wrote %q in the work folder", got)
	}
	if !strings.Contains(bodies[0], `"model":"kimi-flag-model"`) {
		t.Fatalf("--model did not reach the provider: %s", bodies[0])
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "data", "kast", "kimi", "sessions", "*", "s1", "wire.jsonl")); len(m) != 1 {
		t.Fatal("no session s1 stored")
	}

	out = run(`{"jsonrpc":"2.0","id":"p2","method":"prompt","params":{"user_input":"which word?"}}`+"\n", "--work-dir", work, "--continue")
	if !finished(out, "p2") || !strings.Contains(bodies[len(bodies)-1], "walnut") {
		t.Fatalf("--continue did not resume s1:\n%s\nlast request: %s", out, bodies[len(bodies)-1])
	}
}

// finished reports whether the output holds the reply to prompt id with
// status finished.
func finished(out, id string) bool {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":"`+id+`"`) && strings.Contains(sc.Text(), `"status":"finished"`) {
			return true
		}
	}
	return false
}
