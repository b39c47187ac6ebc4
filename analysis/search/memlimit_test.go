package search

import (
	"math"
	"runtime/debug"
	"testing"
)

// A refresh lowers a set soft limit by the C heap's headroom, overlapping
// refreshes share the lowering, and the last one restores the limit; with
// no limit set nothing changes.
func TestTightenMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(250 << 20))
	outer := tightenMemoryLimit()
	inner := tightenMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != 250<<20-nonGoHeadroom {
		t.Fatalf("during refreshes: limit %d", got)
	}
	outer()
	if got := debug.SetMemoryLimit(-1); got != 250<<20-nonGoHeadroom {
		t.Fatalf("one refresh still running: limit %d", got)
	}
	inner()
	if got := debug.SetMemoryLimit(-1); got != 250<<20 {
		t.Fatalf("after: limit %d", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	tightenMemoryLimit()()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("no limit became %d", got)
	}
}
