package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis/benchpos"
)

// The scale table: workspaces of real Go code of growing size, assembled
// from the Go standard library and the module cache (no generated
// stand-ins), each indexed cold with every reference resolved, then
// started again on its index. How time, throughput, memory and the index
// grow from one size to the next is the point; each workspace holds the
// packages of the one before it.

// scalePackage is a folder of Go files to copy: its source and its place in
// the assembled workspaces.
type scalePackage struct {
	src, dest string
	files     []string // base names of its .go files
	lines     int64
	bytes     int64
}

// scaleRow is one workspace's measurements.
type scaleRow struct {
	lines, bytes int64
	files        int
	cold         coldResult
	// cpu is the server's CPU time over the cold run: on a shared
	// machine it tells what wall times cannot.
	cpu            time.Duration
	indexBytes     int64
	warm           time.Duration // start to the first workspace/symbol answer on the kept index
	warmErr        error
	assembleErrors int
}

func runScale(kast, sizes, scratch string, n int) error {
	var targets []int64
	for _, f := range strings.Split(sizes, ",") {
		m, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || m <= 0 {
			return fmt.Errorf("-scale %q: want millions of lines, comma-separated", sizes)
		}
		targets = append(targets, int64(m*1e6))
	}
	slices.Sort(targets)
	pkgs, err := scaleSources()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	fmt.Printf("Scale: real Go code from GOROOT/src and the module cache, assembled under %s; %d cores\n", scratch, runtime.GOMAXPROCS(0))
	fmt.Printf("%9s %7s %8s %10s %12s %10s %8s %9s %10s %8s %8s %12s %12s\n", "lines", "files", "src MB", "ready", "index+refs", "kast CPU", "MB/s",
		"peak RSS", "index MB", "idx/src", "warm", "def p95 ms", "refs p95 ms")
	ctx := context.Background()
	for _, target := range targets {
		label := strconv.FormatFloat(float64(target)/1e6, 'f', -1, 64) + "M"
		root := filepath.Join(scratch, "ws-"+label)
		row, err := assembleScale(root, pkgs, target)
		if err != nil {
			return err
		}
		row.measure(ctx, kast, root, filepath.Join(scratch, "cache-"+label), n)
		row.print()
	}
	return nil
}

// scaleSources lists the packages to copy, in a fixed order: the standard
// library, then the module cache's modules by path, one version of each
// (the newest by name), without test data or vendored copies.
func scaleSources() ([]*scalePackage, error) {
	goroot := runtime.GOROOT()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	modcache := strings.TrimSpace(string(out))
	pkgs, err := goPackages(filepath.Join(goroot, "src"), "std")
	if err != nil {
		return nil, err
	}
	mods, err := newestModules(modcache)
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		rel, _ := filepath.Rel(modcache, m)
		more, err := goPackages(m, filepath.Join("mod", rel))
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, more...)
	}
	return pkgs, nil
}

// newestModules lists one folder per module in the module cache: the
// greatest version by name among module@version folders of the same path.
func newestModules(modcache string) ([]string, error) {
	newest := map[string]string{}
	err := filepath.WalkDir(modcache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p == filepath.Join(modcache, "cache") {
			return filepath.SkipDir
		}
		mod, version, ok := strings.Cut(p, "@")
		if !ok {
			return nil
		}
		if cur, seen := newest[mod]; !seen || version > strings.SplitN(cur, "@", 2)[1] {
			newest[mod] = p
		}
		return filepath.SkipDir
	})
	var out []string
	for _, p := range newest {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, err
}

// goPackages lists the folders under root holding .go files, with their
// sizes, to be placed under dest.
func goPackages(root, dest string) ([]*scalePackage, error) {
	var out []*scalePackage
	byDir := map[string]*scalePackage{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		dir := filepath.Dir(p)
		pkg := byDir[dir]
		if pkg == nil {
			rel, _ := filepath.Rel(root, dir)
			pkg = &scalePackage{src: dir, dest: filepath.Join(dest, rel)}
			byDir[dir] = pkg
			out = append(out, pkg)
		}
		pkg.files = append(pkg.files, filepath.Base(p))
		pkg.lines += int64(bytes.Count(b, []byte{'\n'}))
		pkg.bytes += int64(len(b))
		return nil
	})
	return out, err
}

