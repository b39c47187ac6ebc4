package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis/benchpos"
)

// The cold first minute: a user opens a repository kast has never seen.
// Each server starts with an empty cache and is queried from its first
// answer on, while it may still be indexing and resolving in the
// background; its resident memory is sampled every 100 ms from start to
// the end of that background work.

// coldResult is one server's cold run.
type coldResult struct {
	ready    time.Duration // start to the first workspace/symbol answer with results
	settled  time.Duration // start to the end of background work (kast.reindex), 0 if not known
	peakRSS  int64         // KiB, over the whole run
	timings  timings
	rssAtEnd int64
	// anonAtPeak and fileAtPeak split the peak sample (KiB): the process's
	// own memory, and the pages of files it maps (badger's tables and value
	// log), which the kernel can drop.
	anonAtPeak, fileAtPeak int64
	// queryCPU is the server's CPU time (user and system) while the
	// queries ran, background work included: on a shared machine it
	// tells more than wall times.
	queryCPU time.Duration
	err      error // why the run ended early; what was measured before stays
	// stale counts the reference answers given during the run that differ
	// from the answers once the background work is done, and of those the
	// empty ones: a server answering from a partial index is fast and wrong.
	stale, staleEmpty, rechecked int
	// staleBySecond counts, per 5 seconds from the first query, the
	// samples asked then and the stale answers among them: a partial
	// index and a pass not yet done give different stale answers.
	staleBySecond []staleBucket
	// indexedAfter is when kast's first index ended, from the first query
	// (negative: before it; zero: not seen).
	indexedAfter time.Duration
}

// staleBucket is five seconds of a cold run's reference queries.
type staleBucket struct{ asked, stale, empty int }

func runCold(kast, gopls, root string, n int) error {
	paths, size, err := treeFiles(root)
	if err != nil {
		return err
	}
	ctx := context.Background()
	samples, err := benchpos.Go(ctx, paths, n)
	if err != nil {
		return err
	}
	fmt.Printf("\nCold start on %s (%d files, %.1f MB): empty caches, %d positions queried from the first ready answer\n",
		root, len(paths), float64(size)/(1<<20), len(samples))
	type server struct {
		name string
		argv []string
	}
	servers := []server{{"kast", []string{kast, "lsp", "--stdio"}}}
	if gopls != "" {
		servers = append(servers, server{"gopls", []string{gopls}})
	} else {
		fmt.Println("gopls: not run (-gopls PATH)")
	}
	results := map[string]coldResult{}
	for _, srv := range servers {
		// A server failing mid-run ends its own run only: what it answered
		// before is printed beside the others.
		r := coldRun(ctx, srv.name, root, srv.argv, samples)
		results[srv.name] = r
		// A line as each server ends: gopls's run can take many minutes.
		fmt.Printf("%s: ready in %s, peak RSS %d MB (anonymous %d MB, mapped files %d MB)\n", srv.name,
			r.ready.Round(time.Millisecond), r.peakRSS/1024, r.anonAtPeak/1024, r.fileAtPeak/1024)
		if r.err != nil {
			fmt.Printf("%s: run ended early: %v\n", srv.name, r.err)
		}
		if r.rechecked > 0 {
			fmt.Printf("%s: %d of %d reference answers differ from the answers once the background work is done (%d of them empty)\n",
				srv.name, r.stale, r.rechecked, r.staleEmpty)
			if r.indexedAfter != 0 {
				fmt.Printf("%s: first index ended %.1f s after the first query\n", srv.name, r.indexedAfter.Seconds())
			}
			fmt.Printf("%s: by when asked (seconds from the first query: stale (empty) of asked):", srv.name)
			for i, b := range r.staleBySecond {
				if b.asked > 0 {
					fmt.Printf(" %d–%d s %d (%d) of %d;", 5*i, 5*i+5, b.stale, b.empty, b.asked)
				}
			}
			fmt.Println()
		}
		printSlowest(srv.name, r.timings.slowest, 20)
		printSlowestOf(srv.name, "textDocument/completion", r.timings.slowest, 10)
		printSlowestOf(srv.name, "textDocument/references", r.timings.slowest, 20)
	}
	printCold(servers[0].name, results, len(servers) > 1)
	return nil
}

// coldRun starts one server on an empty cache and measures it. A failure
// is recorded in the result, beside what was measured until then.
func coldRun(ctx context.Context, name, root string, argv []string, samples []sample) (r coldResult) {
	tmp, err := os.MkdirTemp("", "kastbench-cold")
	if err != nil {
		r.err = err
		return r
	}
	defer os.RemoveAll(tmp)
	return coldRunCached(ctx, name, root, argv, samples, filepath.Join(tmp, "cache"))
}

