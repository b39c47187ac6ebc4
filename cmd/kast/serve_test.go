package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// kastWorkspace writes the Kotlin fixture to a fresh root and points the
// runtime and cache dirs of the processes started here at temporary ones.
func kastWorkspace(t *testing.T) (root, runDir string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "kast", "kotlin.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root, _ = filepath.EvalSymlinks(t.TempDir())
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A short name, not t.TempDir's (which holds the test name): unix
	// socket paths are limited to 108 bytes.
	run, err := os.MkdirTemp("", "kr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	// Daemons register in Kast's registry under its install root.
	t.Setenv("KAST_INSTALL_ROOT", filepath.Join(run, "install"))
	return root, filepath.Join(run, "kast")
}

// rpc runs `kast rpc` in dir and returns stdout, stderr and the exit code.
func rpc(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := kastCmd(t, append([]string{"rpc"}, args...)...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// stopDaemon kills the daemon a test started, by the pid in its descriptor.
func stopDaemon(t *testing.T, runDir, root string) {
	if d, err := readDescriptor(descriptorPath(runDir, root)); err == nil {
		_ = syscall.Kill(d.PID, syscall.SIGTERM)
	}
}

// TestServeRPC: `kast rpc` starts the workspace's daemon, later calls and
// calls from a subdirectory reuse it, errors exit 1 with data.code, and
// runtime/shutdown stops it.
func TestServeRPC(t *testing.T) {
	root, runDir := kastWorkspace(t)
	t.Cleanup(func() { stopDaemon(t, runDir, root) })

	out, errOut, code := rpc(t, root, "--workspace", root, "health")
	if code != 0 || !strings.Contains(out, `"status":"ok"`) || !strings.Contains(out, root) {
		t.Fatalf("health: exit %d, %s %s", code, out, errOut)
	}
	desc, err := readDescriptor(descriptorPath(runDir, root))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(desc.Address); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket %s: %v %v, want a 0600 socket", desc.Address, fi.Mode(), err)
	}

	// Clients in parallel, one from a subdirectory: all share the daemon.
	sub := filepath.Join(root, "src", "main", "kotlin", "sample")
	outs := make(chan string, 3)
	for range 3 {
		go func() {
			out, errOut, code := rpc(t, sub, "symbol/references", `{"symbol":"greet"}`)
			outs <- out + errOut + string(rune('0'+code))
		}()
	}
	for range 3 {
		if got := <-outs; !strings.Contains(got, `"type":"REFERENCES_SUCCESS"`) || !strings.HasSuffix(got, "0") {
			t.Errorf("symbol/references: %s", got)
		}
	}
	if d, _ := readDescriptor(descriptorPath(runDir, root)); d.PID != desc.PID {
		t.Errorf("a second daemon started: pid %d, then %d", desc.PID, d.PID)
	}

	out, errOut, code = rpc(t, sub, "raw/resolve", `{"position":{"filePath":"Use.kt","offset":0}}`)
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "VALIDATION_ERROR: ") {
		t.Errorf("bad request: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, errOut, code = rpc(t, sub, "raw/resolve", `{not json`); code == 0 {
		t.Errorf("malformed params: exit 0, %s", errOut)
	}

	// runtime/restart: the same process comes back as a fresh daemon that
	// rewrites its descriptor; clients wait for it instead of starting one.
	before, _ := os.Stat(descriptorPath(runDir, root))
	if out, _, code = rpc(t, sub, "runtime/restart"); code != 0 || !strings.Contains(out, `"action":"RESTART"`) {
		t.Fatalf("restart: %d %s", code, out)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(descriptorPath(runDir, root)); err == nil && fi.ModTime().After(before.ModTime()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not come back after runtime/restart")
		}
	}
	if out, errOut, code = rpc(t, sub, "health"); code != 0 {
		t.Fatalf("health after restart: %s %s", out, errOut)
	}
	if d, _ := readDescriptor(descriptorPath(runDir, root)); d.PID != desc.PID {
		t.Errorf("restart changed the pid from %d to %d: another daemon started", desc.PID, d.PID)
	}

	out, _, code = rpc(t, sub, "runtime/shutdown")
	if code != 0 || !strings.Contains(out, `"action":"SHUTDOWN"`) {
		t.Fatalf("shutdown: %d %s", code, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(desc.PID, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not exit after runtime/shutdown")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(descriptorPath(runDir, root)); !os.IsNotExist(err) {
		t.Errorf("descriptor left behind: %v", err)
	}
}

// TestServeTCPToken: on TCP a connection must open with the token.
func TestServeTCPToken(t *testing.T) {
	root, runDir := kastWorkspace(t)
	cmd := kastCmd(t, "serve", "--workspace", root, "--listen", "tcp:127.0.0.1:0", "--token", "s3cret")
	stderr := watchStderr(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// The descriptor is written before the daemon says it listens.
	stderr.waitFor(t, "kast serve listening")
	desc, err := readDescriptor(descriptorPath(runDir, root))
	if err != nil {
		t.Fatal(err)
	}
	if desc.Transport != "tcp" || desc.Token != "s3cret" {
		t.Fatalf("descriptor: %+v", desc)
	}
	send := func(lines ...string) map[string]any {
		t.Helper()
		c, err := net.Dial("tcp", desc.Address)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, _ = c.Write([]byte(strings.Join(lines, "\n") + "\n"))
		line, err := bufio.NewReader(c).ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(line, &m)
		return m
	}
	health := `{"jsonrpc":"2.0","id":1,"method":"health","params":{}}`
	for _, first := range []string{health, `{"token":"wrong"}`} {
		m := send(first, health)
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32401.0 || e["data"].(map[string]any)["code"] != "UNAUTHORIZED" {
			t.Errorf("without the token: %v", m)
		}
	}
	if m := send(`{"token":"s3cret"}`, health); m["result"] == nil {
		t.Errorf("with the token: %v", m)
	}
	if out, errOut, code := rpc(t, root, "capabilities"); code != 0 || !strings.Contains(out, "FIND_REFERENCES") {
		t.Errorf("kast rpc over TCP: %d %s %s", code, out, errOut)
	}
}

func TestServeStdio(t *testing.T) {
	root, _ := kastWorkspace(t)
	cmd := kastCmd(t, "serve", "--stdio", "--workspace", root)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"health","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"symbol/resolve","params":{"symbol":"greet"}}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(string(out), `"status":"ok"`) || !strings.Contains(string(out), `"fqName":"sample.greet"`) {
		t.Errorf("stdout: %s", out)
	}
}
