package main

import (
	"strings"
	"testing"
	"time"
)

// The goroutine count is read from the runtime's scheddetail dump: dead
// goroutines (status 6) do not count, the count of a dump is published when
// the next one starts, and the server's own lines go to its log.
func TestSchedWatcher(t *testing.T) {
	dump := func(statuses ...string) string {
		var b strings.Builder
		b.WriteString("SCHED 1000ms: gomaxprocs=2 idleprocs=2 threads=5\n  P0: status=0 schedtick=1\n  M0: p=nil curg=nil\n")
		for i, st := range statuses {
			b.WriteString("  G" + string(rune('1'+i)) + ": status=" + st + " m=nil lockedm=nil\n")
		}
		return b.String()
	}
	in := dump("4(chan receive)", "6()", "2()") + `time=2026-01-01T00:00:00Z level=WARN msg="slow request"` + "\n" + dump("1()")
	var log strings.Builder
	sw := &schedWatcher{}
	sw.run(strings.NewReader(in), &log)
	if got := sw.goroutines.Load(); got != 2 {
		t.Errorf("goroutines %d, want 2 (the first dump, without the dead one)", got)
	}
	if log.String() != `time=2026-01-01T00:00:00Z level=WARN msg="slow request"`+"\n" || sw.logLines.Load() != 1 {
		t.Errorf("server log %q (%d lines)", log.String(), sw.logLines.Load())
	}
}

// judge fails on growth that continues after the warm-up, not on a level.
func TestJudge(t *testing.T) {
	series := func(rss func(i int) int64) []sample {
		var s []sample
		for i := range 12 {
			s = append(s, sample{at: time.Duration(i+1) * 10 * time.Second, rss: rss(i), fds: 30, goroutines: 60})
		}
		return s
	}
	if err := judge(series(func(int) int64 { return 250 * mib }), 2*time.Minute); err != nil {
		t.Errorf("a flat RSS failed: %v", err)
	}
	if err := judge(series(func(i int) int64 { return int64(100+i*40) * mib }), 2*time.Minute); err == nil {
		t.Error("an RSS growing by 40 MiB every sample passed")
	}
}
