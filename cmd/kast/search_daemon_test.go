package main

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer collects a process's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// searchIn runs `kast --log-level debug search ARGS` in dir: stdout, the
// debug log, the exit code.
func searchIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := kastCmd(t, append([]string{"--log-level", "debug", "search"}, args...)...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// TestSearchAsksTheDaemon: with `kast serve` running on the workspace,
// `kast search` gets its answer from the daemon (the daemon logs the
// search/regex call it handled, the CLI says so), printed as the CLI prints
// its own; a daemon of another version is not asked, and with the daemon
// gone the CLI searches itself: every output is the same.
func TestSearchAsksTheDaemon(t *testing.T) {
	root, runDir := kastWorkspace(t)
	serve := kastCmd(t, "--log-level", "debug", "serve", "--workspace", root)
	daemonLog := &lockedBuffer{}
	serve.Stderr = daemonLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = serve.Wait(); close(exited) }()
	t.Cleanup(func() { _ = serve.Process.Kill(); <-exited })
	desc := descriptorPath(runDir, root)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, up, _ := live(desc); up {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start: %s", daemonLog)
		}
	}

	queries := [][]string{
		{"-n", `greet\(`},
		{"-n", "-C", "1", "-i", "WIDGET", "src"},
		{"-l", "fun"},
		{"-L", "greet"},
		{"--json", "-w", "String"},
		{"-n", "no such text"},
	}
	type answer struct {
		out  string
		code int
	}
	fromDaemon := map[int]answer{}
	for i, q := range queries {
		calls := strings.Count(daemonLog.String(), "method=search/regex")
		out, log, code := searchIn(t, root, q...)
		if !strings.Contains(log, "answered by the daemon") {
			t.Fatalf("%v: not answered by the daemon:\n%s", q, log)
		}
		// The daemon logs the call once its answer is written.
		for deadline := time.Now().Add(10 * time.Second); strings.Count(daemonLog.String(), "method=search/regex") == calls; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%v: the daemon did not log a search/regex call:\n%s", q, daemonLog)
			}
		}
		fromDaemon[i] = answer{out, code}
	}
	if a := fromDaemon[0]; a.code != 0 || !strings.Contains(a.out, "src/main/kotlin/sample/Greeter.kt:4:fun greet(name: String)") {
		t.Fatalf("greet( from the daemon: exit %d\n%s", a.code, a.out)
	}
	if a := fromDaemon[len(queries)-1]; a.code != 1 || a.out != "" {
		t.Fatalf("no match from the daemon: exit %d, %q", a.code, a.out)
	}
	// A bad pattern is said at once, as the CLI says it without a daemon.
	if _, log, code := searchIn(t, root, "(?<=x)y"); code == 0 || !strings.Contains(log, "look-around") || strings.Contains(log, "answered by the daemon") {
		t.Errorf("a look-behind: exit %d\n%s", code, log)
	}

	// A daemon of another version is not asked.
	d, err := readDescriptor(desc)
	if err != nil {
		t.Fatal(err)
	}
	d.BackendVersion = "another-version"
	if err := writeDescriptor(desc, d); err != nil {
		t.Fatal(err)
	}
	out, log, code := searchIn(t, root, queries[0]...)
	if !strings.Contains(log, "another version") || strings.Contains(log, "answered by the daemon") || out != fromDaemon[0].out || code != 0 {
		t.Fatalf("with a daemon of another version: exit %d\n%s\nlog:\n%s", code, out, log)
	}

	// With the daemon gone (its descriptor left behind), the CLI searches
	// itself.
	_ = serve.Process.Signal(syscall.SIGTERM)
	<-exited
	if err := writeDescriptor(desc, d); err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		out, log, code := searchIn(t, root, q...)
		if strings.Contains(log, "answered by the daemon") {
			t.Fatalf("%v: answered by a daemon that stopped", q)
		}
		if want := fromDaemon[i]; out != want.out || code != want.code {
			t.Errorf("%v: the CLI alone says (exit %d)\n%s\nthe daemon said (exit %d)\n%s", q, code, out, want.code, want.out)
		}
	}
}
