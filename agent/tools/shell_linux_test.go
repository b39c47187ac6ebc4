package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
)

// While a command runs its group is recorded, with the id its processes
// carry; the record goes when the command ends.
func TestShellRecordsItsGroupWhileItRuns(t *testing.T) {
	env := newEnv(t)
	env.Procs = &agent.Procs{Dir: filepath.Join(t.TempDir(), "running")}
	// The record is written once the command has started: wait for it.
	script := `until cat "` + env.Procs.Dir + `"/[0-9]* 2>/dev/null; do sleep 0.01; done; echo "$$ $KAST_COMMAND_ID"`
	r := run(t, env, RunShellCommand, map[string]any{"command": script, "timeout_seconds": 20})
	lines := strings.Split(strings.TrimSpace(r.Content), "\n")
	var rec struct {
		PGID int    `json:"pgid"`
		ID   string `json:"id"`
	}
	if r.IsError || len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &rec) != nil {
		t.Fatalf("shell: %+v", r)
	}
	if got := strconv.Itoa(rec.PGID) + " " + rec.ID; rec.ID == "" || got != lines[1] {
		t.Fatalf("recorded %q, the command is %q", got, lines[1])
	}
	if left, _ := os.ReadDir(env.Procs.Dir); len(left) != 0 {
		t.Fatalf("records left after the command ended: %v", left)
	}
}

// gone reports whether pid has ended (a zombie has).
func gone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(data), ')')
	return i > 0 && strings.HasPrefix(string(data[i:]), ") Z")
}

// A command's shell dies with the kast that started it, however kast
// ends: this test's second run plays kast and is killed with SIGKILL.
func TestShellDiesWithKast(t *testing.T) {
	if pidFile := os.Getenv("KAST_TEST_SHELL_HOST"); pidFile != "" {
		run(t, newEnv(t), RunShellCommand, map[string]any{"command": "echo $$ > " + pidFile + "; sleep 1000; true", "timeout_seconds": 600})
		return
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	host := exec.Command(os.Args[0], "-test.run=^TestShellDiesWithKast$")
	// The killed host cannot remove its own temporary folders: they go
	// inside this test's, which is removed.
	host.Env = append(os.Environ(), "KAST_TEST_SHELL_HOST="+pidFile, "TMPDIR="+dir)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		if strings.HasSuffix(string(data), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	defer syscall.Kill(-pid, syscall.SIGKILL) // its sleep, which outlives it
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	for deadline := time.Now().Add(10 * time.Second); !gone(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the shell %d outlived the kast that started it", pid)
		}
	}
}
