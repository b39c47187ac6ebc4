package search

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/kast-dev/kast/storage"
)

// TestStdlibTimings indexes the Go standard library into a persistent index
// and reports indexing time, index size and search latencies. It is a
// measurement, run only with KAST_SEARCH_STDLIB=1 (make bench).
func TestStdlibTimings(t *testing.T) {
	if os.Getenv("KAST_SEARCH_STDLIB") == "" {
		t.Skip("set KAST_SEARCH_STDLIB=1 to index GOROOT/src (compares with ripgrep when installed)")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	ix, err := storage.Open(root, storage.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e, err := Open(root, ix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := e.Status()
	t.Logf("cold index: %d files, %d chunks, %d embedded, %.1f MB source, %.1f MB search tables (%.2fx), %s",
		rep.Files, rep.Chunks, rep.Embedded, float64(st.SourceBytes)/1e6, float64(st.IndexBytes)/1e6,
		float64(st.IndexBytes)/float64(st.SourceBytes), rep.Duration.Round(time.Millisecond))
	rep, _ = e.Refresh(ctx, false, nil)
	t.Logf("warm refresh (nothing changed): %s", rep.Duration.Round(time.Millisecond))
	measure := func(name string, f func()) {
		var ds []time.Duration
		for range 20 {
			s := time.Now()
			f()
			ds = append(ds, time.Since(s))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%-32s p50 %6.1f ms  p95 %6.1f ms", name, ms(ds[10]), ms(ds[18]))
	}
	for _, p := range []string{`func \w+Reader\(`, `ErrUnexpectedEOF`, `(?i)deadline exceeded`, `sync\.Mutex`, `[A-Z][a-z]+Marshal`} {
		var n, c int
		measure("regex "+p, func() {
			res, err := e.Regex(ctx, RegexQuery{Pattern: p})
			if err != nil {
				t.Fatal(err)
			}
			n, c = len(res.Lines), res.Candidates
		})
		t.Logf("  %d lines, %d candidate files", n, c)
		if rg, err := exec.LookPath("rg"); err == nil {
			var rgLines int
			measure("ripgrep "+p, func() {
				out, _ := exec.Command(rg, "-n", "--no-heading", p, root).Output()
				rgLines = bytes.Count(out, []byte("\n"))
			})
			t.Logf("  ripgrep: %d lines", rgLines)
		}
	}
	for _, q := range []string{"parse http request header", "gzip writer flush"} {
		measure("lexical "+q, func() { e.Lexical(ctx, RankedQuery{Query: q}) })
		measure("semantic "+q, func() { e.Semantic(ctx, RankedQuery{Query: q, Threshold: -1}) })
		measure("hybrid "+q, func() { e.Hybrid(ctx, RankedQuery{Query: q}) })
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