// coldRunCached is coldRun with the server's cache folder (XDG_CACHE_HOME)
// at cacheHome, which the caller keeps: a scale run reads the index's size
// there and starts the server again on it.
func coldRunCached(ctx context.Context, name, root string, argv []string, samples []sample, cacheHome string) (r coldResult) {
	env := append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	if name == "gopls" {
		// gopls's own caches start empty; the go command's build cache is
		// the machine's, as an editor user's would be.
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			env = append(env, "GOCACHE="+strings.TrimSpace(string(out)))
		}
	}
	start := time.Now()
	s, err := startServer(ctx, name, root, env, argv...)
	if err != nil {
		r.err = err
		return r
	}
	defer s.close()
	sampler := sampleRSS(s.cmd.Process.Pid)
	defer func() {
		r.peakRSS, r.rssAtEnd, r.anonAtPeak, r.fileAtPeak = sampler.stop()
	}()
	if r.err = waitSymbols(ctx, s, samples); r.err != nil {
		return r
	}
	r.ready = time.Since(start)
	cpu0, queried := processCPU(s.cmd.Process.Pid), time.Now()
	r.timings, r.err = measureNow(ctx, s, samples)
	r.queryCPU = processCPU(s.cmd.Process.Pid) - cpu0
	if r.err != nil {
		return r
	}
	if failed := len(r.timings.byMethod["workspace/symbol errors"]); failed == len(samples) {
		r.err = fmt.Errorf("every request failed (the server may have exited)")
		return r
	}
	if name == "kast" {
		// kast.reindex answers once the index is up to date and every
		// reference resolved: the end of the background work.
		// It can take minutes on a large tree: longer than a request's limit.
		// An hour: ten million lines on two shared cores took over 30 minutes.
		ctx, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		_, r.err = s.conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "kast.reindex"}, nil)
		if at := s.indexed.Load(); at != 0 {
			r.indexedAfter = time.Unix(0, at).Sub(queried)
		}
		if r.err == nil {
			r.settled = time.Since(start)
			r.stale, r.staleEmpty, r.rechecked, r.staleBySecond, r.err = staleReferences(ctx, s, samples, r.timings)
		}
	}
	return r
}

// waitSymbols returns once the server answers a workspace/symbol request
// for a sampled name with at least one result.
func waitSymbols(ctx context.Context, s *lspServer, samples []sample) error {
	deadline := time.Now().Add(10 * time.Minute)
	for i := 0; time.Now().Before(deadline); i++ {
		var res []json.RawMessage
		err := s.call(ctx, "workspace/symbol", map[string]string{"query": samples[i%len(samples)].Name}, &res)
		if err == nil && len(res) > 0 {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s never answered workspace/symbol", s.name)
}

// rssSampler reads a process's resident set every 100 ms.
type rssSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak int64
	last int64
	// The peak sample's split into anonymous memory and mapped files.
	peakAnon, peakFile int64
}

func sampleRSS(pid int) *rssSampler {
	r := &rssSampler{done: make(chan struct{})}
	r.wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if m := readRSS(pid); m.total > 0 {
				r.mu.Lock()
				if m.total > r.peak {
					r.peak, r.peakAnon, r.peakFile = m.total, m.anon, m.file
				}
				r.last = m.total
				r.mu.Unlock()
			}
			select {
			case <-r.done:
				return
			case <-tick.C:
			}
		}
	})
	return r
}

// stop ends the sampling and returns the peak and the last sample, and the
// peak's anonymous and file-mapped parts, in KiB. It may be called once.
func (r *rssSampler) stop() (peak, last, anon, file int64) {
	close(r.done)
	r.wg.Wait()
	return r.peak, r.last, r.peakAnon, r.peakFile
}

// rss is a resident-set sample in KiB.
type rss struct{ total, anon, file int64 }

// readRSS reads VmRSS, RssAnon and RssFile of /proc/pid/status in KiB;
// zero when the process is gone.
func readRSS(pid int) rss {
	var m rss
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		switch key {
		case "VmRSS":
			m.total = kb
		case "RssAnon":
			m.anon = kb
		case "RssFile":
			m.file = kb
		}
	}
	return m
}

