// Command kastsoak keeps one `kast lsp --listen unix:PATH` process (the
// built binary) under a mixed load for a while and watches it.
//
// It copies part of the Go standard library to a temporary folder, starts
// an OpenAI-compatible chat endpoint on loopback for agent turns, starts the
// server with that endpoint as its provider, and connects clients (4 by
// default) that each loop over: LSP definition, references, hover,
// completion and workspace/symbol on open documents, didChange, Kast
// raw/references and raw/apply-edits on the same connection (one edit in
// ten with a stale hash), Kward agent turns that call a read-only tool, and
// requests cancelled with $/cancelRequest right after they are sent.
//
// Every interval (10 s) it prints the server's RSS (and its anonymous part:
// the rest is badger's memory-mapped files), goroutines, threads and
// open descriptors, the requests so far and their outcomes by error code.
// Goroutines come from the Go runtime's own scheduler dump
// (GODEBUG=schedtrace=1000,scheddetail=1 on the server, read from its
// stderr): the non-dead goroutines of the last dump. Threads are
// /proc/PID/status Threads, descriptors the entries of /proc/PID/fd.
//
// It exits 1 when the server dies, when a request or a turn gets no answer
// within -hang (60 s), or when memory grows without bound: RSS above
// -max-rss at any sample, or, over the samples after the warm-up (a fifth of
// the run, at least a minute, at most half), the median RSS of the last
// third more than 1.5 times that of the first third and 64 MiB above it.
// Descriptors and goroutines are held to the same test (1.5 times and 64
// above; twice and 200 above).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(run()) }

type config struct {
	kast     string
	duration time.Duration
	interval time.Duration
	hang     time.Duration
	clients  int
	files    int
	maxRSS   int64
	pause    time.Duration
	keep     bool
}

func run() int {
	var cfg config
	defaultDuration := 10 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("SOAK_DURATION")); err == nil {
		defaultDuration = d
	}
	var maxRSSMiB int64
	flag.StringVar(&cfg.kast, "kast", "bin/kast", "the kast binary")
	flag.DurationVar(&cfg.duration, "duration", defaultDuration, "how long to run (default $SOAK_DURATION, else 10m)")
	flag.DurationVar(&cfg.interval, "interval", 10*time.Second, "how often to print the figures")
	flag.DurationVar(&cfg.hang, "hang", 60*time.Second, "the longest a request or a turn may go unanswered")
	flag.IntVar(&cfg.clients, "clients", 4, "connections")
	flag.IntVar(&cfg.files, "files", 300, "Go files of the standard library to copy")
	flag.Int64Var(&maxRSSMiB, "max-rss", 1024, "the RSS no sample may exceed, in MiB")
	flag.DurationVar(&cfg.pause, "pause", 20*time.Millisecond, "each client's pause between operations")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary folder (the copy, the server's log)")
	flag.Parse()
	cfg.maxRSS = maxRSSMiB * mib
	if err := soak(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "kastsoak: FAIL:", err)
		return 1
	}
	fmt.Println("kastsoak: PASS")
	return 0
}

