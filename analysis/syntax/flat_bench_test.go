package syntax

import (
	"context"
	"errors"
	"os"
	"runtime"
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
	paths := stdlibGoFiles(b)
	var srcs [][]byte
	for i := 0; i < len(paths); i += step {
		if src, err := os.ReadFile(paths[i]); err == nil {
			srcs = append(srcs, src)
		}
	}
	return srcs
}

// Linux's CPU-time clocks.
const (
	clockProcessCPU = 2
	clockThreadCPU  = 3
)

// cpuTime reads a CPU-time clock, which other load on the machine disturbs
// much less than wall time.
func cpuTime(clock uintptr) time.Duration {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clock, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration { return cpuTime(clockThreadCPU) }

// BenchmarkParse parses a third of the Go standard library on one thread
// through Parse (tree-sitter's C API, then flatten), through that C parse
// alone, and through ParseOnly (go-tree-sitter's ParseCtx, the floor), with a
// context that cannot be cancelled and with one that can. Each file goes
// through the three in rotating order, so that load on the machine spreads
// evenly over them. It reports thread CPU time and process CPU time, which
// also counts the binding's watcher goroutines and the collector.
func BenchmarkParse(b *testing.B) {
	srcs := stdlibFiles(b)
	l := NewLanguage("go", golang.GetLanguage())
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	parses := []struct {
		name  string
		parse func(context.Context, []byte) error
	}{
		{"Parse", func(ctx context.Context, src []byte) error {
			t, err := l.Parse(ctx, src)
			if err == nil {
				t.Close()
			}
			return err
		}},
		{"C", func(ctx context.Context, src []byte) error {
			p := l.parsers.get()
			t := p.parse(ctx, nil, src)
			l.parsers.put(p)
			if t == nil {
				return errors.New("no tree")
			}
			release(t, nil)
			return nil
		}},
		{"ParseOnly", l.ParseOnly},
	}
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"background", context.Background()}, {"cancellable", cancellable}} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			thread := make([]time.Duration, len(parses))
			process := make([]time.Duration, len(parses))
			for range b.N {
				for i, src := range srcs {
					for j := range parses {
						k := (i + j) % len(parses)
						t0, p0 := threadCPU(), cpuTime(clockProcessCPU)
						if err := parses[k].parse(c.ctx, src); err != nil {
							b.Fatal(err)
						}
						thread[k] += threadCPU() - t0
						process[k] += cpuTime(clockProcessCPU) - p0
					}
				}
			}
			for k, p := range parses {
				b.ReportMetric(thread[k].Seconds()/float64(b.N), p.name+"-thread-s/op")
				b.ReportMetric(process[k].Seconds()/float64(b.N), p.name+"-cpu-s/op")
			}
		})
	}
}

// BenchmarkFlatten parses a third of the Go standard library with
// go-tree-sitter on one thread and flattens every tree with the fast walk and
// with the cursor, in alternating order, timing each in thread CPU time:
// ns/node of both walks on the same trees, and parse+flatten against the
// parse-only floor.
func BenchmarkFlatten(b *testing.B) {
	srcs := stdlibFiles(b)
	l := NewLanguage("go", golang.GetLanguage())
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var parse, fast, cursor time.Duration
	var nodes int
	var buf []flatNode
	b.ResetTimer()
	for range b.N {
		for i, src := range srcs {
			p := l.floor.get()
			t0 := threadCPU()
			t, err := p.ParseCtx(ctx, nil, src)
			t1 := threadCPU()
			l.floor.put(p)
			if err != nil {
				b.Fatal(err)
			}
			for j := range 2 {
				useFast := (i+j)%2 == 0
				t0 := threadCPU()
				ns, ok := flattenWith(cTree(t), buf, useFast)
				d := threadCPU() - t0
				if !ok {
					b.Fatalf("flattenWith(fast=%v) failed", useFast)
				}
				if useFast {
					fast += d
				} else {
					cursor += d
				}
				buf = ns
			}
			parse += t1 - t0
			nodes += len(buf)
			t.Close()
		}
	}
	b.StopTimer()
	n := float64(b.N)
	perNode := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(nodes) }
	b.ReportMetric(perNode(fast), "fast-ns/node")
	b.ReportMetric(perNode(cursor), "cursor-ns/node")
	b.ReportMetric(parse.Seconds()/n, "parse-s/op")
	b.ReportMetric((parse+fast).Seconds()/n, "parse+fast-s/op")
	b.ReportMetric((parse+cursor).Seconds()/n, "parse+cursor-s/op")
	op := func(d time.Duration) time.Duration { return (d / time.Duration(b.N)).Round(time.Millisecond) }
	b.Logf("%d files, %d nodes: parse %v; fast walk %v (%.1f ns/node, %.1f%% above parse); cursor walk %v (%.1f ns/node, %.1f%% above parse)",
		len(srcs), nodes/b.N, op(parse),
		op(fast), perNode(fast), 100*fast.Seconds()/parse.Seconds(),
		op(cursor), perNode(cursor), 100*cursor.Seconds()/parse.Seconds())
}

// BenchmarkFlattenOnly flattens already parsed trees of every 30th standard
// library file again and again, with flatten as Parse runs it and with each
// walk forced: their own cost, steadier than BenchmarkFlatten's because no
// parse runs in between.
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
	b.Run("flatten", func(b *testing.B) {
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
	})
	for _, walk := range []struct {
		name string
		fast bool
	}{{"fast", true}, {"cursor", false}} {
		b.Run(walk.name, func(b *testing.B) {
			var buf []flatNode
			for range b.N {
				for _, t := range trees {
					ns, ok := flattenWith(t.tree, buf, walk.fast)
					if !ok {
						b.Fatal("flattenWith failed")
					}
					buf = ns
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		})
	}
}
