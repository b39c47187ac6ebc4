package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis/workspace"
)

// profileIndex indexes root cold in this process, the same work as
// `kast index`, under the CPU profiler, and optionally writes an allocation
// profile afterwards and an execution trace (go tool trace -pprof=sync shows
// where the workers and the writer wait): the way to find what a cold index
// spends its time on.
func profileIndex(root, cpuFile, memFile, traceFile string) error {
	dir, err := os.MkdirTemp("", "kastbench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if memFile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	ws, err := workspace.Open(root, workspace.Options{IndexDir: dir})
	if err != nil {
		return err
	}
	defer ws.Close()
	stopCPU, err := startCPUProfile(cpuFile)
	if err != nil {
		return err
	}
	defer stopCPU()
	if traceFile != "" {
		tf, err := os.Create(traceFile)
		if err != nil {
			return err
		}
		defer tf.Close()
		if err := trace.Start(tf); err != nil {
			return err
		}
	}
	start, cpu := time.Now(), selfCPU()
	totals, _, err := ws.Refresh(context.Background(), nil)
	stopCPU()
	if traceFile != "" {
		trace.Stop()
	}
	if err != nil {
		return err
	}
	fmt.Printf("indexed %d files (%d parsed) in %s, %s CPU\n", totals.Files, totals.Extracted,
		time.Since(start).Round(time.Millisecond), (selfCPU() - cpu).Round(time.Millisecond))
	return writeAllocsProfile(memFile)
}

// profilePassRun indexes root cold in this process, then runs the reference
// pass over it under the CPU profiler: the pass's CPU, wall time and the
// process's peak RSS, with an optional allocation profile of the pass alone.
func profilePassRun(root, cpuFile, memFile, dir string, workers, files int) error {
	ws, closeAll, err := openIndexIn(root, dir)
	if err != nil {
		return err
	}
	defer closeAll()
	start, cpu := time.Now(), selfCPU()
	totals, _, err := ws.Refresh(context.Background(), nil)
	if err != nil {
		return err
	}
	fmt.Printf("indexed %d files in %s, %s CPU\n", totals.Files, time.Since(start).Round(time.Millisecond), (selfCPU() - cpu).Round(time.Millisecond))
	// A kept index may hold a finished pass: this one starts over.
	if err := ws.Index.ClearUses(); err != nil {
		return err
	}
	if memFile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	stopCPU, err := startCPUProfile(cpuFile)
	if err != nil {
		return err
	}
	defer stopCPU()
	runtime.GC()
	resetPeakRSS()
	start, cpu = time.Now(), selfCPU()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	n, err := ws.ResolveUses(ctx, workers, func(done, _ int) {
		if done == files {
			stop()
		}
	})
	stopCPU()
	if err != nil && ctx.Err() == nil {
		return err
	}
	fmt.Printf("resolved the references of %d files in %s, %s CPU, peak RSS %d MB\n", n,
		time.Since(start).Round(time.Millisecond), (selfCPU() - cpu).Round(time.Millisecond), peakRSSSelf()/1024)
	return writeAllocsProfile(memFile)
}

// writeAllocsProfile writes the allocation profile to memFile, if one is named.
func writeAllocsProfile(memFile string) error {
	if memFile == "" {
		return nil
	}
	mem, err := os.Create(memFile)
	if err != nil {
		return err
	}
	defer mem.Close()
	return pprof.Lookup("allocs").WriteTo(mem, 0)
}

// openIndexIn opens root's workspace with its index in dir, or in a scratch
// folder removed by closeAll when dir is empty (a kept dir lets runs reuse
// the index).
func openIndexIn(root, dir string) (ws *workspace.Workspace, closeAll func(), err error) {
	cleanup := func() {}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "kastbench-index-")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		dir = tmp
	}
	ws, err = workspace.Open(root, workspace.Options{IndexDir: dir})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return ws, func() { ws.Close(); cleanup() }, nil
}

// startCPUProfile profiles this process's CPU into file until stop, which
// a deferred call may repeat.
func startCPUProfile(file string) (stop func(), err error) {
	out, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			out.Close()
		})
	}, nil
}
