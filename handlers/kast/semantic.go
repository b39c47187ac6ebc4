package kast

import (
	"context"
	"strings"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/semantic"
)

// semanticDiagnostics runs kast's own checks (analysis/semantic) over the
// files whose index facts match their text; ran says whether any file was
// one they apply to.
func (r *kastRequest) semanticDiagnostics(ctx context.Context, paths []string) (out []kastDiagnostic, ran bool) {
	for _, path := range paths {
		f := r.snap.File(path)
		if f == nil || !semantic.Supports(f.Lang) {
			continue
		}
		src, err := r.text(path)
		if err != nil || edit.Hash(src) != f.Hash {
			continue // facts of another text would point at the wrong places
		}
		ran = true
		for _, d := range semantic.Check(ctx, r.snap, path, src) {
			code := d.Code
			out = append(out, kastDiagnostic{r.location(path, d.Span), strings.ToUpper(d.Severity), d.Message, &code})
		}
	}
	return out, ran
}

// withoutRepeats drops kast's own findings on a line where a toolchain
// reported too: the compiler says the same thing, and says it better.
func withoutRepeats(own, toolchain []kastDiagnostic) []kastDiagnostic {
	type line struct {
		path string
		n    int
	}
	taken := map[line]bool{}
	for _, d := range toolchain {
		if d.Severity != "INFO" {
			taken[line{d.Location.FilePath, d.Location.StartLine}] = true
		}
	}
	out := own[:0]
	for _, d := range own {
		if !taken[line{d.Location.FilePath, d.Location.StartLine}] {
			out = append(out, d)
		}
	}
	return out
}
