package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis/semantic"
	"github.com/kast-dev/kast/analysis/workspace"
)

// runSemantic indexes each root and runs kast's own semantic checks over
// every file: on a project that compiles each finding is a false positive,
// so the counts measure how conservative the checks are.
func runSemantic(roots string) error {
	for _, root := range strings.Split(roots, ",") {
		if err := semanticRoot(root); err != nil {
			return err
		}
	}
	return nil
}

func semanticRoot(root string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kastbench-semantic-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ws, err := workspace.Open(root, workspace.Options{IndexDir: dir, Version: "kastbench"})
	if err != nil {
		return err
	}
	defer ws.Close()
	ctx := context.Background()
	if _, _, err := ws.Refresh(ctx, nil); err != nil {
		return err
	}
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	start := time.Now()
	files, byCode, byLang := 0, map[string]int{}, map[string]int{}
	var shown []string
	var slowest time.Duration
	var slowestFile string
	for _, p := range snap.Files() {
		f := snap.File(p)
		if f == nil || !semantic.Supports(f.Lang) {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		files++
		byLang[f.Lang]++
		began := time.Now()
		found := semantic.Check(ctx, snap, p, src)
		if took := time.Since(began); took > slowest {
			slowest, slowestFile = took, p
		}
		for _, d := range found {
			byCode[d.Severity+" "+d.Code]++
			rel, _ := filepath.Rel(root, p)
			shown = append(shown, fmt.Sprintf("  %s:%d:%d %s %s: %s", rel, d.Span.StartPoint.Line+1, d.Span.StartPoint.Col+1, d.Severity, d.Code, d.Message))
		}
	}
	fmt.Printf("%s: %d files %v checked in %s (slowest %s, %s)\n", root, files, byLang, time.Since(start).Round(time.Millisecond),
		slowest.Round(time.Millisecond), filepath.Base(slowestFile))
	codes := make([]string, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		fmt.Printf("  %-40s %d\n", c, byCode[c])
	}
	if len(codes) == 0 {
		fmt.Println("  no findings")
	}
	for i, s := range shown {
		if i == 50 {
			fmt.Printf("  … %d more\n", len(shown)-50)
			break
		}
		fmt.Println(s)
	}
	return nil
}
