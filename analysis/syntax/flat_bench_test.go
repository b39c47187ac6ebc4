package syntax

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/smacker/go-tree-sitter/golang"
)

// stdlibFiles returns every step-th Go file of the standard library, in path
// order, or skips the benchmark when GOROOT/src is absent. KAST_FLAT_STEP
// overrides step, which defaults to 3.
func stdlibFiles(b *testing.B) [][]byte {
	step := 3
	if s, err := strconv.Atoi(os.Getenv("KAST_FLAT_STEP")); err == nil && s > 0 {
		step = s
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".go" {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		b.Skip("no Go standard library under " + root)
	}
	sort.Strings(paths)
	var srcs [][]byte
	for i := 0; i < len(paths); i += step {
		if src, err := os.ReadFile(paths[i]); err == nil {
			srcs = append(srcs, src)
		}
	}
	return srcs
}

// threadCPU is the calling thread's CPU time, which other load on the
// machine disturbs much less than wall time.
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// BenchmarkFlatten parses a third of the Go standard library on one thread,
// timing tree-sitter's parse and flatten separately in thread CPU time: flatten's cost per node
// and the parse+flatten total against the parse-only floor.
func BenchmarkFlatten(b *testing.B) {
	srcs := stdlibFiles(b)
	l := NewLanguage("go", golang.GetLanguage())
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var parse, flat time.Duration
	var nodes int
	b.ResetTimer()
	for range b.N {
		for _, src := range srcs {
			p := l.acquire()
			t0 := threadCPU()
			t, err := p.ParseCtx(ctx, nil, src)
			t1 := threadCPU()
			l.release(p)
			if err != nil {
				b.Fatal(err)
			}
			ns, err := flatten(t)
			t2 := threadCPU()
			if err != nil {
				b.Fatal(err)
			}
			parse += t1 - t0
			flat += t2 - t1
			nodes += len(ns)
			release(t, ns)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(flat.Nanoseconds())/float64(nodes), "flat-ns/node")
	b.ReportMetric(parse.Seconds()/n, "parse-s/op")
	b.ReportMetric((parse+flat).Seconds()/n, "parse+flat-s/op")
	b.Logf("%d files, %d nodes: parse %v, flatten %v (%.1f ns/node), parse+flatten %v (%.1f%% above parse)",
		len(srcs), nodes/b.N, (parse / time.Duration(b.N)).Round(time.Millisecond),
		(flat / time.Duration(b.N)).Round(time.Millisecond), float64(flat.Nanoseconds())/float64(nodes),
		((parse + flat) / time.Duration(b.N)).Round(time.Millisecond), 100*flat.Seconds()/parse.Seconds())
}

// BenchmarkFlattenOnly flattens already parsed trees of every 30th standard
// library file again and again: flatten's own cost, steadier than
// BenchmarkFlatten's because no parse runs in between.
func BenchmarkFlattenOnly(b *testing.B) {
	if os.Getenv("KAST_FLAT_STEP") == "" {
		os.Setenv("KAST_FLAT_STEP", "30")
		defer os.Unsetenv("KAST_FLAT_STEP")
	}
	srcs := stdlibFiles(b)
	l := NewLanguage("go", golang.GetLanguage())
	var trees []*Tree
	nodes := 0
	for _, src := range srcs {
		t, err := l.Parse(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		defer t.Close()
		trees = append(trees, t)
		nodes += len(t.nodes)
	}
	b.ResetTimer()
	for range b.N {
		for _, t := range trees {
			ns, err := flatten(t.tree)
			if err != nil {
				b.Fatal(err)
			}
			nodePool.Put(&ns)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
}
