package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopDaemonAndWait stops the workspace's daemon and waits until it is gone,
// so it does not write into Kast's registry while the test's folders are
// removed.
func stopDaemonAndWait(t *testing.T, runDir, root string) {
	d, err := readDescriptor(descriptorPath(runDir, root))
	if err != nil {
		return
	}
	_ = syscall.Kill(d.PID, syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); processAlive(d.PID) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
}

func readRegistry(t *testing.T, install string) []registryEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(install, "runtime", "daemons", "daemons.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []registryEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatalf("daemons.json is not a JSON array of entries: %v\n%s", err, b)
	}
	return entries
}

// TestServeRegistersInKastRegistry: the daemon `kast rpc` starts is in
// Kast's registry as Kast's CLI reads it (the socket it listens on, its pid)
// while it runs, and leaves it when it stops.
func TestServeRegistersInKastRegistry(t *testing.T) {
	root, runDir := kastWorkspace(t)
	install := os.Getenv("KAST_INSTALL_ROOT")
	t.Cleanup(func() { stopDaemonAndWait(t, runDir, root) })
	if out, errOut, code := rpc(t, root, "--workspace", root, "health"); code != 0 {
		t.Fatalf("health: %d %s %s", code, out, errOut)
	}
	desc, err := readDescriptor(descriptorPath(runDir, root))
	if err != nil {
		t.Fatal(err)
	}
	entries := readRegistry(t, install)
	want := registryEntry{WorkspaceRoot: root, BackendName: "kast-go", BackendVersion: desc.BackendVersion, Transport: "uds",
		SocketPath: desc.Address, PID: desc.PID, SchemaVersion: 3}
	if len(entries) != 1 || entries[0] != want {
		t.Fatalf("registry %+v, want [%+v]", entries, want)
	}
	if out, _, code := rpc(t, root, "runtime/shutdown"); code != 0 {
		t.Fatalf("shutdown: %s", out)
	}
	for deadline := time.Now().Add(10 * time.Second); len(readRegistry(t, install)) != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the stopped daemon is still registered: %+v", readRegistry(t, install))
		}
	}
	// Its descriptor is gone, so the cleanup cannot find it: wait here until
	// it has closed its index, before the test's folders are removed.
	for deadline := time.Now().Add(10 * time.Second); processAlive(desc.PID) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
}

// TestRPCFindsDaemonThroughKastRegistry: a daemon known only from Kast's
// registry (no kast descriptor) is the one `kast rpc` talks to.
func TestRPCFindsDaemonThroughKastRegistry(t *testing.T) {
	root, runDir := kastWorkspace(t)
	install := os.Getenv("KAST_INSTALL_ROOT")
	sock := filepath.Join(runDir, "elsewhere.sock")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := kastCmd(t, "serve", "--workspace", root, "--listen", "unix:"+sock)
	stderr := watchStderr(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	stderr.waitFor(t, "kast serve listening")
	if err := os.Remove(descriptorPath(runDir, root)); err != nil {
		t.Fatal(err)
	}
	if e := readRegistry(t, install); len(e) != 1 || e[0].SocketPath != sock {
		t.Fatalf("registry: %+v", e)
	}
	out, errOut, code := rpc(t, root, "--workspace", root, "health")
	if code != 0 || !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("health: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(descriptorPath(runDir, root)); !os.IsNotExist(err) {
		t.Errorf("kast rpc started a daemon of its own instead of using the registered one: %v", err)
	}
}

// TestRPCReplacesKilledDaemon: after the daemon is killed outright, its
// descriptor and registry entry name a dead pid; the next `kast rpc` sees
// that at once and starts a new daemon rather than waiting on the old one.
func TestRPCReplacesKilledDaemon(t *testing.T) {
	root, runDir := kastWorkspace(t)
	install := os.Getenv("KAST_INSTALL_ROOT")
	t.Cleanup(func() { stopDaemonAndWait(t, runDir, root) })
	if _, errOut, code := rpc(t, root, "--workspace", root, "health"); code != 0 {
		t.Fatalf("health: %s", errOut)
	}
	first, err := readDescriptor(descriptorPath(runDir, root))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); processAlive(first.PID); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed daemon still runs")
		}
	}
	out, errOut, code := rpc(t, root, "--workspace", root, "health")
	if code != 0 || !strings.Contains(out, `"status":"ok"`) {
		t.Fatalf("health after the kill: %d %s %s", code, out, errOut)
	}
	second, err := readDescriptor(descriptorPath(runDir, root))
	if err != nil || second.PID == first.PID {
		t.Fatalf("descriptor after the kill: %+v %v", second, err)
	}
	if e := readRegistry(t, install); len(e) != 1 || e[0].PID != second.PID {
		t.Errorf("registry after the kill: %+v, want only pid %d", e, second.PID)
	}
}