// assembleScale fills root with the first packages that make target lines,
// hard-linking files where it can (copying otherwise). A root already
// assembled from the same list is reused as it is.
func assembleScale(root string, pkgs []*scalePackage, target int64) (*scaleRow, error) {
	row := &scaleRow{}
	for _, pkg := range pkgs {
		if row.lines >= target {
			break
		}
		dir := filepath.Join(root, pkg.dest)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for _, name := range pkg.files {
			to := filepath.Join(dir, name)
			if _, err := os.Lstat(to); err == nil {
				continue
			}
			from := filepath.Join(pkg.src, name)
			if os.Link(from, to) != nil && copyFile(from, to) != nil {
				row.assembleErrors++
			}
		}
		row.lines += pkg.lines
		row.bytes += pkg.bytes
		row.files += len(pkg.files)
	}
	if row.lines < target {
		fmt.Printf("(only %d lines of Go found for a %d-line workspace)\n", row.lines, target)
	}
	return row, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// measure indexes root cold with references (queried from the first ready
// answer, as -cold does), reads the index's size, and starts the server
// again on that index.
func (row *scaleRow) measure(ctx context.Context, kast, root, cacheHome string, n int) {
	os.RemoveAll(cacheHome)
	defer os.RemoveAll(cacheHome)
	paths, _, err := treeFiles(root)
	if err != nil {
		row.cold.err = err
		return
	}
	samples, err := benchpos.Go(ctx, paths, n)
	if err != nil {
		row.cold.err = err
		return
	}
	cpu0 := childrenCPU()
	row.cold = coldRunCached(ctx, "kast", root, []string{kast, "lsp", "--stdio"}, samples, cacheHome)
	row.cpu = childrenCPU() - cpu0
	row.indexBytes = dirSize(filepath.Join(cacheHome, "kast"))
	if row.cold.err != nil {
		return
	}
	start := time.Now()
	env := append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	s, err := startServer(ctx, "kast", root, env, kast, "lsp", "--stdio")
	if err != nil {
		row.warmErr = err
		return
	}
	defer s.close()
	if row.warmErr = waitSymbols(ctx, s, samples); row.warmErr == nil {
		row.warm = time.Since(start)
	}
}

// dirSize is the disk space the files under root take: allocated blocks
// where the system says, since badger preallocates its value log sparsely.
func dirSize(root string) int64 {
	var total int64
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += allocated(info)
			}
		}
		return nil
	})
	return total
}

func (row *scaleRow) print() {
	r := row.cold
	ms := func(method string) string {
		d := r.timings.byMethod[method]
		if len(d) == 0 {
			return "-"
		}
		return strconv.FormatFloat(float64(percentile(d, .95))/1e6, 'f', 1, 64)
	}
	dur := func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.Round(100 * time.Millisecond).String()
	}
	rate := "-"
	if r.settled > 0 {
		rate = strconv.FormatFloat(float64(row.bytes)/1e6/r.settled.Seconds(), 'f', 2, 64)
	}
	ratio := "-"
	if row.bytes > 0 {
		ratio = strconv.FormatFloat(float64(row.indexBytes)/float64(row.bytes), 'f', 2, 64)
	}
	fmt.Printf("%9d %7d %8.1f %10s %12s %10s %8s %6d MB %10.1f %8s %8s %12s %12s\n", row.lines, row.files, float64(row.bytes)/1e6,
		dur(r.ready), dur(r.settled), dur(row.cpu), rate, r.peakRSS/1024, float64(row.indexBytes)/1e6, ratio, dur(row.warm),
		ms("textDocument/definition"), ms("textDocument/references"))
	if r.err != nil {
		fmt.Printf("  run ended early: %v\n", r.err)
	}
	if row.warmErr != nil {
		fmt.Printf("  warm start failed: %v\n", row.warmErr)
	}
	if row.assembleErrors > 0 {
		fmt.Printf("  %d files could not be linked or copied\n", row.assembleErrors)
	}
	if os.Getenv("KASTBENCH_EXPLAIN") != "" {
		// The positions that set the p95 columns, and completion's beside.
		for _, m := range []string{"textDocument/definition", "textDocument/references", "textDocument/completion"} {
			d := r.timings.byMethod[m]
			fmt.Printf("  %s p50/p95/p99 ms: %.1f / %.1f / %.1f\n", strings.TrimPrefix(m, "textDocument/"),
				float64(percentile(d, .5))/1e6, float64(percentile(d, .95))/1e6, float64(percentile(d, .99))/1e6)
			printSlowestOf("kast", m, r.timings.slowest, 12)
		}
	}
}
