package kast

import (
	"context"
	"os"
	"sort"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/checks"
)

// toolchainDiagnostics runs the languages' own checks (analysis/checks)
// over the files: compile errors as Kast diagnostics, and an INFO
// diagnostic for each installed check that failed or ran out of time, so a
// clean answer never hides one. A toolchain that is not installed is no
// finding: runtime/status lists which are.
func (r *kastRequest) toolchainDiagnostics(ctx context.Context, paths []string) ([]kastDiagnostic, []string) {
	if len(paths) == 0 {
		return nil, nil
	}
	found := checks.Run(ctx, checks.Request{Root: r.root, Files: paths})
	out := []kastDiagnostic{}
	texts := map[string][]byte{}
	for _, d := range found.Diagnostics {
		src, ok := texts[d.Path]
		if !ok {
			src, _ = os.ReadFile(d.Path)
			texts[d.Path] = src
		}
		code := d.Source
		if d.Code != "" {
			code += ":" + d.Code
		}
		out = append(out, kastDiagnostic{r.location(d.Path, d.Span(src)), strings.ToUpper(d.Severity), d.Message, &code})
	}
	notRun := make([]string, 0, len(found.NotRun))
	for source, why := range found.NotRun {
		if !checks.IsNotInstalled(why) {
			notRun = append(notRun, source)
		}
	}
	sort.Strings(notRun)
	for _, source := range notRun {
		code := "CHECK_NOT_RUN"
		out = append(out, kastDiagnostic{r.location(firstOf(paths, source), analysis.Span{}), "INFO",
			source + " did not run: " + found.NotRun[source], &code})
	}
	return out, found.Ran
}

// firstOf is the first of paths the check applies to, where its note goes.
func firstOf(paths []string, source string) string {
	for _, p := range paths {
		if checks.SourceFor(p) == source {
			return p
		}
	}
	return paths[0]
}