func printCold(first string, results map[string]coldResult, withGopls bool) {
	names := []string{first}
	if withGopls {
		names = append(names, "gopls")
	}
	fmt.Printf("%-34s", "")
	for _, n := range names {
		fmt.Printf(" %24s", n)
	}
	fmt.Println()
	row := func(label string, cell func(coldResult) string) {
		fmt.Printf("%-34s", label)
		for _, n := range names {
			fmt.Printf(" %24s", cell(results[n]))
		}
		fmt.Println()
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }
	row("ready (first workspace/symbol)", func(r coldResult) string { return r.ready.Round(time.Millisecond).String() })
	for _, m := range []string{"textDocument/definition", "textDocument/references", "textDocument/completion", "workspace/symbol"} {
		row(strings.TrimPrefix(m, "textDocument/")+" p50/p95/p99 ms", func(r coldResult) string {
			d := r.timings.byMethod[m]
			return ms(percentile(d, .5)) + " / " + ms(percentile(d, .95)) + " / " + ms(percentile(d, .99))
		})
	}
	row("CPU time while queried", func(r coldResult) string { return r.queryCPU.Round(10 * time.Millisecond).String() })
	row("  of which in def/refs/completion/symbol", func(r coldResult) string {
		var cells []string
		for _, m := range []string{"textDocument/definition", "textDocument/references", "textDocument/completion", "workspace/symbol"} {
			cells = append(cells, strconv.FormatFloat(r.timings.cpuByMethod[m].Seconds(), 'f', 1, 64))
		}
		return strings.Join(cells, "/") + " s"
	})
	row("background work done", func(r coldResult) string {
		if r.settled == 0 {
			return "-"
		}
		return r.settled.Round(100 * time.Millisecond).String()
	})
	row("peak RSS (100 ms samples)", func(r coldResult) string { return fmt.Sprintf("%d MB", r.peakRSS/1024) })
	row("  of which anonymous / mapped files", func(r coldResult) string {
		return fmt.Sprintf("%d / %d MB", r.anonAtPeak/1024, r.fileAtPeak/1024)
	})
	row("RSS at the end", func(r coldResult) string { return fmt.Sprintf("%d MB", r.rssAtEnd/1024) })
	row("failed requests", func(r coldResult) string {
		n := 0
		for m, d := range r.timings.byMethod {
			if strings.HasSuffix(m, " errors") {
				n += len(d)
			}
		}
		return strconv.Itoa(n)
	})
	row("run", func(r coldResult) string {
		if r.err != nil {
			return "ended early"
		}
		return "complete"
	})
}

// processCPU is a process's user and system CPU time so far, from
// /proc/pid/stat; zero when it cannot be read.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after its closing parenthesis (state is field 3, utime 14, stime 15).
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}

// printSlowest lists a server's slowest requests: the positions that set
// its high percentiles.
func printSlowest(name string, slow []slowRequest, n int) {
	for _, r := range slow[:min(n, len(slow))] {
		fmt.Printf("  %s slow: %8.1f ms %-26s %-18s %6d results  #%-3d at %6.1f s  %s\n", name, float64(r.took)/1e6, r.method, r.name, r.results,
			r.sample, r.since.Seconds(), r.at)
	}
}

// printSlowestOf lists a server's slowest requests of one method.
func printSlowestOf(name, method string, slow []slowRequest, n int) {
	var of []slowRequest
	for _, r := range slow {
		if r.method == method {
			of = append(of, r)
		}
	}
	printSlowest(name, of, n)
}

// staleReferences asks every sample's references again once the background
// work is done and counts the answers given during the run that differ.
func staleReferences(ctx context.Context, s *lspServer, samples []sample, t timings) (stale, empty, asked int, buckets []staleBucket, err error) {
	during := t.refs // an answer, maybe empty, per sample
	for i, smp := range samples {
		if during[i] == failedAnswer {
			continue // counted among the failed requests
		}
		u, err := openSample(ctx, s, smp)
		if err != nil {
			return stale, empty, asked, buckets, err
		}
		var result json.RawMessage
		err = s.call(ctx, "textDocument/references", referencesParams(u, smp), &result)
		_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		if err != nil {
			continue
		}
		asked++
		k := int(t.refsSince[i] / (5 * time.Second))
		for len(buckets) <= k {
			buckets = append(buckets, staleBucket{})
		}
		buckets[k].asked++
		if after := locationsKey(result); after != during[i] {
			stale++
			buckets[k].stale++
			if during[i] == "" {
				empty++
				buckets[k].empty++
			}
		}
	}
	return stale, empty, asked, buckets, nil
}
