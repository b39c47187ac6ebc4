package search

import (
	"math"
	"runtime/debug"
	"sync"
)

// nonGoHeadroom is what a refresh keeps free under the process's soft
// memory limit for memory the Go runtime does not count: tree-sitter's C
// heap while a file is parsed (65 MB for the Go tree's largest file, 1.9 MB
// of source) and thread stacks. The limit (kast's 250 MiB) is meant for the
// process; Go alone filled it during the build of the Go tree's index and
// the parser's memory went on top, to 264 MB of anonymous memory.
const nonGoHeadroom = 40 << 20

var memLimit struct {
	mu    sync.Mutex
	users int
	saved int64
}

// tightenMemoryLimit lowers a soft memory limit, when one is set, by
// nonGoHeadroom until the returned func is called; overlapping refreshes
// share one lowering. Without a limit it does nothing.
func tightenMemoryLimit() (restore func()) {
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	if memLimit.users == 0 {
		cur := debug.SetMemoryLimit(-1)
		if cur == math.MaxInt64 || cur <= 2*nonGoHeadroom {
			return func() {}
		}
		memLimit.saved = cur
		debug.SetMemoryLimit(cur - nonGoHeadroom)
	}
	memLimit.users++
	return func() {
		memLimit.mu.Lock()
		defer memLimit.mu.Unlock()
		if memLimit.users--; memLimit.users == 0 {
			debug.SetMemoryLimit(memLimit.saved)
		}
	}
}
