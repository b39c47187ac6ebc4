package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startGroup starts script in a process group of its own, its processes
// carrying id as CommandIDEnv.
func startGroup(t *testing.T, script, id string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), CommandIDEnv+"="+id)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return cmd
}

// members returns the live processes of group pgid.
func members(pgid int) []int {
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, de := range procs {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.pgrp == pgid && st.state != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits until group pgid has no live process.
func waitGone(t *testing.T, pgid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(members(pgid)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("group %d still runs: %v", pgid, members(pgid))
		}
	}
}

// waitForked waits until the shell cmd runs has forked its background job.
func waitForked(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(members(cmd.Process.Pid)) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("group %d never forked: %v", cmd.Process.Pid, members(cmd.Process.Pid))
		}
	}
}

// deadOwner returns the pid and start time of a process that has ended,
// as the record of a kast that died holds.
func deadOwner(t *testing.T) (int, uint64) {
	cmd := exec.Command("sh", "-c", "cat /proc/self/stat >/dev/null")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, _ := readStat(cmd.Process.Pid)
	cmd.Wait()
	return cmd.Process.Pid, st.start
}

// record writes what a kast that died while the group ran leaves behind:
// the record, its lock free.
func record(t *testing.T, p *Procs, rec procRecord) {
	t.Helper()
	os.MkdirAll(p.Dir, 0o700)
	if rec.Boot == "" {
		rec.Boot = bootID()
	}
	if rec.Owner == 0 {
		rec.Owner, rec.OwnerStart = deadOwner(t)
	}
	data, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(p.Dir, strconv.Itoa(rec.PGID)), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReapKillsTheGroupsADeadKastLeft(t *testing.T) {
	p := &Procs{Dir: filepath.Join(t.TempDir(), "running")}
	// A group whose leader still runs, and one whose leader was killed
	// (as Pdeathsig does) while a background job of it runs on.
	leading := startGroup(t, "sleep 1000 & wait", "id-leading")
	orphaned := startGroup(t, "sleep 1000 & wait", "id-orphaned")
	waitForked(t, leading)
	waitForked(t, orphaned)
	st, _ := readStat(leading.Process.Pid)
	record(t, p, procRecord{PGID: leading.Process.Pid, Start: st.start, ID: "id-leading"})
	st, _ = readStat(orphaned.Process.Pid)
	record(t, p, procRecord{PGID: orphaned.Process.Pid, Start: st.start, ID: "id-orphaned"})
	syscall.Kill(orphaned.Process.Pid, syscall.SIGKILL)
	orphaned.Wait()
	if len(members(orphaned.Process.Pid)) == 0 {
		t.Fatal("the background job died with its shell; the test needs it running")
	}

	killed := p.Reap()
	slices.Sort(killed)
	want := []int{leading.Process.Pid, orphaned.Process.Pid}
	slices.Sort(want)
	if !slices.Equal(killed, want) {
		t.Fatalf("reaped %v, want %v", killed, want)
	}
	waitGone(t, leading.Process.Pid)
	waitGone(t, orphaned.Process.Pid)
	if left, _ := os.ReadDir(p.Dir); len(left) != 0 {
		t.Fatalf("records left: %v", left)
	}
}

// Groups that are not what the record says are left alone: a running
// kast's (its lock is held), a leader whose pid was reused (another start
// time), a group none of whose processes carries the id, and every group
// of a record from before a reboot.
func TestReapSparesGroupsItCannotProve(t *testing.T) {
	p := &Procs{Dir: filepath.Join(t.TempDir(), "running")}
	live := startGroup(t, "sleep 1000", "id-live")
	release := p.Track(live.Process.Pid, "id-live")
	defer release()

	reused := startGroup(t, "sleep 1000", "id-reused")
	st, _ := readStat(reused.Process.Pid)
	record(t, p, procRecord{PGID: reused.Process.Pid, Start: st.start - 1, ID: "id-reused"})

	stranger := startGroup(t, "sleep 1000 & wait", "id-stranger")
	waitForked(t, stranger)
	record(t, p, procRecord{PGID: stranger.Process.Pid, Start: 1, ID: "id-other"})
	syscall.Kill(stranger.Process.Pid, syscall.SIGKILL)
	stranger.Wait()

	rebooted := startGroup(t, "sleep 1000", "id-rebooted")
	st, _ = readStat(rebooted.Process.Pid)
	record(t, p, procRecord{PGID: rebooted.Process.Pid, Start: st.start, ID: "id-rebooted", Boot: "another-boot"})

	if killed := p.Reap(); len(killed) != 0 {
		t.Fatalf("reaped %v", killed)
	}
	for _, pgid := range []int{live.Process.Pid, reused.Process.Pid, stranger.Process.Pid, rebooted.Process.Pid} {
		if len(members(pgid)) == 0 {
			t.Fatalf("group %d was killed", pgid)
		}
	}
	left, _ := os.ReadDir(p.Dir)
	if len(left) != 1 || left[0].Name() != strconv.Itoa(live.Process.Pid) {
		t.Fatalf("records left: %v; want only the running kast's", left)
	}
	release()
	if left, _ := os.ReadDir(p.Dir); len(left) != 0 {
		t.Fatalf("records left after the command ended: %v", left)
	}
}

// envTools records the environment tools are given.
type envTools struct{ env *ToolEnv }

func (e *envTools) Specs() []ToolSpec { return nil }

func (e *envTools) Run(_ context.Context, env *ToolEnv, _ ToolCall) ToolResult {
	e.env = env
	return ToolResult{}
}

// A runtime starting kills what a dead kast left, and hands its tools the
// records of the data folder.
func TestNewRuntimeReaps(t *testing.T) {
	vars := runtimeEnv(t, nil)
	env := func(k string) string { return vars[k] }
	p := &Procs{Dir: filepath.Join(DataDir(env), "running")}
	left := startGroup(t, "sleep 1000", "id-left")
	st, _ := readStat(left.Process.Pid)
	record(t, p, procRecord{PGID: left.Process.Pid, Start: st.start, ID: "id-left"})

	tools := &envTools{}
	rt := NewRuntime(RuntimeOptions{Env: env, Tools: tools})
	waitGone(t, left.Process.Pid)
	rt.Tools().Run(context.Background(), &ToolEnv{Workspace: "/w"}, ToolCall{Name: "run_shell_command"})
	if tools.env == nil || tools.env.Workspace != "/w" || tools.env.Procs == nil || tools.env.Procs.Dir != p.Dir {
		t.Fatalf("the tools got %+v", tools.env)
	}
}
