package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// A reference server's answers do not change between runs that compare
// kast builds on the same tree: KASTBENCH_REFCACHE=DIR keeps them, keyed
// by the server, the root and the sampled positions and files, so that a
// second run asks only kast (pyright alone took half an hour on a loaded
// machine).

// refAnswers are the reference server's answers at a run's samples.
type refAnswers struct {
	Defs  []cachedTarget `json:"defs"`
	Items [][]string     `json:"items"`
}

type cachedTarget struct {
	Path string `json:"path,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// refCacheFile is where the answers of ref at these samples are kept
// under dir, "" when dir is.
func refCacheFile(dir, ref, root string, defSamples, memberSamples []sample) string {
	if dir == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", ref, root)
	for _, group := range [][]sample{defSamples, memberSamples} {
		fmt.Fprintf(h, "%d\n", len(group))
		for _, smp := range group {
			sum := sha256.Sum256([]byte(smp.Text))
			fmt.Fprintf(h, "%s %d %d %s %x\n", smp.Path, smp.Line, smp.Col, smp.Name, sum[:8])
		}
	}
	return filepath.Join(dir, "ref-"+hex.EncodeToString(h.Sum(nil)[:12])+".json")
}

// loadRefAnswers reads answers kept for exactly these samples; ok is
// false when there are none.
func loadRefAnswers(file string, nDefs, nItems int) (defs []target, items [][]string, ok bool) {
	if file == "" {
		return nil, nil, false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, false
	}
	var a refAnswers
	if json.Unmarshal(b, &a) != nil || len(a.Defs) != nDefs || len(a.Items) != nItems {
		return nil, nil, false
	}
	for _, d := range a.Defs {
		defs = append(defs, target{path: d.Path, line: d.Line, col: d.Col})
	}
	return defs, a.Items, true
}

// saveRefAnswers keeps the answers for a later run; a failure only costs
// that run the reference server's time.
func saveRefAnswers(file string, defs []target, items [][]string) {
	if file == "" {
		return
	}
	a := refAnswers{Items: items}
	for _, d := range defs {
		a.Defs = append(a.Defs, cachedTarget{Path: d.path, Line: d.line, Col: d.col})
	}
	b, err := json.Marshal(a)
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o755) != nil {
		return
	}
	tmp := file + ".tmp"
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, file)
	}
}
