// Package memlimit owns the process's soft memory limit.
//
// kast sets a low limit (250 MiB) so that bulk indexing's garbage does not
// pile up. But when the live heap itself comes near the limit, as the
// reference pass's working set does on a workspace of ten million lines,
// the collector runs without pause: measured there, marking, assists and
// the scavenger's madvise took over half of the pass's CPU. So work that
// knows it needs more (the pass, by the workspace's size) allows the limit
// to rise; while the live heap needs room, the limit then follows it, up
// to the floor plus what is allowed, and it comes back down when the heap
// shrinks. The most it may reach is a budget for the whole resident set:
// the file pages the process maps (the index's tables, read through mmap:
// 600 MB of a 10-million-line pass's 1 GB) come off it. A limit the user
// sets with GOMEMLIMIT is left as it is.
package memlimit

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// roomFactor is how far above the live heap the heap may grow when the
// limit is raised: the collector then runs once per half of the live heap
// allocated, rather than once per few megabytes.
const roomFactor = 1.5

// goalShare is the share of the limit, less the overhead, that the
// runtime lets the heap's goal reach: it keeps 3% out
// (memoryLimitHeapGoalHeadroomPercent), and a little more goes to its
// pacing.
const goalShare = 0.95

// checkEvery is how often the live heap is read; reading it costs a few
// microseconds.
const checkEvery = 250 * time.Millisecond

// Limit is the limit's state: the floor it was configured with, the
// resident set it must keep within, what work running now allows above the
// floor, and the headroom users have asked for.
type Limit struct {
	mu       sync.Mutex
	floor    int64
	most     int64 // the resident set's budget, mapped file pages included
	mapped   int64 // the file pages last seen mapped
	allowed  int64 // the sum of active Allow calls
	raised   int64 // the adaptive limit, between floor and ceiling()
	headroom int64 // the sum of active Tighten calls
	users    int
	set      func(int64) int64 // debug.SetMemoryLimit, or a test's recorder
}

var process = &Limit{set: debug.SetMemoryLimit}

// Start sets the process's limit to floor and, while work allows more,
// lets it follow the live heap up to most less the file pages mapped,
// until ctx ends. Without a call to
// Start (or with GOMEMLIMIT set, where the caller does not call it) the
// limit is whatever the runtime has, and Tighten still works on it.
func Start(ctx context.Context, floor, most int64) {
	process.configure(floor, most)
	go func() {
		samples := make([]metrics.Sample, len(usageMetrics))
		for i, name := range usageMetrics {
			samples[i].Name = name
		}
		tick := time.NewTicker(checkEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if u, ok := readUsage(samples); ok {
				process.follow(u)
			}
		}
	}()
}

// usage is what the limit follows: the live heap, and the memory the
// runtime counts against the limit that holds no heap objects (stacks,
// span and collector metadata, fragmentation inside spans). That overhead
// was some 50 MB in a pass over three million lines: a limit of 1.5 times
// a live heap of 190 MB left the collector 45 MB to allocate, not 95, and
// it ran twice as often as meant. mapped is the resident file pages.
type usage struct{ live, overhead, mapped int64 }

var usageMetrics = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/objects:bytes",
}

// readUsage reads usage the way the runtime computes its heap goal under
// a limit: the overhead is what is mapped and not released, less free
// pages and heap objects.
func readUsage(samples []metrics.Sample) (usage, bool) {
	metrics.Read(samples)
	var v [5]int64
	for i := range samples {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return usage{}, false
		}
		v[i] = int64(samples[i].Value.Uint64())
	}
	return usage{live: v[0], overhead: max(0, v[1]-v[2]-v[3]-v[4]), mapped: residentFileBytes()}, true
}

// residentFileBytes is the process's resident file pages (RssFile), 0
// where /proc does not tell.
func residentFileBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(b), "\nRssFile:")
	if !ok {
		return 0
	}
	field, _, _ := strings.Cut(rest, "\n")
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(field), "kB")), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// Tighten lowers the process's limit, when one is set, by headroom until
// the returned func is called: for memory the runtime does not count, such
// as a C parser's heap. Overlapping calls add up.
func Tighten(headroom int64) (restore func()) { return process.tighten(headroom) }

// Allow lets the limit rise up to extra above its floor, while the live
// heap needs it, until the returned func is called. Overlapping calls add
// up.
func Allow(extra int64) (restore func()) { return process.allow(extra) }

func (l *Limit) configure(floor, most int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.floor, l.most, l.raised = floor, max(most, floor), floor
	l.apply()
}

// ceiling is the most the limit may follow the live heap to now, never
// under the floor; it is called with mu held.
func (l *Limit) ceiling() int64 { return max(l.floor, min(l.floor+l.allowed, l.most-l.mapped)) }

func (l *Limit) allow(extra int64) (restore func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.allowed += extra
	return sync.OnceFunc(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.allowed -= extra
		if l.floor != 0 && l.raised > l.ceiling() {
			l.raised = l.ceiling()
			l.apply()
		}
	})
}

// follow moves the limit to where the heap's goal is roomFactor times the
// live heap, the runtime's overhead added, kept between the floor and the
// ceiling. Small moves are ignored so that the limit does not change on
// every check, except onto the floor or the ceiling.
func (l *Limit) follow(u usage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.floor == 0 {
		return
	}
	l.mapped = u.mapped
	ceiling := l.ceiling()
	want := int64(math.Round(float64(u.live)*roomFactor/goalShare)) + u.overhead
	want = min(max(want, l.floor), ceiling)
	diff := want - l.raised
	if diff != 0 && (diff > l.raised/16 || -diff > l.raised/16 || want == l.floor || want == ceiling) {
		l.raised = want
		l.apply()
	}
}

func (l *Limit) tighten(headroom int64) (restore func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.floor == 0 {
		// Not started: the runtime's own limit, when there is one.
		cur := l.set(-1)
		if cur == math.MaxInt64 || cur <= 2*headroom {
			return func() {}
		}
		if l.users == 0 {
			l.raised = cur
		}
	}
	l.users++
	l.headroom += headroom
	l.apply()
	return sync.OnceFunc(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.users--
		l.headroom -= headroom
		l.apply()
	})
}

// apply sets the runtime's limit; it is called with mu held.
func (l *Limit) apply() {
	if l.raised > 0 {
		l.set(max(l.raised-l.headroom, l.raised/2))
	}
}
