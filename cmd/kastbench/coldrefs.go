package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis/benchpos"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/workspace"
)

// runColdRefs measures, in this process, the reference queries a cold
// start answers before the background pass has stored any use: root is
// indexed (or its index in dir reused), its stored uses cleared, and each
// sampled position's references asked, one after another, of a fresh
// session, so that no query is served by what an earlier one read, or
// with oneSession of one session, as an editor's connection asks. It
// prints each query's wall and CPU time, slowest first, and with cpuFile
// profiles the queries alone. With check it then runs the whole pass and
// asks every position again: an answer that differs is one the cold path
// gets wrong (the warm answers are the truth).
func runColdRefs(root, dir, cpuFile string, n int, positions string, oneSession, check bool, listed int) error {
	samples, ws, closeAll, err := openBeforePass(root, dir, n, positions)
	if err != nil {
		return err
	}
	defer closeAll()
	ctx := context.Background()
	stopCPU := func() {}
	if cpuFile != "" {
		if stopCPU, err = startCPUProfile(cpuFile); err != nil {
			return err
		}
		defer stopCPU()
	}
	type answer struct {
		smp       sample
		locs      []string
		wall, cpu time.Duration
	}
	answers := make([]answer, len(samples))
	var walls, cpus []time.Duration
	var sess *workspace.Session
	for i, smp := range samples {
		if sess == nil || !oneSession {
			sess = workspace.NewSession()
			sess.AddRoot(ws)
		}
		start, cpu := time.Now(), selfCPU()
		locs := coldRefsAt(sess, smp)
		answers[i] = answer{smp, locs, time.Since(start), selfCPU() - cpu}
		walls, cpus = append(walls, answers[i].wall), append(cpus, answers[i].cpu)
	}
	stopCPU()
	printTimes("reference queries", walls, cpus)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	over := func(limit time.Duration) (n int) {
		for _, c := range cpus {
			if c > limit {
				n++
			}
		}
		return n
	}
	fmt.Printf("queries over 10 / 30 / 100 ms CPU: %d / %d / %d\n", over(10*time.Millisecond), over(30*time.Millisecond), over(100*time.Millisecond))
	slowest := slices.Clone(answers)
	slices.SortFunc(slowest, func(a, b answer) int { return cmp.Compare(b.cpu, a.cpu) })
	for _, a := range slowest[:min(listed, len(slowest))] {
		fmt.Printf("  slow: %8.1f ms wall %8.1f ms CPU %6d results  %s\n", ms(a.wall), ms(a.cpu), len(a.locs), strings.TrimPrefix(a.smp.String(), root+"/"))
	}
	if !check {
		return nil
	}
	start := time.Now()
	if _, err := ws.ResolveUses(ctx, 0, nil); err != nil {
		return err
	}
	fmt.Printf("pass done in %s; comparing with the stored uses\n", time.Since(start).Round(time.Millisecond))
	differ := 0
	for _, a := range answers {
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		warm := coldRefsAt(sess, a.smp)
		if !slices.Equal(warm, a.locs) {
			differ++
			fmt.Printf("  differs: %s: cold %d, warm %d results\n", strings.TrimPrefix(a.smp.String(), root+"/"), len(a.locs), len(warm))
			for _, l := range diffLocs(a.locs, warm) {
				fmt.Println("    " + strings.TrimPrefix(l, root+"/"))
			}
		}
	}
	fmt.Printf("%d of %d answers differ from the warm ones\n", differ, len(answers))
	if differ > 0 {
		return fmt.Errorf("%d cold answers differ from the warm ones", differ)
	}
	return nil
}

// printTimes sorts the wall and CPU times of what queries and prints their
// percentiles and the total CPU.
func printTimes(what string, walls, cpus []time.Duration) {
	slices.SortFunc(walls, cmp.Compare)
	slices.SortFunc(cpus, cmp.Compare)
	var total time.Duration
	for _, c := range cpus {
		total += c
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	fmt.Printf("%d %s before the pass: wall p50/p95/p99/max %.1f / %.1f / %.1f / %.1f ms, CPU p50/p95/p99/max %.1f / %.1f / %.1f / %.1f ms, CPU total %s\n",
		len(walls), what, ms(percentile(walls, .5)), ms(percentile(walls, .95)), ms(percentile(walls, .99)), ms(walls[len(walls)-1]),
		ms(percentile(cpus, .5)), ms(percentile(cpus, .95)), ms(percentile(cpus, .99)), ms(cpus[len(cpus)-1]), total.Round(time.Millisecond))
}

// openBeforePass picks the samples (coldRefsSamples) and opens root's index
// in dir (openIndexIn) as a cold start finds it before the background pass:
// up to date, with no use stored.
func openBeforePass(root, dir string, n int, positions string) ([]sample, *workspace.Workspace, func(), error) {
	samples, err := coldRefsSamples(root, n, positions)
	if err != nil {
		return nil, nil, nil, err
	}
	ws, closeAll, err := openIndexIn(root, dir)
	if err != nil {
		return nil, nil, nil, err
	}
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	if err := ws.Index.ClearUses(); err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	return samples, ws, closeAll, nil
}

// coldRefsSamples is the sample of -cold, or the positions named.
func coldRefsSamples(root string, n int, positions string) ([]sample, error) {
	if positions != "" {
		var out []sample
		for _, p := range strings.Split(positions, ",") {
			s, err := sampleAt(root, p)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	paths, _, err := treeFiles(root)
	if err != nil {
		return nil, err
	}
	return benchpos.Go(context.Background(), paths, n)
}

// coldRefsAt asks a position's references of sess.
func coldRefsAt(sess *workspace.Session, smp sample) []string {
	snap := sess.Snapshot(nil)
	var out []string
	for _, l := range navigate.References(snap, smp.Path, smp.Offset, false) {
		out = append(out, fmt.Sprintf("%s:%d-%d", l.Path, l.Span.Start, l.Span.End))
	}
	return out
}

// diffLocs lists what one answer has that the other lacks, marked - and +.
func diffLocs(cold, warm []string) []string {
	var out []string
	for _, l := range cold {
		if !slices.Contains(warm, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range warm {
		if !slices.Contains(cold, l) {
			out = append(out, "+ "+l)
		}
	}
	return out[:min(10, len(out))]
}
