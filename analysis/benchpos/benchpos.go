// Package benchpos samples identifier positions in Go files, the same ones on
// every run, so that benchmarks of different tools and of kast in and out of
// process measure the same requests.
package benchpos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/lang"
)

// Sample is one identifier position in a Go file.
type Sample struct {
	Path, Text, Name string
	Line, Col        int // 0-based, Col in UTF-16 units
	Offset           int // byte offset, for the Kast API
}

func (s Sample) String() string {
	return fmt.Sprintf("%s:%d:%d %s", s.Path, s.Line+1, s.Col+1, s.Name)
}

// Go picks n references (calls, types, reads) in the Go files among paths,
// with a fixed seed, skipping test data and vendored code.
func Go(ctx context.Context, paths []string, n int) ([]Sample, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var goFiles []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".go") && !strings.Contains(p, "/testdata/") && !strings.Contains(p, "/vendor/") {
			goFiles = append(goFiles, p)
		}
	}
	var out []Sample
	for len(out) < n && len(goFiles) > 0 {
		i := rng.IntN(len(goFiles))
		path := goFiles[i]
		goFiles = slices.Delete(goFiles, i, i+1)
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		facts, err := lang.Extract(ctx, path, src)
		if err != nil {
			return nil, err
		}
		doc := document.New("", "go", 0, src)
		var refs []analysis.Ref
		for _, r := range facts.Refs {
			if r.Role&(analysis.RoleCall|analysis.RoleType|analysis.RoleRead) != 0 && len(r.Name) > 1 {
				refs = append(refs, r)
			}
		}
		for range min(3, len(refs)) { // a few per file spreads the sample over packages
			r := refs[rng.IntN(len(refs))]
			pos := doc.Position(r.Span.Start, document.UTF16)
			out = append(out, Sample{Path: path, Text: string(src), Name: r.Name, Line: pos.Line, Col: pos.Character, Offset: r.Span.Start})
		}
	}
	return out[:min(n, len(out))], nil
}
