package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// stats counts what the clients did, by kind of request and by outcome.
type stats struct {
	mu       sync.Mutex
	requests map[string]int            // by kind
	outcomes map[string]map[string]int // kind → outcome ("ok" or error code) → count
	slowest  map[string]time.Duration
	notes    int // notifications sent (didOpen, didChange, didClose, cancels)
}

func newStats() *stats {
	return &stats{requests: map[string]int{}, outcomes: map[string]map[string]int{}, slowest: map[string]time.Duration{}}
}

func (s *stats) record(kind, outcome string, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[kind]++
	if s.outcomes[kind] == nil {
		s.outcomes[kind] = map[string]int{}
	}
	s.outcomes[kind][outcome]++
	s.slowest[kind] = max(s.slowest[kind], took)
}

func (s *stats) note() {
	s.mu.Lock()
	s.notes++
	s.mu.Unlock()
}

// totals returns the number of requests and the outcomes over every kind.
func (s *stats) totals() (int, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, by := 0, map[string]int{}
	for kind, outs := range s.outcomes {
		n += s.requests[kind]
		for o, c := range outs {
			by[o] += c
		}
	}
	return n, by
}

// formatCounts prints a count map largest first.
func formatCounts(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// table prints, per kind, the count, the outcomes and the slowest answer.
func (s *stats) table(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kind := range slices.Sorted(maps.Keys(s.requests)) {
		fmt.Fprintf(w, "  %-36s %6d  slowest %-8s %s\n", kind, s.requests[kind], s.slowest[kind].Round(time.Millisecond), formatCounts(s.outcomes[kind]))
	}
	fmt.Fprintf(w, "  %-36s %6d\n", "notifications sent", s.notes)
}

// sample is the server process's state at one moment.
type sample struct {
	at         time.Duration
	rss        int64 // bytes
	anon       int64 // bytes of rss that are the process's own memory (heap, stacks)
	threads    int
	fds        int
	goroutines int // -1 before the first scheduler dump
}

// readProc reads VmRSS, RssAnon and Threads from /proc/PID/status and
// counts /proc/PID/fd. The rest of VmRSS is file pages: badger's
// memory-mapped tables and value log, which the kernel reclaims at will.
func readProc(pid int) (rss, anon int64, threads, fds int, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		name, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		switch name {
		case "VmRSS":
			kb, _ := strconv.ParseInt(fields[0], 10, 64)
			rss = kb << 10
		case "RssAnon":
			kb, _ := strconv.ParseInt(fields[0], 10, 64)
			anon = kb << 10
		case "Threads":
			threads, _ = strconv.Atoi(fields[0])
		}
	}
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return rss, anon, threads, len(entries), err
}

// schedWatcher reads the server's stderr. With GODEBUG=schedtrace=N,
// scheddetail=1 the Go runtime prints every N ms a "SCHED" line and one
// "  G<id>: status=<n>(...)" line per goroutine; a dump's goroutines that
// are not dead (status 6) are the server's goroutine count, published when
// the next dump starts. Every other line is the server's log, kept in log.
type schedWatcher struct {
	goroutines atomic.Int64
	logLines   atomic.Int64
}

func (sw *schedWatcher) run(r io.Reader, log io.Writer) {
	sw.goroutines.Store(-1)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	count, inDump := 0, false
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(line, "SCHED "):
			if inDump {
				sw.goroutines.Store(int64(count))
			}
			count, inDump = 0, true
		case inDump && strings.HasPrefix(trimmed, "G") && strings.Contains(trimmed, ": status="):
			_, rest, _ := strings.Cut(trimmed, ": status=")
			digits := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))]
			if st, err := strconv.Atoi(digits); err == nil && st != 6 {
				count++
			}
		case inDump && (strings.HasPrefix(trimmed, "P") || strings.HasPrefix(trimmed, "M")) && line != trimmed:
		default:
			sw.logLines.Add(1)
			fmt.Fprintln(log, line)
		}
	}
}

// growth compares the median of the last third of post-warm-up values with
// the median of the first third.
func growth(values []float64) (first, last float64, ok bool) {
	if len(values) < 3 {
		return 0, 0, false
	}
	third := len(values) / 3
	return median(values[:third]), median(values[len(values)-third:]), true
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

const mib = 1 << 20
