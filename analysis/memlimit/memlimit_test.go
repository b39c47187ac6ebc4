package memlimit

import (
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
)

const mib = 1 << 20

// recorder stands for the runtime: it keeps the last limit set.
type recorder struct{ limit int64 }

func (r *recorder) set(v int64) int64 {
	old := r.limit
	if v >= 0 {
		r.limit = v
	}
	return old
}

// newLimit is a started limit whose work allows it to reach most.
func newLimit(floor, most int64) (*Limit, *recorder) {
	r := &recorder{limit: math.MaxInt64}
	l := &Limit{set: r.set}
	l.configure(floor, most)
	l.allow(most)
	return l, r
}

// The limit follows the live heap between its floor and its ceiling, with
// room for the heap to grow by half and for the runtime's own overhead,
// and comes back to the floor when the heap shrinks.
func TestLimitFollowsTheLiveHeap(t *testing.T) {
	l, r := newLimit(250*mib, 512*mib)
	for _, c := range []struct {
		live, overhead, want int64
	}{
		{50 * mib, 0, 250 * mib},         // well under the floor
		{150 * mib, 10 * mib, 250 * mib}, // 247 MiB asked: the floor holds
		{190 * mib, 0, 300 * mib},        // a goal of 285 MiB, 95% of the limit
		{190 * mib, 40 * mib, 340 * mib}, // the overhead is not the heap's room
		{195 * mib, 40 * mib, 340 * mib}, // a small move is ignored
		{285 * mib, 30 * mib, 480 * mib}, // a goal of 427.5 MiB
		{600 * mib, 0, 512 * mib},        // never above the ceiling
		{40 * mib, 50 * mib, 250 * mib},  // the pass ended
	} {
		l.follow(usage{live: c.live, overhead: c.overhead})
		if r.limit != c.want {
			t.Errorf("live %d MiB, overhead %d MiB: limit %d MiB, want %d MiB", c.live/mib, c.overhead/mib, r.limit/mib, c.want/mib)
		}
	}
}

// The file pages the process maps (the index's tables) count against its
// resident budget: the limit gives way to them, down to the floor.
func TestMappedFilesComeOffTheCeiling(t *testing.T) {
	l, r := newLimit(250*mib, 960*mib)
	for _, c := range []struct {
		live, mapped, want int64
	}{
		{380 * mib, 100 * mib, 640 * mib}, // a goal of 570 MiB and 40 MiB of overhead
		{380 * mib, 600 * mib, 360 * mib}, // 960 less 600 mapped
		{380 * mib, 800 * mib, 250 * mib}, // never under the floor
		{380 * mib, 0, 640 * mib},
	} {
		l.follow(usage{live: c.live, overhead: 40 * mib, mapped: c.mapped})
		if r.limit != c.want {
			t.Errorf("live %d MiB, %d MiB mapped: limit %d MiB, want %d MiB", c.live/mib, c.mapped/mib, r.limit/mib, c.want/mib)
		}
	}
}

// The usage read from the runtime is the one it sets its goal by: a live
// heap, and an overhead that is neither heap objects nor free pages.
func TestReadUsage(t *testing.T) {
	samples := make([]metrics.Sample, len(usageMetrics))
	for i, name := range usageMetrics {
		samples[i].Name = name
	}
	runtime.GC()
	u, ok := readUsage(samples)
	if !ok {
		t.Fatal("runtime metrics unreadable")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if u.live <= 0 || u.live > int64(ms.HeapAlloc)+mib {
		t.Errorf("live %d, want within (0, HeapAlloc %d and a MiB]", u.live, ms.HeapAlloc)
	}
	// The stacks and the span metadata are overhead, and the heap's free
	// pages and objects are not (a MiB of slack: the two reads are apart).
	least := int64(ms.StackInuse+ms.MSpanInuse) - mib
	most := int64(ms.Sys-ms.HeapReleased-ms.HeapAlloc) + mib
	if u.overhead < least || u.overhead > most {
		t.Errorf("overhead %d, want within [%d, %d]", u.overhead, least, most)
	}
	// The test binary's own code is a mapped file.
	if runtime.GOOS == "linux" && u.mapped <= 0 {
		t.Errorf("no mapped file pages read")
	}
}

// Without work that allows more, the floor holds whatever the heap does;
// when that work ends, the limit comes back under what is still allowed.
func TestLimitRisesOnlyAsFarAsAllowed(t *testing.T) {
	r := &recorder{limit: math.MaxInt64}
	l := &Limit{set: r.set}
	l.configure(250*mib, 512*mib)
	l.follow(usage{live: 330 * mib})
	if r.limit != 250*mib {
		t.Fatalf("nothing allowed: limit %d MiB, want the floor", r.limit/mib)
	}
	small := l.allow(50 * mib)
	pass := l.allow(150 * mib)
	l.follow(usage{live: 330 * mib})
	if r.limit != 450*mib {
		t.Fatalf("200 MiB allowed: limit %d MiB, want 450", r.limit/mib)
	}
	pass()
	if r.limit != 300*mib {
		t.Fatalf("after the pass: limit %d MiB, want 300", r.limit/mib)
	}
	small()
	l.follow(usage{live: 330 * mib})
	if r.limit != 250*mib {
		t.Fatalf("all done: limit %d MiB, want the floor", r.limit/mib)
	}
}

// Headroom asked for is taken off whatever the limit follows, and given
// back once every user is done.
func TestTightenTakesHeadroomOffTheLimit(t *testing.T) {
	l, r := newLimit(250*mib, 512*mib)
	first := l.tighten(40 * mib)
	second := l.tighten(10 * mib)
	if r.limit != 200*mib {
		t.Fatalf("two users: limit %d MiB, want 200", r.limit/mib)
	}
	l.follow(usage{live: 285 * mib, overhead: 45 * mib})
	if r.limit != 445*mib {
		t.Fatalf("raised while tightened: limit %d MiB, want 445", r.limit/mib)
	}
	first()
	first() // a second call changes nothing
	second()
	if r.limit != 495*mib {
		t.Fatalf("after both: limit %d MiB, want 495", r.limit/mib)
	}
}

// Without Start (GOMEMLIMIT set by the user), the user's limit is kept,
// tightened and restored as it was; without any limit nothing changes.
func TestTightenWithoutStart(t *testing.T) {
	r := &recorder{limit: 300 * mib}
	l := &Limit{set: r.set}
	restore := l.tighten(40 * mib)
	l.follow(usage{live: 1000 * mib}) // not started: the user's limit does not move
	if r.limit != 260*mib {
		t.Fatalf("tightened user limit %d MiB, want 260", r.limit/mib)
	}
	restore()
	if r.limit != 300*mib {
		t.Fatalf("restored user limit %d MiB, want 300", r.limit/mib)
	}
	r = &recorder{limit: math.MaxInt64}
	l = &Limit{set: r.set}
	l.tighten(40 * mib)()
	if r.limit != math.MaxInt64 {
		t.Fatalf("no limit: set to %d", r.limit)
	}
}
