// Command kastbench measures kast's indexing on a source tree (by default the
// Go standard library, which every machine with Go has) beside two reference
// points run on the same files in the same run: a pure parse through
// go-tree-sitter (the floor: the parse alone, as a Go program using the
// binding pays for it; kast's own parse skips the binding's copy of each
// source and is about 5% cheaper) and universal-ctags.
//
//	kastbench -kast bin/kast [-root DIR] [-rounds 3]
//
// It prints wall and CPU time for each; CPU time moves much less than wall
// time when other work shares the machine. The floor and the cold index run
// in alternation, -rounds times; the round with the median ratio is
// reported with the floor measured just before it, and the fastest of each
// beside one another. To see where a cold index spends
// its time, -cpuprofile indexes the tree in this process under the profiler
// instead (inspect the file with go tool pprof):
//
//	kastbench -cpuprofile cpu.prof [-memprofile mem.prof] [-trace trace.out] [-root DIR]
//
// With -pass it profiles the reference pass instead, after an unprofiled
// index (-indexdir keeps the index for the next run, -passfiles stops the
// pass early), and prints its CPU, wall time and peak RSS:
//
//	kastbench -cpuprofile pass.prof -pass [-workers N] [-passfiles N] [-indexdir DIR] [-root DIR]
//
// With -lsp it instead compares language-server request latencies of kast
// and gopls on the same sampled positions, and how often their first
// definitions agree:
//
//	kastbench -lsp -kast bin/kast -gopls bin/gopls [-samples 1000]
//
// With -cold it measures a first open instead (cold.go): both servers on
// empty caches, queried from their first workspace/symbol answer on, with
// resident memory sampled every 100 ms until kast's background work ends:
//
//	kastbench -cold -kast bin/kast -gopls bin/gopls [-samples 300]
//
// With -coldat it follows a few positions' reference answers through a
// cold start instead, every 5 s until the background work ends (coldat.go):
//
//	kastbench -coldat cmd/internal/obj/ld.go:83:12,sort/sort.go:14:2 -kast bin/kast
//
// With -coldrefs it times, in its own process, the sampled positions'
// reference queries before the reference pass, each on a fresh session,
// optionally profiled and checked against the warm answers (coldrefs.go):
//
//	kastbench -coldrefs [-samples 300] [-onesession] [-indexdir DIR] [-cpuprofile FILE] [-check] [-slowest N]
//
// With -accuracy python|typescript it scores definitions and member
// completions against pyright or typescript-language-server (refaccuracy.go):
//
//	kastbench -accuracy python -kast bin/kast -refserver PATH -root DIR[,DIR...] [-samples 1000]
//
// With -retrieval it scores code search's ranked modes on finding
// documented functions by their doc's first sentence (retrieval.go):
//
//	kastbench -retrieval -lang go|python -root DIR[,DIR...] [-queries 400]
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/scan"
)

