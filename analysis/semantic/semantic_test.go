package semantic_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/internal/wstest"
	"github.com/kast-dev/kast/analysis/semantic"
)

// Each fixture under testdata/semantic lists, in its want section, every
// finding its files get (path:line code); the clean files in each get none.
func TestFixtures(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/semantic/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, f := range ar.Files {
				if f.Name == "want" {
					want = strings.Fields(strings.ReplaceAll(string(f.Data), "\n", " "))
				}
			}
			ws, root := wstest.Open(t, path)
			snap := wstest.Snapshot(ws)
			var got []string
			for _, f := range ar.Files {
				p := filepath.Join(root, filepath.FromSlash(f.Name))
				if snap.File(p) == nil {
					continue
				}
				src, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range semantic.Check(context.Background(), snap, p, src) {
					got = append(got, fmt.Sprintf("%s:%d", f.Name, d.Span.StartPoint.Line+1), d.Code)
					t.Logf("%s:%d: %s %s: %s", f.Name, d.Span.StartPoint.Line+1, d.Severity, d.Code, d.Message)
				}
			}
			if !slices.Equal(pairs(got), pairs(want)) {
				t.Errorf("findings:\n got %v\nwant %v", pairs(got), pairs(want))
			}
		})
	}
}

// pairs joins "path:line code" pairs and sorts them.
func pairs(words []string) []string {
	var out []string
	for i := 0; i+1 < len(words); i += 2 {
		out = append(out, words[i]+" "+words[i+1])
	}
	slices.Sort(out)
	return out
}

// BenchmarkCheck measures kast's own checks of one file (what they add to
// raw/diagnostics and each LSP push), per fixture language.
func BenchmarkCheck(b *testing.B) {
	for _, lang := range []string{"go", "kotlin", "python", "typescript", "java"} {
		b.Run(lang, func(b *testing.B) {
			path := "../../testdata/semantic/" + lang + ".txtar"
			ar, err := txtar.ParseFile(path)
			if err != nil {
				b.Fatal(err)
			}
			ws, root := wstest.Open(b, path)
			snap := wstest.Snapshot(ws)
			var file string
			var src []byte
			for _, f := range ar.Files { // the largest file
				p := filepath.Join(root, filepath.FromSlash(f.Name))
				if snap.File(p) != nil && len(f.Data) > len(src) {
					file, src = p, f.Data
				}
			}
			for b.Loop() {
				semantic.Check(context.Background(), wstest.Snapshot(ws), file, src)
			}
		})
	}
}
