package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/storage"
)

// rgCase is one pattern of the regex table, with grep's flags.
type rgCase struct {
	pattern string
	flags   string // i, w
}

// rgCases vary in selectivity: literals, alternations, classes, anchors,
// -i, -w, Unicode classes and patterns with no literal at all.
var rgCases = []rgCase{
	{`ErrUnexpectedEOF`, ""},
	{`func \w+Reader\(`, ""},
	{`deadline exceeded`, "i"},
	{`sync\.Mutex`, ""},
	{`[A-Z][a-z]+Marshal`, ""},
	{`[0-9a-f]{40}`, ""},
	{`[A-Z]{20}`, ""},
	{`ErrShortWrite|ErrShortBuffer|ErrNoProgress`, ""},
	{`Reader`, "w"},
	{`^package main$`, ""},
	{`TODO\(\w+\)`, ""},
	{`\bgoto\b`, ""},
	{`\p{Greek}{3,}`, ""},
	{`content-type`, "i"},
	{`0x[0-9A-F]{8}\b`, ""},
	{`runtime\.GC\(\)`, ""},
	{`func \(\w+ \*\w+\) String\(\) string`, ""},
	{`\d{4}-\d{2}-\d{2}`, ""},
	{`https?://[^\s]+\.org`, ""},
	{`\S\s{8}\S`, ""},
	{`^\s*//\s*Deprecated:`, ""},
	{`fmt\.Errorf\("[^"]*%w`, ""},
	{`[[:upper:]]{3,}_[[:upper:]]{3,}`, ""},
	{`(?:panic|fatal)\(`, ""},
}

// TestRegexVsRipgrep indexes each tree of KAST_SEARCH_TREES (a comma list;
// GOROOT/src with KAST_SEARCH_STDLIB=1) and searches it warm, as a daemon's
// watched engine does, beside rg on the same files (.gitignore honoured
// in and out of git repositories, hidden files skipped): the file:line sets
// must be the same (differences are printed) and the times are reported.
// A measurement, not a timing assertion. KAST_SEARCH_INDEX_DIR keeps the
// indexes between runs; KAST_SEARCH_CPUPROFILE writes a profile of kast's
// searches.
func TestRegexVsRipgrep(t *testing.T) {
	trees := strings.FieldsFunc(os.Getenv("KAST_SEARCH_TREES"), func(r rune) bool { return r == ',' })
	if len(trees) == 0 && os.Getenv("KAST_SEARCH_STDLIB") != "" {
		trees = []string{filepath.Join(runtime.GOROOT(), "src")}
	}
	rg, err := exec.LookPath("rg")
	if len(trees) == 0 || err != nil {
		t.Skip("set KAST_SEARCH_TREES=dir,... or KAST_SEARCH_STDLIB=1, with rg installed")
	}
	for _, tree := range trees {
		t.Run(filepath.Base(tree), func(t *testing.T) { regexTable(t, rg, tree) })
	}
}

