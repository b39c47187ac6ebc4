package checks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/lang"
)

// BenchmarkDiagnosticsPerFile measures one Go file's diagnostics four ways
// on this repository's own code: kast's syntax pass alone, the syntax pass
// and go/types (what raw/diagnostics does) on a changed file and on an
// unchanged one (cached), and the toolchain run alone from the command line
// (go vet, which type-checks the package) for comparison. kast's own
// semantic checks are measured in analysis/semantic.
func BenchmarkDiagnosticsPerFile(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("no go command")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "naming"))
	file := filepath.Join(dir, "naming.go")
	src, err := os.ReadFile(file)
	if err != nil {
		b.Skip(err)
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	ctx := context.Background()
	b.Run("kast-syntax", func(b *testing.B) {
		for b.Loop() {
			if _, err := lang.Extract(ctx, file, src); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kast-syntax+go-types", func(b *testing.B) {
		for b.Loop() {
			cache.reset() // a cold run: the file or its package changed
			if _, err := lang.Extract(ctx, file, src); err != nil {
				b.Fatal(err)
			}
			if res := Run(ctx, Request{Root: root, Files: []string{file}, Budget: time.Minute}); len(res.Ran) != 1 {
				b.Fatalf("not run: %v", res.NotRun)
			}
		}
	})
	b.Run("kast-syntax+go-types-unchanged", func(b *testing.B) {
		for b.Loop() { // the findings of unchanged inputs come from the cache
			if _, err := lang.Extract(ctx, file, src); err != nil {
				b.Fatal(err)
			}
			if res := Run(ctx, Request{Root: root, Files: []string{file}, Budget: time.Minute}); len(res.Ran) != 1 {
				b.Fatalf("not run: %v", res.NotRun)
			}
		}
	})
	b.Run("go-vet-alone", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("go", "vet", ".")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
