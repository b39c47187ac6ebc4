package syntax_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/syntax"
)

// rssAnon is the process's anonymous resident memory in KiB, or -1.
func rssAnon() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "RssAnon:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return -1
}

// Closing the trees of large files gives the parser's memory back to the
// system: the Go tree's four largest generated files parsed at once, on as
// many threads, left 170 MB of anonymous memory behind before (glibc kept
// the freed memory in each thread's arena).
func TestClosingLargeTreesReturnsMemory(t *testing.T) {
	if !syntax.TrimsHeap() || rssAnon() < 0 {
		t.Skip("the C heap is not trimmed here (not glibc, or no /proc)")
	}
	var srcs [][]byte
	for _, p := range []string{"cmd/compile/internal/ssa/opGen.go", "cmd/compile/internal/ssa/rewriteAMD64.go",
		"time/tzdata/zzipdata.go", "cmd/compile/internal/ssa/rewritegeneric.go"} {
		b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", p))
		if err != nil {
			t.Skipf("the Go tree's large files are not here: %v", err)
		}
		srcs = append(srcs, b)
	}
	l, _ := lang.ByID("go")
	settle := func() int {
		runtime.GC()
		debug.FreeOSMemory()
		return rssAnon()
	}
	before := settle()
	var wg sync.WaitGroup
	for _, src := range srcs {
		wg.Go(func() {
			runtime.LockOSThread() // each parse on a thread (and arena) of its own
			defer runtime.UnlockOSThread()
			tr, err := l.Syntax.Parse(context.Background(), src)
			if err != nil {
				t.Error(err)
				return
			}
			tr.Close()
		})
	}
	wg.Wait()
	if grew := settle() - before; grew > 48<<10 {
		t.Errorf("anonymous memory grew by %d MB after the trees were closed; want it returned", grew>>10)
	}
}