func regexTable(t *testing.T, rg, root string) {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Skipf("%s is not a folder", root)
	}
	ctx := context.Background()
	dir := t.TempDir()
	if d := os.Getenv("KAST_SEARCH_INDEX_DIR"); d != "" { // kept between runs
		dir = filepath.Join(d, filepath.Base(root))
	}
	ix, err := storage.Open(root, storage.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e, err := Open(root, ix, Options{Embedder: NewHashed(), Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rep, err := e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := e.Status()
	t.Logf("index of %s: %d files, %.1f MB source, %.1f MB index (%.2fx), built in %s, peak RSS of the test process %s",
		root, rep.Files, float64(st.SourceBytes)/1e6, float64(st.IndexBytes)/1e6,
		float64(st.IndexBytes)/float64(st.SourceBytes), rep.Duration.Round(time.Millisecond), peakRSS())
	sc := Scope{Filter: Filter{SkipHidden: true, Excludes: []string{}}}
	const runs = 5
	// Each side's median of wall time and of CPU time (user and system):
	// on a shared machine the CPU time is the steadier of the two.
	median := func(f func() time.Duration) (wall, cpu time.Duration) {
		var ws, cs []time.Duration
		for range runs {
			s := time.Now()
			cs = append(cs, f())
			ws = append(ws, time.Since(s))
		}
		slices.Sort(ws)
		slices.Sort(cs)
		return ws[runs/2], cs[runs/2]
	}
	var ratios, cpuRatios []float64
	t.Logf("%-40s %9s %9s %7s %9s %9s %7s  %s", "pattern", "rg ms", "kast ms", "ratio", "rg cpu", "kast cpu", "ratio", "same file:line set")
	only := os.Getenv("KAST_SEARCH_ONLY") // the patterns to run, separated by " ; "
	for _, c := range rgCases {
		if only != "" && !slices.Contains(strings.Split(only, " ; "), c.pattern) {
			continue
		}
		q := RegexQuery{Pattern: c.pattern, IgnoreCase: strings.Contains(c.flags, "i"), WholeWord: strings.Contains(c.flags, "w"), Scope: sc}
		var res *RegexResult
		search := func() {
			if _, err := e.Refresh(ctx, false, nil); err != nil { // what every caller does first
				t.Fatal(err)
			}
			if res, err = e.Regex(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		search() // warm: the first search adds the watches, the second is cached
		search()
		stopProfile := startProfile(t, c.pattern)
		kast, kastCPU := median(func() time.Duration {
			c := processCPU()
			search()
			return processCPU() - c
		})
		stopProfile()
		// The file:line keys compared are made outside the time taken, as
		// rg's output is parsed outside its.
		var got []string
		for _, l := range res.Lines {
			got = append(got, fmt.Sprintf("%s:%d", e.rel(l.Path), l.Line))
		}
		args := []string{"-n", "--null", "--no-heading", "--color", "never", "--no-require-git", "-H"}
		if q.IgnoreCase {
			args = append(args, "-i")
		}
		if q.WholeWord {
			args = append(args, "-w")
		}
		args = append(args, "-e", c.pattern, ".")
		var out []byte
		rgTime, rgCPU := median(func() time.Duration {
			cmd := exec.Command(rg, args...)
			cmd.Dir = root
			out, _ = cmd.Output()
			return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		})
		want := rgLines(out)
		same := slices.Equal(sorted(got), want)
		ratio, cpuRatio := float64(kast)/float64(rgTime), float64(kastCPU)/float64(rgCPU)
		ratios, cpuRatios = append(ratios, ratio), append(cpuRatios, cpuRatio)
		t.Logf("%-40s %9.1f %9.1f %7.2f %9.1f %9.1f %7.2f  %v (%d lines)", c.flags+" "+c.pattern,
			ms(rgTime), ms(kast), ratio, ms(rgCPU), ms(kastCPU), cpuRatio, same, len(want))
		if !same {
			t.Errorf("%s: kast and rg differ:\n%s", c.pattern, setDiff(sorted(got), want))
		}
	}
	if len(ratios) == 0 {
		return
	}
	sort.Float64s(ratios)
	sort.Float64s(cpuRatios)
	t.Logf("kast/rg time: median %.2f, worst %.2f; CPU time: median %.2f, worst %.2f (targets: 0.5 and 1.5)",
		ratios[len(ratios)/2], ratios[len(ratios)-1], cpuRatios[len(cpuRatios)/2], cpuRatios[len(cpuRatios)-1])
}

// startProfile profiles into KAST_SEARCH_CPUPROFILE-<n> when it is set.
func startProfile(t *testing.T, name string) func() {
	base := os.Getenv("KAST_SEARCH_CPUPROFILE")
	if base == "" {
		return func() {}
	}
	profiles++
	f, err := os.Create(fmt.Sprintf("%s-%02d", base, profiles))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "profile %02d: %s\n", profiles, name)
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

var profiles int

func rgLines(out []byte) []string {
	var lines []string
	for _, l := range bytes.Split(out, []byte("\n")) {
		path, rest, ok := bytes.Cut(l, []byte{0})
		if !ok {
			continue
		}
		n, _, _ := bytes.Cut(rest, []byte(":"))
		lines = append(lines, strings.TrimPrefix(string(path), "./")+":"+string(n))
	}
	return sorted(lines)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// setDiff prints at most 10 lines only one side has.
func setDiff(kast, rg []string) string {
	var b strings.Builder
	n := 0
	for _, l := range kast {
		if _, ok := slices.BinarySearch(rg, l); !ok && n < 10 {
			fmt.Fprintf(&b, "  only kast: %s\n", l)
			n++
		}
	}
	for _, l := range rg {
		if _, ok := slices.BinarySearch(kast, l); !ok && n < 20 {
			fmt.Fprintf(&b, "  only rg:   %s\n", l)
			n++
		}
	}
	return b.String()
}

// peakRSS is the process's high-water resident size (Linux), or "?".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
