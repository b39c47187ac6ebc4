package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/benchpos"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/server/servertest"
	"github.com/kast-dev/kast/storage/scan"
)

// TestStdlibLatency measures request latencies through the whole in-process
// server (framing, dispatch, snapshot, engine, JSON) on a warm index of the
// Go standard library, at the positions cmd/kastbench samples, and lists the
// slowest positions of each method: the way to find and profile the tail.
// It prints numbers and asserts none, and it is skipped unless
// KAST_BENCH_STDLIB=1. Other knobs:
//
//	KAST_BENCH_ROOT        the tree (default $GOROOT/src)
//	KAST_BENCH_CACHE       XDG_CACHE_HOME for the index, kept between runs so
//	                       the second run is warm (default a temporary one)
//	KAST_BENCH_SAMPLES     positions to sample (default 300)
//	KAST_BENCH_METHODS     comma-separated methods to send (default all four)
//	KAST_BENCH_CPUPROFILE  write a CPU profile of the measured requests only
//	KAST_BENCH_SLOWEST     slow positions to list per method (default 5)
//
// The test runs without the soft memory limit the kast command sets; run it
// with GOMEMLIMIT=250MiB to measure under the server's memory conditions.
func TestStdlibLatency(t *testing.T) {
	if os.Getenv("KAST_BENCH_STDLIB") == "" {
		t.Skip("set KAST_BENCH_STDLIB=1 to measure request latencies on the Go standard library")
	}
	root := cmpOr(os.Getenv("KAST_BENCH_ROOT"), filepath.Join(runtime.GOROOT(), "src"))
	cache := os.Getenv("KAST_BENCH_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	t.Setenv("XDG_CACHE_HOME", cache)
	n, _ := strconv.Atoi(cmpOr(os.Getenv("KAST_BENCH_SAMPLES"), "300"))
	slowest, _ := strconv.Atoi(cmpOr(os.Getenv("KAST_BENCH_SLOWEST"), "5"))
	methods := []string{"textDocument/definition", "textDocument/references", "textDocument/completion", "workspace/symbol"}
	if m := os.Getenv("KAST_BENCH_METHODS"); m != "" {
		methods = strings.Split(m, ",")
	}

	ctx := context.Background()
	samples := stdlibSamples(t, ctx, root, n)
	client, _ := servertest.Pipe(t, newTestServer(t), servertest.Header)
	client.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	if _, err := client.Initialize(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := client.Call(ctx, "workspace/executeCommand", map[string]any{"command": cmdReindex}, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("index ready in %s", time.Since(start).Round(time.Millisecond))

	if f := os.Getenv("KAST_BENCH_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	type timing struct {
		d    time.Duration
		at   int // sample
		size int // result bytes
	}
	byMethod := map[string][]timing{}
	for i, s := range samples {
		u := servertest.FileURI(s.Path)
		if err := client.DidOpen(u, "go", 1, s.Text); err != nil {
			t.Fatal(err)
		}
		doc := map[string]any{"uri": u}
		pos := map[string]int{"line": s.Line, "character": s.Col}
		for _, m := range methods {
			var params any = map[string]any{"textDocument": doc, "position": pos}
			switch m {
			case "textDocument/references":
				params = map[string]any{"textDocument": doc, "position": pos, "context": map[string]bool{"includeDeclaration": false}}
			case "workspace/symbol":
				params = map[string]string{"query": s.Name}
			}
			var res json.RawMessage
			begin := time.Now()
			if err := client.Call(ctx, m, params, &res); err != nil {
				t.Errorf("%s at %s: %v", m, s, err)
				continue
			}
			byMethod[m] = append(byMethod[m], timing{time.Since(begin), i, len(res)})
		}
		if err := client.Notify("textDocument/didClose", map[string]any{"textDocument": doc}); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d positions in %s\n%-26s %9s %9s %9s %9s\n", len(samples), root, "method", "p50", "p95", "p99", "max")
	for _, m := range methods {
		ts := byMethod[m]
		slices.SortFunc(ts, func(a, b timing) int { return int(a.d - b.d) })
		pct := func(p float64) time.Duration {
			if len(ts) == 0 {
				return 0
			}
			return ts[min(len(ts)-1, int(float64(len(ts))*p))].d.Round(10 * time.Microsecond)
		}
		fmt.Fprintf(&b, "%-26s %9s %9s %9s %9s\n", m, pct(.5), pct(.95), pct(.99), pct(1))
		for _, x := range ts[max(0, len(ts)-slowest):] {
			fmt.Fprintf(&b, "    %9s %8d B  %s\n", x.d.Round(10*time.Microsecond), x.size, samples[x.at])
		}
	}
	runtime.GC()
	if f := os.Getenv("KAST_BENCH_HEAPPROFILE"); f != "" {
		out, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(out); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	fmt.Fprintf(&b, "live heap after the run: %d MB (GC cycles during the run: %d, %.0f%% of CPU)\n",
		mem.HeapAlloc>>20, mem.NumGC, 100*mem.GCCPUFraction)
	t.Log("\n" + b.String())
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// stdlibSamples picks n reference positions as cmd/kastbench does, so both
// measure the same positions.
func stdlibSamples(t *testing.T, ctx context.Context, root string, n int) []benchpos.Sample {
	found, err := scan.Walk(ctx, root, scan.Options{Include: workspace.Supported})
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(found.Files))
	for i, f := range found.Files {
		paths[i] = f.Path
	}
	samples, err := benchpos.Go(ctx, paths, n)
	if err != nil {
		t.Fatal(err)
	}
	return samples
}
