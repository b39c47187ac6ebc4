package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// procRecord is a running group's record.
type procRecord struct {
	PGID int `json:"pgid"`
	// Start is the leader's start time (clock ticks after boot, from
	// /proc/<pid>/stat), which tells it from a process that reuses its pid.
	Start uint64 `json:"start"`
	// Boot is the boot id: after a reboot every record is stale.
	Boot string `json:"boot"`
	// ID is the CommandIDEnv value the group's processes carry.
	ID string `json:"id"`
	// Owner and OwnerStart are the kast that runs the command, a second
	// check besides the lock for file systems without locks.
	Owner      int    `json:"owner"`
	OwnerStart uint64 `json:"ownerStart"`
}

// procStat is what kast reads of /proc/<pid>/stat.
type procStat struct {
	state byte
	pgrp  int
	start uint64
}

func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pgrp, start: start}, true
}

// alive reports whether pid runs (a zombie has ended) and was started at
// start.
func alive(pid int, start uint64) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.start == start
}

func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

func (p *Procs) track(pgid int, id string) func() {
	leader, ok := readStat(pgid)
	self, _ := readStat(os.Getpid())
	if !ok || os.MkdirAll(p.Dir, 0o700) != nil {
		return func() {}
	}
	rec, _ := json.Marshal(procRecord{PGID: pgid, Start: leader.start, Boot: bootID(), ID: id,
		Owner: os.Getpid(), OwnerStart: self.start})
	// Written under another name and locked first, so Reap never sees a
	// record without its lock or content.
	f, err := os.CreateTemp(p.Dir, ".new-*")
	if err != nil {
		return func() {}
	}
	path := filepath.Join(p.Dir, strconv.Itoa(pgid))
	if tryLock(f) != nil || writeLine(f, nil, nil, append(rec, '\n'), false) != nil || os.Rename(f.Name(), path) != nil {
		f.Close()
		os.Remove(f.Name())
		return func() {}
	}
	return func() {
		os.Remove(path)
		f.Close()
	}
}

func (p *Procs) reap() []int {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return nil
	}
	var killed []int
	boot := bootID()
	for _, de := range entries {
		if strings.HasPrefix(de.Name(), ".") || !de.Type().IsRegular() {
			continue
		}
		path := filepath.Join(p.Dir, de.Name())
		f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
		if err != nil {
			continue
		}
		if tryLock(f) != nil { // its kast is running the command
			f.Close()
			continue
		}
		var rec procRecord
		data, _ := os.ReadFile(path)
		if json.Unmarshal(data, &rec) != nil || rec.PGID <= 1 {
			os.Remove(path)
			f.Close()
			continue
		}
		if rec.Boot == boot && alive(rec.Owner, rec.OwnerStart) {
			f.Close()
			continue
		}
		if rec.Boot == boot && ours(rec) && syscall.Kill(-rec.PGID, syscall.SIGKILL) == nil {
			killed = append(killed, rec.PGID)
		}
		os.Remove(path)
		f.Close()
	}
	return killed
}

// ours reports whether process group rec.PGID is still the one recorded.
// Linux keeps a pid in use while a group bears it, so a live leader that
// started at the recorded time is the recorded one; once the leader has
// died, a member carrying the command's id is proof.
func ours(rec procRecord) bool {
	if st, ok := readStat(rec.PGID); ok && st.state != 'Z' {
		return st.start == rec.Start
	}
	procs, _ := os.ReadDir("/proc")
	want := []byte(CommandIDEnv + "=" + rec.ID + "\x00")
	for _, de := range procs {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); !ok || st.pgrp != rec.PGID || st.state == 'Z' {
			continue
		}
		env, _ := os.ReadFile("/proc/" + de.Name() + "/environ")
		if bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...)) {
			return true
		}
	}
	return false
}