func main() {
	kast := flag.String("kast", "bin/kast", "the kast binary to measure")
	root := flag.String("root", filepath.Join(runtime.GOROOT(), "src"), "the tree to index")
	lsp := flag.Bool("lsp", false, "compare LSP request latencies with gopls instead of indexing")
	gopls := flag.String("gopls", "", "the gopls binary for -lsp")
	samples := flag.Int("samples", 1000, "positions to sample for -lsp and -kastapi")
	cold := flag.Bool("cold", false, "measure the cold start beside gopls instead: empty caches, queries from the first ready answer, RSS every 100 ms")
	flag.BoolVar(&refsInFlight, "asyncrefs", false, "with -cold and -scale, send each reference query without waiting for its answer (an editor's user goes on meanwhile), so that the other requests are measured while kast's reference queries wait for the first index")
	kastAPI := flag.Bool("kastapi", false, "measure raw/references in the kast serve daemon and through kast rpc instead of indexing")
	cpuProfile := flag.String("cpuprofile", "", "index the tree cold in this process and write a CPU profile of it to `file` instead of benchmarking")
	memProfile := flag.String("memprofile", "", "with -cpuprofile, also write an allocation profile to `file`")
	traceFile := flag.String("trace", "", "with -cpuprofile, also write an execution trace of the index to `file`")
	profilePass := flag.Bool("pass", false, "with -cpuprofile, profile the reference pass (every reference resolved and stored) after an unprofiled index instead of the index")
	passWorkers := flag.Int("workers", 0, "with -pass, the pass's workers (0: the pass's default)")
	passFiles := flag.Int("passfiles", 0, "with -pass, stop the pass after this many files (0: all)")
	indexDir := flag.String("indexdir", "", "with -pass, keep the index in this folder and reuse it on the next run (default: a fresh temporary one)")
	rounds := flag.Int("rounds", 3, "alternate this many floor and cold-index runs and report the round with the median ratio")
	floorOnly := flag.Bool("floor", false, "only parse the tree (the floor); kastbench runs itself so to measure it")
	accuracy := flag.String("accuracy", "", "score resolution for a `language` on -root: go against -gopls, kotlin against a compiler oracle, (comma-separated) instead of indexing")
	oracle := flag.String("oracle", "", "with -accuracy, the oracle outputs, one per root, comma-separated")
	refSamples := flag.Int("refsamples", 500, "with -accuracy, declarations whose references are compared")
	semanticFP := flag.Bool("semantic", false, "count kast's own semantic diagnostics on each of -root (comma-separated; compiling projects should get none) instead of indexing")
	refServer := flag.String("refserver", "", "with -accuracy python|typescript, the reference server: pyright-langserver or typescript-language-server (make refservers)")
	retrieval := flag.Bool("retrieval", false, "score code search's retrieval of documented functions by their doc's first sentence (-lang, -root, -queries) instead of indexing")
	retrievalLang := flag.String("lang", "go", "with -retrieval, the corpus language: go or python")
	retrievalQueries := flag.Int("queries", 400, "with -retrieval, at most this many queries (an even sample)")
	coldAt := flag.String("coldat", "", "instead of indexing, follow the references of these `positions` (path:line:col under -root, comma-separated) through a cold start until the background work ends")
	scale := flag.String("scale", "", "instead of indexing, assemble workspaces of real Go code of these sizes in millions of lines (comma-separated: 1,3,10) under -scratch and index each cold with references")
	scratch := flag.String("scratch", filepath.Join(os.TempDir(), "kast-scale"), "with -scale, where the workspaces and their indexes are made")
	coldRefs := flag.Bool("coldrefs", false, "instead of indexing, time in this process each sampled position's references before the reference pass (fresh sessions; -indexdir, -cpuprofile, -positions, -check apply)")
	coldCompletion := flag.Bool("coldcompletion", false, "instead of indexing, time in this process each sampled position's completion before the reference pass, as -coldrefs does references (-indexdir, -cpuprofile, -positions apply)")
	positions := flag.String("positions", "", "with -coldrefs or -coldcompletion, these `positions` (path:line:col under -root, comma-separated) instead of -samples")
	oneSession := flag.Bool("onesession", false, "with -coldrefs, ask every position of one session (as an editor's connection does) instead of a fresh one each")
	checkWarm := flag.Bool("check", false, "with -coldrefs, then run the pass and compare every answer with the warm one")
	slowest := flag.Int("slowest", 20, "with -coldrefs, list this many of the slowest queries")
	flag.Parse()
	var err error
	if *coldRefs {
		err = runColdRefs(*root, *indexDir, *cpuProfile, *samples, *positions, *oneSession, *checkWarm, *slowest)
	} else if *coldCompletion {
		err = runColdCompletion(*root, *indexDir, *cpuProfile, *samples, *positions)
	} else if *coldAt != "" {
		err = runColdAt(*kast, *root, *coldAt, 5*time.Second)
	} else if *scale != "" {
		err = runScale(*kast, *scale, *scratch, *samples)
	} else if *retrieval {
		err = runRetrieval(*retrievalLang, *root, *retrievalQueries)
	} else if *semanticFP {
		err = runSemantic(*root)
	} else if *accuracy == "go" {
		err = runGoAccuracy(*kast, *gopls, *root, *samples)
	} else if *accuracy == "jdk" || *accuracy == "kotlin-lib" {
		err = runJDKAccuracy(*accuracy, *kast, *root, *oracle, *samples)
	} else if *accuracy == "python" || *accuracy == "typescript" {
		err = runRefAccuracy(*accuracy, *kast, *refServer, *root, *samples)
	} else if *accuracy != "" {
		err = runAccuracy(*accuracy, *root, *oracle, *samples, *refSamples)
	} else if *floorOnly {
		err = runFloor(*root)
	} else if *cpuProfile != "" {
		if *profilePass {
			err = profilePassRun(*root, *cpuProfile, *memProfile, *indexDir, *passWorkers, *passFiles)
		} else {
			err = profileIndex(*root, *cpuProfile, *memProfile, *traceFile)
		}
	} else if *cold {
		err = runCold(*kast, *gopls, *root, *samples)
	} else if *kastAPI {
		err = runKastAPI(*kast, *root, *samples)
	} else if *lsp {
		err = runLSPMode(*kast, *gopls, *root, *samples)
	} else {
		err = run(*kast, *root, max(*rounds, 1))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kastbench:", err)
		os.Exit(1)
	}
}