func soak(cfg config) (err error) {
	kast, err := filepath.Abs(cfg.kast)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kastsoak-")
	if err != nil {
		return err
	}
	defer func() {
		if cfg.keep || err != nil {
			fmt.Println("kastsoak: kept", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()
	root := filepath.Join(tmp, "src")
	files, err := copyStdlib(root, cfg.files)
	if err != nil {
		return fmt.Errorf("copying the standard library: %w", err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(root, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	m, err := startModel(rel)
	if err != nil {
		return err
	}
	defer m.close()

	socket := filepath.Join(tmp, "kast.sock")
	cmd := exec.Command(kast, "--log-level", "warn", "lsp", "--listen", "unix:"+socket)
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"),
		"KAST_PROVIDER=openai", "KAST_BASE_URL="+m.url, "OPENAI_API_KEY=test", "KAST_MODEL=soak-model",
		"GODEBUG=schedtrace=1000,scheddetail=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(tmp, "server.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	if err := cmd.Start(); err != nil {
		return err
	}
	sched := &schedWatcher{}
	go sched.run(stderr, logFile)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	fmt.Printf("kastsoak: kast pid %d on %s, %d files under %s, %d clients, model at %s, for %s\n",
		cmd.Process.Pid, socket, len(files), root, cfg.clients, m.url, cfg.duration)
	if err := waitSocket(socket, exited); err != nil {
		return err
	}

	st := newStats()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	workers := make([]*worker, cfg.clients)
	for i := range workers {
		c, err := dial(fmt.Sprintf("client%d", i+1), socket)
		if err != nil {
			return err
		}
		var own []string
		for j := i; j < len(files) && len(own) < 20; j += cfg.clients {
			own = append(own, files[j])
		}
		workers[i] = &worker{c: c, st: st, rnd: rand.New(rand.NewPCG(uint64(i), 42)), root: root, files: files, own: own,
			hang: cfg.hang, pause: cfg.pause, open: map[string]int{}}
		if err := workers[i].initialize(); err != nil {
			return err
		}
	}
	failed := make(chan error, len(workers))
	done := make(chan struct{}, len(workers))
	for _, w := range workers {
		go func() {
			if err := w.run(ctx); err != nil {
				failed <- err
			}
			done <- struct{}{}
		}()
	}

	start := time.Now()
	var samples []sample
	tick := time.NewTicker(cfg.interval)
	defer tick.Stop()
	watch := time.NewTicker(time.Second)
	defer watch.Stop()
	end := time.After(cfg.duration)
	lastTotal := 0
	var failure error
loop:
	for {
		select {
		case err := <-exited:
			stopped = true
			return fmt.Errorf("the server died after %s: %v", time.Since(start).Round(time.Second), err)
		case err := <-failed:
			failure = err
			break loop
		case <-watch.C:
			for _, w := range workers {
				if method, age := w.c.oldest(); age > cfg.hang {
					failure = fmt.Errorf("%s: %s unanswered for %s", w.c.name, method, age.Round(time.Second))
					break loop
				}
			}
		case <-tick.C:
			s, err := takeSample(cmd.Process.Pid, sched, time.Since(start))
			if err != nil {
				failure = err
				break loop
			}
			samples = append(samples, s)
			total, outcomes := st.totals()
			fmt.Printf("[%5s] rss %6.1f MiB (anon %6.1f)  goroutines %4d  threads %3d  fds %4d | requests %6d (+%d)  model calls %d | %s\n",
				s.at.Round(time.Second), float64(s.rss)/mib, float64(s.anon)/mib, s.goroutines, s.threads, s.fds, total, total-lastTotal,
				m.requests.Load(), formatCounts(outcomes))
			lastTotal = total
			if s.rss > cfg.maxRSS {
				failure = fmt.Errorf("RSS %.1f MiB is over -max-rss %d MiB", float64(s.rss)/mib, cfg.maxRSS/mib)
				break loop
			}
		case <-end:
			break loop
		}
	}
	cancel()
	for range workers {
		select {
		case <-done:
		case <-time.After(cfg.hang + 10*time.Second):
			if failure == nil {
				failure = errors.New("a client did not stop")
			}
		}
	}
	for _, w := range workers {
		w.shutdown()
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		if failure == nil {
			failure = errors.New("the server did not stop within 15s of SIGTERM")
		}
	}
	stopped = true

	fmt.Printf("kastsoak: %s, %d samples; by request:\n", time.Since(start).Round(time.Second), len(samples))
	st.table(os.Stdout)
	fmt.Printf("  server log lines (warn and above): %d\n", sched.logLines.Load())
	if failure != nil {
		return failure
	}
	return judge(samples, cfg.duration)
}

// waitSocket waits until the server accepts connections.
func waitSocket(socket string, exited <-chan error) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("the server exited at start: %v", err)
		default:
		}
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the server did not listen within 60s")
}

func takeSample(pid int, sched *schedWatcher, at time.Duration) (sample, error) {
	rss, anon, threads, fds, err := readProc(pid)
	if err != nil {
		return sample{}, fmt.Errorf("reading /proc/%d: %w", pid, err)
	}
	return sample{at: at, rss: rss, anon: anon, threads: threads, fds: fds, goroutines: int(sched.goroutines.Load())}, nil
}

// judge applies the growth criterion (see the package comment) to the
// samples after the warm-up.
func judge(samples []sample, duration time.Duration) error {
	warmup := min(max(duration/5, time.Minute), duration/2)
	var rss, anon, fds, gs []float64
	for _, s := range samples {
		if s.at >= warmup {
			rss, fds = append(rss, float64(s.rss)), append(fds, float64(s.fds))
			anon = append(anon, float64(s.anon))
			if s.goroutines >= 0 {
				gs = append(gs, float64(s.goroutines))
			}
		}
	}
	var problems []string
	if first, last, ok := growth(rss); ok {
		fmt.Printf("  RSS after warm-up (%s): first third %.1f MiB, last third %.1f MiB\n", warmup, first/mib, last/mib)
		if last > 1.5*first && last-first > 64*mib {
			problems = append(problems, fmt.Sprintf("RSS grew from %.1f to %.1f MiB", first/mib, last/mib))
		}
	} else {
		fmt.Printf("  too few samples after the warm-up (%s) to judge growth\n", warmup)
	}
	if first, last, ok := growth(anon); ok {
		fmt.Printf("  of which anonymous (heap, stacks): first third %.1f MiB, last third %.1f MiB\n", first/mib, last/mib)
		if last > 1.5*first && last-first > 64*mib {
			problems = append(problems, fmt.Sprintf("anonymous memory grew from %.1f to %.1f MiB", first/mib, last/mib))
		}
	}
	if first, last, ok := growth(fds); ok {
		fmt.Printf("  descriptors: first third %.0f, last third %.0f\n", first, last)
		if last > 1.5*first && last-first > 64 {
			problems = append(problems, fmt.Sprintf("descriptors grew from %.0f to %.0f", first, last))
		}
	}
	if first, last, ok := growth(gs); ok {
		fmt.Printf("  goroutines: first third %.0f, last third %.0f\n", first, last)
		if last > 2*first && last-first > 200 {
			problems = append(problems, fmt.Sprintf("goroutines grew from %.0f to %.0f", first, last))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// stdlibPackages are copied in this order until there are enough files:
// code with many cross-references, tests included.
var stdlibPackages = []string{
	"bufio", "bytes", "strings", "io", "errors", "sort", "strconv", "unicode/utf8", "fmt", "io/fs", "path",
	"path/filepath", "encoding/json", "encoding/base64", "net/url", "text/template", "text/template/parse",
	"go/token", "go/ast", "go/scanner", "go/parser", "go/printer", "go/format", "container/list", "container/heap",
	"flag", "html/template", "regexp", "regexp/syntax", "compress/flate", "archive/tar", "archive/zip",
}

// copyStdlib copies up to n Go files of stdlibPackages into root and
// returns their paths.
func copyStdlib(root string, n int) ([]string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	var files []string
	for _, pkg := range stdlibPackages {
		entries, err := os.ReadDir(filepath.Join(src, filepath.FromSlash(pkg)))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if len(files) >= n {
				return files, nil
			}
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			dst := filepath.Join(root, filepath.FromSlash(pkg), e.Name())
			if err := copyFile(filepath.Join(src, filepath.FromSlash(pkg), e.Name()), dst); err != nil {
				return nil, err
			}
			files = append(files, dst)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files under %s", src)
	}
	return files, nil
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(0o644))
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
