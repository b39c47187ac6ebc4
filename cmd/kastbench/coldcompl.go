package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis/complete"
	"github.com/kast-dev/kast/analysis/workspace"
)

// runColdCompletion measures, in this process, the completions a cold
// start answers at the sampled positions (those -cold asks completion at):
// root is indexed (or its index in dir reused), its stored uses cleared as
// before the background pass, and each position's completion asked of a
// fresh session, so that none is served by what an earlier one read. It
// prints wall and CPU time, slowest first; with cpuFile it profiles the
// completions alone.
func runColdCompletion(root, dir, cpuFile string, n int, positions string) error {
	samples, ws, closeAll, err := openBeforePass(root, dir, n, positions)
	if err != nil {
		return err
	}
	defer closeAll()
	if cpuFile != "" {
		stopCPU, err := startCPUProfile(cpuFile)
		if err != nil {
			return err
		}
		defer stopCPU()
	}
	type answer struct {
		smp       sample
		items     int
		wall, cpu time.Duration
	}
	answers := make([]answer, len(samples))
	var walls, cpus []time.Duration
	for i, smp := range samples {
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		start, cpu := time.Now(), selfCPU()
		text := []byte(smp.Text)
		res := complete.Complete(sess.Snapshot([]workspace.Doc{{Path: smp.Path, Version: 1, Text: text}}), smp.Path, smp.Offset, text)
		answers[i] = answer{smp, len(res.Items), time.Since(start), selfCPU() - cpu}
		walls, cpus = append(walls, answers[i].wall), append(cpus, answers[i].cpu)
	}
	printTimes("completions", walls, cpus)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	slices.SortFunc(answers, func(a, b answer) int { return cmp.Compare(b.cpu, a.cpu) })
	for _, a := range answers[:min(20, len(answers))] {
		fmt.Printf("  slow: %8.1f ms wall %8.1f ms CPU %6d items  %s\n", ms(a.wall), ms(a.cpu), a.items, strings.TrimPrefix(a.smp.String(), root+"/"))
	}
	return nil
}