func runLSPMode(kast, gopls, root string, n int) error {
	paths, _, err := treeFiles(root)
	if err != nil {
		return err
	}
	return runLSP(kast, gopls, root, paths, n)
}

// treeFiles lists the files under root that kast indexes, and their size.
func treeFiles(root string) (paths []string, total int64, err error) {
	found, err := scan.Walk(context.Background(), root, scan.Options{Include: workspace.Supported})
	if err != nil {
		return nil, 0, err
	}
	paths = make([]string, len(found.Files))
	for i, f := range found.Files {
		paths[i] = f.Path
		total += f.Size
	}
	return paths, total, nil
}

type row struct {
	name    string
	elapsed time.Duration
	cpu     time.Duration // user + system time; 0 when not measured
	bytes   int64
	rssKB   int64 // 0 when not measured
	note    string
}

func run(kast, root string, rounds int) error {
	paths, total, err := treeFiles(root)
	if err != nil {
		return err
	}
	fmt.Printf("tree %s: %d files kast indexes, %.1f MB, %d cores\n\n", root, len(paths), float64(total)/1e6, runtime.GOMAXPROCS(0))

	// The floor and the cold index alternate, each pair run back to back:
	// a shared machine's speed drifts by 20% and more over minutes, so a
	// ratio is only meaningful between runs made at about the same time.
	// The floor runs in a child process too, measured the same way.
	var floors, colds []row
	var cache string
	for round := range rounds {
		f, err := floorChild(root)
		if err != nil {
			return err
		}
		f.bytes = total
		if cache != "" {
			os.RemoveAll(cache)
		}
		if cache, err = os.MkdirTemp("", "kastbench-cache-"); err != nil {
			return err
		}
		c, err := kastIndex(kast, root, cache)
		if err != nil {
			os.RemoveAll(cache)
			return err
		}
		fmt.Printf("round %d: floor %s / %s CPU, kast cold %s / %s CPU: %.2fx wall, %.2fx CPU\n", round+1,
			f.elapsed.Round(time.Millisecond), f.cpu.Round(time.Millisecond), c.elapsed.Round(time.Millisecond),
			c.cpu.Round(time.Millisecond), ratio(c.elapsed, f.elapsed), ratio(c.cpu, f.cpu))
		floors, colds = append(floors, f), append(colds, c)
	}
	defer os.RemoveAll(cache)
	warm, err := kastIndex(kast, root, cache)
	if err != nil {
		return err
	}
	// The round with the median ratio, with its own floor.
	order := make([]int, rounds)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Compare(ratio(colds[a].elapsed, floors[a].elapsed), ratio(colds[b].elapsed, floors[b].elapsed))
	})
	mid := order[rounds/2]
	floor, cold := floors[mid], colds[mid]
	floor.name, cold.name, warm.name = "tree-sitter parse (floor)", "kast index (cold)", "kast index (warm)"
	rows := []row{floor, cold, warm}
	if r, err := ctags(paths, total); err != nil {
		rows = append(rows, row{name: "universal-ctags", note: "not run: " + err.Error()})
	} else {
		rows = append(rows, r)
	}

	// CPU time is printed beside wall time because it is much less sensitive
	// to other load on a shared machine.
	fmt.Printf("\nmedian round (%d of %d):\n", mid+1, rounds)
	fmt.Printf("%-28s %10s %10s %9s %12s\n", "", "time", "CPU", "MB/s", "peak RSS")
	for _, r := range rows {
		if r.note != "" {
			fmt.Printf("%-28s %s\n", r.name, r.note)
			continue
		}
		rss, cpu := "-", "-"
		if r.rssKB > 0 {
			rss = fmt.Sprintf("%d MB", r.rssKB/1024)
		}
		if r.cpu > 0 {
			cpu = r.cpu.Round(time.Millisecond).String()
		}
		fmt.Printf("%-28s %10s %10s %9.1f %12s\n", r.name, r.elapsed.Round(time.Millisecond), cpu, float64(r.bytes)/1e6/r.elapsed.Seconds(), rss)
	}
	fmt.Printf("\ncold index / parse floor: %.2fx wall, %.2fx CPU (median round)\n", ratio(cold.elapsed, floor.elapsed), ratio(cold.cpu, floor.cpu))
	fastest := func(rs []row) row {
		return slices.MinFunc(rs, func(a, b row) int { return cmp.Compare(a.elapsed, b.elapsed) })
	}
	ff, fc := fastest(floors), fastest(colds)
	fmt.Printf("fastest cold index / fastest floor: %s / %s = %.2fx wall, %.2fx CPU\n",
		fc.elapsed.Round(time.Millisecond), ff.elapsed.Round(time.Millisecond), ratio(fc.elapsed, ff.elapsed), ratio(fc.cpu, ff.cpu))

	one, err := reindexOne(cache, root, paths)
	if err != nil {
		return err
	}
	fmt.Printf("reindex after editing one file: %s (median of %d edits)\n", one.Round(time.Microsecond), reindexRuns)
	return nil
}

