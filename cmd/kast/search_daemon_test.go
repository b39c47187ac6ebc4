package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os/exec"
	"path/filepath"
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

// TestSearchAsksTheListeningLSP: a `kast lsp --listen` whose client opened
// the workspace announces it, and `kast search` gets its answer from that
// server (its log shows the search/regex call), the same as the CLI's own;
// once the editor leaves and the root is closed, the CLI searches itself.
func TestSearchAsksTheListeningLSP(t *testing.T) {
	root, runDir := kastWorkspace(t)
	sock := filepath.Join(filepath.Dir(runDir), "lsp.sock")
	lsp := kastCmd(t, "--log-level", "debug", "lsp", "--listen", "unix:"+sock)
	lspLog := &lockedBuffer{}
	lsp.Stderr = lspLog
	if err := lsp.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = lsp.Wait(); close(exited) }()
	t.Cleanup(func() { _ = lsp.Process.Kill(); <-exited })
	var editor net.Conn
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if editor, err = net.Dial("unix", sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the language server did not listen: %s", lspLog)
		}
	}
	// The editor opens the workspace, as an editor's LSP client does.
	replies := bufio.NewReader(editor)
	send := func(msg string) {
		if _, err := editor.Write([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"file://` + root + `","capabilities":{}}}`)
	for {
		line, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no initialize reply: %v\n%s", err, lspLog)
		}
		if bytes.Contains(line, []byte(`"id":1`)) && bytes.Contains(line, []byte(`"capabilities"`)) {
			break
		}
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	go func() { _, _ = io.Copy(io.Discard, replies) }() // progress and log messages
	descs := func() []string { return lspDescriptors(runDir, root) }
	for deadline := time.Now().Add(time.Minute); len(descs()) != 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the language server did not announce the workspace: %v\n%s", descs(), lspLog)
		}
	}

	queries := [][]string{
		{"-n", `greet\(`},
		{"-n", "-C", "1", "-i", "WIDGET", "src"},
		{"-L", "greet"},
		{"--json", "-w", "String"},
		{"-n", "no such text"},
	}
	type answer struct {
		out  string
		code int
	}
	fromLSP := map[int]answer{}
	for i, q := range queries {
		calls := strings.Count(lspLog.String(), "method=search/regex")
		out, log, code := searchIn(t, root, q...)
		if !strings.Contains(log, "answered by the daemon") || !strings.Contains(log, `server="kast lsp"`) {
			t.Fatalf("%v: not answered by the language server:\n%s", q, log)
		}
		for deadline := time.Now().Add(10 * time.Second); strings.Count(lspLog.String(), "method=search/regex") == calls; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%v: the language server did not log a search/regex call:\n%s", q, lspLog)
			}
		}
		fromLSP[i] = answer{out, code}
	}
	if a := fromLSP[0]; a.code != 0 || !strings.Contains(a.out, "src/main/kotlin/sample/Greeter.kt:4:fun greet(name: String)") {
		t.Fatalf("greet( from the language server: exit %d\n%s", a.code, a.out)
	}

	// The editor leaves; the server still holds the workspace (its search
	// service keeps a root it opened) and answers.
	editor.Close()
	if out, log, _ := searchIn(t, root, queries[0]...); !strings.Contains(log, `server="kast lsp"`) || out != fromLSP[0].out {
		t.Fatalf("after the editor left: %s\n%s", out, log)
	}
	// The server stops: its descriptors go, and the CLI searches itself,
	// with the same answers.
	_ = lsp.Process.Signal(syscall.SIGTERM)
	<-exited
	if d := descs(); len(d) != 0 {
		t.Fatalf("the descriptor outlived the server: %v", d)
	}
	for i, q := range queries {
		out, log, code := searchIn(t, root, q...)
		if strings.Contains(log, "answered by the daemon") {
			t.Fatalf("%v: answered by a server that stopped", q)
		}
		if want := fromLSP[i]; out != want.out || code != want.code {
			t.Errorf("%v: the CLI alone says (exit %d)\n%s\nthe language server said (exit %d)\n%s", q, code, out, want.code, want.out)
		}
	}
}
