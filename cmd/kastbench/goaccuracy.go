package main

// Definition accuracy for Go against gopls: -accuracy go runs kast lsp and
// gopls on each root (a module whose dependencies are in the module cache)
// at the same sampled positions and scores kast's first definition against
// gopls's, split by where gopls's target lies: in the workspace, or in a
// library (the standard library or the module cache). kast gets a fresh
// cache, so the standard library's index build time is measured too.
//
//	kastbench -accuracy go -kast bin/kast -gopls bin/gopls -root P1,P2 [-samples 1000]
//
// Member completions (after x.) are compared with gopls's top five, as
// -accuracy python and typescript compare them with their reference servers.

import (
	"context"
	"encoding/json"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/benchpos"
)

// goLang is Go as the reference-server comparisons see it.
var goLang = refLang{exts: []string{".go"}, languageID: func(string) string { return "go" }, server: "gopls"}

// goTally counts one split of the positions.
type goTally struct {
	positions int // gopls answered
	hit       int // kast's first definition is gopls's
	answered  int // kast answered at all
}

func runGoAccuracy(kast, gopls, roots string, n int) error {
	if gopls == "" {
		return fmt.Errorf("-accuracy go needs -gopls")
	}
	fmt.Printf("%-12s %-10s %6s %7s %9s %10s\n", "project", "target", "refs", "hit@1", "coverage", "falseAns")
	for _, root := range strings.Split(roots, ",") {
		if err := goAccuracy(kast, gopls, root, n); err != nil {
			return err
		}
	}
	return nil
}

func goAccuracy(kast, gopls, root string, n int) error {
	ctx := context.Background()
	root, _ = filepath.Abs(root)
	paths, _, err := treeFiles(root)
	if err != nil {
		return err
	}
	samples, err := benchpos.Go(ctx, paths, n)
	if err != nil {
		return err
	}
	memberSamples, err := benchpos.Members(ctx, paths, max(n/4, 1), goLang.exts)
	if err != nil {
		return err
	}
	k, libs, cleanup, err := startKastWithLibraries(ctx, root, kast)
	if err != nil {
		return err
	}
	defer cleanup()
	kastDefs := definitions(ctx, k, samples)
	kastItems := completions(ctx, k, goLang, memberSamples)
	rss := rssKB(k.cmd.Process.Pid)
	k.close()
	g, err := startServer(ctx, "gopls", root, nil, gopls)
	if err != nil {
		return err
	}
	if err := waitReady(ctx, g, samples); err != nil {
		g.close()
		return err
	}
	goplsDefs := definitions(ctx, g, samples)
	goplsItems := completions(ctx, g, goLang, memberSamples)
	g.close()

	var ws, lib goTally
	falseAns, silent, unbuilt := 0, 0, 0
	rootURI := unescapeURI(string(uri.File(root))) + "/"
	for i := range samples {
		want, got := goplsDefs[i], kastDefs[i]
		if want == "" && !inDefaultBuild(samples[i].Path) {
			// gopls answers nothing in a file its build leaves out
			// (jsoniter.go under //go:build jsoniter); kast still
			// resolves there, against the files that build with it.
			unbuilt++
			continue
		}
		if want == "" {
			silent++
			if got != "" {
				falseAns++
				if os.Getenv("KASTBENCH_EXPLAIN") != "" {
					fmt.Printf("  false %s: kast %q, gopls nothing\n", samples[i], got)
				}
			}
			continue
		}
		t := &lib
		if strings.HasPrefix(want, rootURI) {
			t = &ws
		}
		t.positions++
		if got != "" {
			t.answered++
		}
		if got == want {
			t.hit++
		} else if os.Getenv("KASTBENCH_EXPLAIN") != "" {
			fmt.Printf("  miss %s: kast %q gopls %q\n", samples[i], got, want)
		}
	}
	name := filepath.Base(root)
	all := goTally{ws.positions + lib.positions, ws.hit + lib.hit, ws.answered + lib.answered}
	for _, row := range []struct {
		split string
		t     goTally
	}{{"workspace", ws}, {"library", lib}, {"all", all}} {
		fmt.Printf("%-12s %-10s %6d %6.1f%% %8.1f%% %10s\n", name, row.split, row.t.positions,
			pct(row.t.hit, row.t.positions), pct(row.t.answered, row.t.positions), "")
	}
	fmt.Printf("%-12s %-10s %6d %7s %9s %9.1f%%\n", name, "no-target", silent, "", "", pct(falseAns, silent))
	if unbuilt > 0 {
		fmt.Printf("%-12s %d positions in files outside the default build (gopls loads none of them) not scored\n", name, unbuilt)
	}
	printMemberAgreement(name, goLang.server, memberSamples, kastItems, goplsItems, os.Getenv("KASTBENCH_EXPLAIN") != "")
	fmt.Printf("%-12s kast lsp RSS after the queries: %d MB; libraries: %s\n", name, rss/1024, libs)
	return nil
}

// inDefaultBuild reports whether path builds for this machine's GOOS and
// GOARCH with no extra tags, as gopls loads it by default.
func inDefaultBuild(path string) bool {
	ok, err := build.Default.MatchFile(filepath.Dir(path), filepath.Base(path))
	return err != nil || ok
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// definitions asks for the first definition at every sample.
func definitions(ctx context.Context, s *lspServer, samples []sample) []string {
	out := make([]string, len(samples))
	for i, smp := range samples {
		u := uri.File(smp.Path)
		_ = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": u, "languageId": "go", "version": 1, "text": smp.Text}})
		var defs json.RawMessage
		if err := s.call(ctx, "textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": u},
			"position": map[string]int{"line": smp.Line, "character": smp.Col}}, &defs); err == nil {
			out[i] = firstLocation(defs)
		}
		_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
	}
	return out
}

// startKastWithLibraries starts kast on root with a cache of its own and
// waits until its workspace and libraries are indexed; cleanup removes the
// cache once the server is closed.
func startKastWithLibraries(ctx context.Context, root, kast string) (k *lspServer, libs string, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "kastbench-acc")
	if err != nil {
		return nil, "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	cache := filepath.Join(tmp, "cache")
	if shared := os.Getenv("KASTBENCH_CACHE"); shared != "" {
		// Libraries indexed once for every run and project that share it
		// (the standard library is most of a Python run's indexing).
		cache = shared
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache)
	if k, err = startServer(ctx, "kast", root, env, kast, "lsp", "--stdio"); err != nil {
		cleanup()
		return nil, "", nil, err
	}
	if libs, err = waitLibraries(ctx, k); err != nil {
		k.close()
		cleanup()
		return nil, "", nil, err
	}
	return k, libs, cleanup, nil
}

// waitLibraries waits for kast's workspace index and then its libraries,
// and describes them.
func waitLibraries(ctx context.Context, s *lspServer) (string, error) {
	return awaitLibraries(ctx, s, 10*time.Minute)
}

// rssKB reads a process's resident set size from /proc, 0 elsewhere.
func rssKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