func ratio(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }

// floorChild runs the floor in a child process (this program with -floor)
// and measures it as kastIndex measures kast.
func floorChild(root string) (row, error) {
	self, err := os.Executable()
	if err != nil {
		return row{}, err
	}
	cmd := exec.Command(self, "-floor", "-root", root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return row{}, fmt.Errorf("floor: %v\n%s", err, stderr.String())
	}
	return row{elapsed: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

// runFloor is the child side of floorChild: it parses every file on all
// cores and drops the trees, the cost of tree-sitter alone, without
// extraction or storage.
func runFloor(root string) error {
	paths, _, err := treeFiles(root)
	if err != nil {
		return err
	}
	jobs := make(chan string)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			failed := false
			for p := range jobs { // drained to the end, so the sender never blocks
				if failed {
					continue
				}
				src, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				l, _ := lang.ForPath(p)
				if err := l.Syntax.ParseOnly(context.Background(), src); err != nil {
					errs <- fmt.Errorf("%s: %w", p, err)
					failed = true
				}
			}
		})
	}
	for _, p := range paths {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// kastIndex runs `kast index --json` with its own cache and measures it.
func kastIndex(kast, root, cache string) (row, error) {
	cmd := exec.Command(kast, "index", "--json", root)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return row{}, fmt.Errorf("%s index: %v\n%s", kast, err, stderr.String())
	}
	elapsed := time.Since(start)
	var rep struct {
		Files  int   `json:"files"`
		Bytes  int64 `json:"bytes"`
		Parsed int   `json:"parsed"`
		Defs   int   `json:"definitions"`
		Refs   int   `json:"references"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return row{}, fmt.Errorf("kast index --json: %v", err)
	}
	fmt.Printf("kast index: %d files (%d parsed), %d definitions, %d references\n", rep.Files, rep.Parsed, rep.Defs, rep.Refs)
	return row{elapsed: elapsed, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), bytes: rep.Bytes, rssKB: maxRSS(cmd)}, nil
}

// ctags indexes the same files with universal-ctags, when it is installed.
func ctags(paths []string, total int64) (row, error) {
	bin, err := exec.LookPath("ctags")
	if err != nil {
		return row{}, fmt.Errorf("ctags is not installed (apt-get install universal-ctags)")
	}
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.Contains(string(out), "Universal") {
		return row{}, fmt.Errorf("%s is not universal-ctags", bin)
	}
	cmd := exec.Command(bin, "-L", "-", "-f", os.DevNull)
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n"))
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return row{}, fmt.Errorf("ctags: %v: %s", err, out)
	}
	return row{name: "universal-ctags", elapsed: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), bytes: total, rssKB: maxRSS(cmd)}, nil
}

// selfCPU is the user and system time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func maxRSS(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// reindexRuns is how many edits reindexOne times: one run on a shared
// machine is mostly noise.
const reindexRuns = 5

// reindexOne times extracting and storing one edited file in the warm index,
// the work behind a save in the editor, and returns the median over
// reindexRuns different edits; then it restores the original.
func reindexOne(cache, root string, paths []string) (time.Duration, error) {
	// Built from the same tree, this program opens the index under the
	// same build version as the kast binary that wrote it.
	os.Setenv("XDG_CACHE_HOME", cache)
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	path := paths[len(paths)/2]
	for _, p := range paths {
		if strings.HasSuffix(p, filepath.Join("net", "http", "server.go")) {
			path = p
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	times := make([]time.Duration, reindexRuns)
	for i := range times {
		edited := fmt.Appendf(append([]byte(nil), src...), "\n// edited %d\nfunc editedByBenchmark%d() {}\n", i, i)
		start := time.Now()
		if err := ws.Reindex(context.Background(), path, edited, time.Now()); err != nil {
			return 0, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[len(times)/2], ws.Reindex(context.Background(), path, src, time.Now())
}

// peakRSSSelf is this process's peak resident set in KB since the last
// resetPeakRSS (or its start).
func peakRSSSelf() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					return kb
				}
			}
		}
	}
	return ru.Maxrss
}

// resetPeakRSS starts peakRSSSelf afresh where the system allows (Linux).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
