// Package benchpos samples identifier positions in source files, the same ones on
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

// Sample is one identifier position in a source file.
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
	return Refs(ctx, paths, n, []string{".go"})
}

// Refs picks n references (calls, types, reads) in the files among paths
// whose names end in one of exts, as Go does for Go files. Declaration
// files (.d.ts) are left out: they hold few references worth a request.
func Refs(ctx context.Context, paths []string, n int, exts []string) ([]Sample, error) {
	return sample(ctx, paths, n, exts, func(src []byte, r analysis.Ref) (int, bool) {
		return r.Span.Start, r.Role&(analysis.RoleCall|analysis.RoleType|analysis.RoleRead) != 0 && len(r.Name) > 1
	})
}

// Members picks n member accesses (the name after "x.") and places each
// sample just after the member's first character: where an editor asks for
// completions once the user has typed one letter. Name is the member.
func Members(ctx context.Context, paths []string, n int, exts []string) ([]Sample, error) {
	return sample(ctx, paths, n, exts, func(src []byte, r analysis.Ref) (int, bool) {
		s := r.Span.Start
		return s + 1, s > 0 && src[s-1] == '.' && len(r.Name) > 1 && r.Span.End-s == len(r.Name)
	})
}

// sample draws files with a fixed seed and up to three references a file
// that pick accepts, at the byte offset pick returns.
func sample(ctx context.Context, paths []string, n int, exts []string, pick func([]byte, analysis.Ref) (int, bool)) ([]Sample, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var files []string
	for _, p := range paths {
		if slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(p, e) }) && !strings.HasSuffix(p, ".d.ts") &&
			!strings.Contains(p, "/testdata/") && !strings.Contains(p, "/vendor/") && !strings.Contains(p, "/node_modules/") {
			files = append(files, p)
		}
	}
	var out []Sample
	for len(out) < n && len(files) > 0 {
		i := rng.IntN(len(files))
		path := files[i]
		files = slices.Delete(files, i, i+1)
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		facts, err := lang.Extract(ctx, path, src)
		if err != nil {
			return nil, err
		}
		l, _ := lang.ForPath(path)
		doc := document.New("", l.ID, 0, src)
		type at struct {
			ref    analysis.Ref
			offset int
		}
		var refs []at
		for _, r := range facts.Refs {
			if off, ok := pick(src, r); ok {
				refs = append(refs, at{r, off})
			}
		}
		for range min(3, len(refs)) { // a few per file spreads the sample over packages
			r := refs[rng.IntN(len(refs))]
			pos := doc.Position(r.offset, document.UTF16)
			out = append(out, Sample{Path: path, Text: string(src), Name: r.ref.Name, Line: pos.Line, Col: pos.Character, Offset: r.offset})
		}
	}
	return out[:min(n, len(out))], nil
}
