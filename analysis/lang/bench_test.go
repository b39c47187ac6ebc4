package lang

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/syntax"
)

// stdlibDirs is the part of the Go standard library the benchmarks extract:
// about 8 MB of varied code, enough for stable MB/s in seconds.
var stdlibDirs = []string{"go", "net", "encoding", "fmt", "strings", "sort", "bufio"}

type source struct {
	path string
	src  []byte
}

func stdlib(b *testing.B) ([]source, int64) {
	b.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	var files []source
	var total int64
	for _, dir := range stdlibDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.Contains(path, "testdata") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, source{path, src})
			total += int64(len(src))
			return nil
		})
		if err != nil {
			b.Skipf("Go sources not available: %v", err)
		}
	}
	return files, total
}

// BenchmarkExtractGoStdlib extracts the files one after the other.
func BenchmarkExtractGoStdlib(b *testing.B) {
	files, total := stdlib(b)
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		for _, f := range files {
			if _, err := Extract(context.Background(), f.path, f.src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkExtractGoStdlibParallel extracts on all cores, as the indexer does.
func BenchmarkExtractGoStdlibParallel(b *testing.B) {
	files, total := stdlib(b)
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(len(files)); i = next.Add(1) - 1 {
					if _, err := Extract(context.Background(), files[i].path, files[i].src); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
	}
}

// BenchmarkWalkGoStdlib walks trees parsed beforehand: extraction alone,
// without the parse.
func BenchmarkWalkGoStdlib(b *testing.B) {
	files, total := stdlib(b)
	l, _ := ByID("go")
	trees := make([]*syntax.Tree, len(files))
	for i, f := range files {
		t, err := l.Syntax.Parse(context.Background(), f.src)
		if err != nil {
			b.Fatal(err)
		}
		defer t.Close()
		trees[i] = t
	}
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		for i, t := range trees {
			extract.Release(extract.FromTree(t, l.Walk, files[i].path))
		}
	}
}

// BenchmarkParseGoStdlib only parses: the floor extraction is measured against.
func BenchmarkParseGoStdlib(b *testing.B) {
	files, total := stdlib(b)
	l, _ := ByID("go")
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		for _, f := range files {
			tree, err := l.Syntax.Parse(context.Background(), f.src)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	}
}
