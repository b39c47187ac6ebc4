// Package checks runs each language's own toolchain over files to find what
// kast's syntax-level analysis cannot: type errors, unresolved names, wrong
// arity. Go is type-checked in process through go/packages and go/types;
// TypeScript through the project's tsc, Python through pyright and Kotlin
// through kotlinc, each when installed. Every check runs within a time budget
// and its findings name their source; a check that cannot run says why.
package checks

import (
	"bytes"
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
)

// Diagnostic is one finding. Lines and columns are 1-based; columns count
// bytes (Go, kotlinc) or UTF-16 units (tsc, pyright), as Encoding says.
type Diagnostic struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Severity  string `json:"severity"` // "error" or "warning"
	Code      string `json:"code,omitempty"`
	Message   string `json:"message"`
	Source    string `json:"source"` // go/types, tsc, pyright, kotlinc
	UTF16     bool   `json:"-"`      // columns count UTF-16 units
}

// Result is what the checks found and which of them ran.
type Result struct {
	Diagnostics []Diagnostic
	Ran         []string          // sources that ran to the end, or whose findings were cached
	NotRun      map[string]string // source → why it did not run (not installed, timed out, …)
	Cached      []string          // sources whose findings came from the cache: their inputs had not changed
}

func (r *Result) add(source string, diags []Diagnostic, err error) {
	if err != nil {
		if r.NotRun == nil {
			r.NotRun = map[string]string{}
		}
		r.NotRun[source] = err.Error()
		return
	}
	r.Ran = append(r.Ran, source)
	r.Diagnostics = append(r.Diagnostics, diags...)
}

// Request names the files to check.
type Request struct {
	Root  string   // the workspace root
	Files []string // absolute paths, of any languages
	// Overlay holds unsaved contents by path. Go checks them as given; the
	// other toolchains read the disk, so a file with unsaved content is left
	// to Go and to kast's own analysis.
	Overlay map[string][]byte
	Budget  time.Duration // per toolchain; 0 means DefaultBudget
}

// DefaultBudget bounds one toolchain's run.
const DefaultBudget = 20 * time.Second

// Run checks the files with every toolchain that applies to them.
func Run(ctx context.Context, req Request) Result {
	var res Result
	byTool := map[string][]string{}
	for _, f := range req.Files {
		if tool := SourceFor(f); tool != "" {
			if _, unsaved := req.Overlay[f]; unsaved && tool != sourceGo {
				continue
			}
			byTool[tool] = append(byTool[tool], f)
		}
	}
	budget := cmp.Or(req.Budget, DefaultBudget)
	for _, tool := range slices.Sorted(maps.Keys(byTool)) {
		key, cacheable := inputsKey(ctx, tool, req.Root, byTool[tool], req.Overlay)
		if found, ok := cache.get(key); cacheable && ok {
			res.add(tool, found, nil)
			res.Cached = append(res.Cached, tool)
			continue
		}
		release, err := acquire(ctx, tool)
		if err != nil {
			res.add(tool, nil, err)
			continue
		}
		tctx, cancel := context.WithTimeout(ctx, budget)
		files := byTool[tool]
		var diags []Diagnostic
		switch tool {
		case sourceGo:
			diags, err = checkGo(tctx, req.Root, files, req.Overlay)
		case sourceTSC:
			diags, err = checkTypeScript(tctx, req.Root, files)
		case sourcePyright:
			diags, err = checkPython(tctx, req.Root, files)
		case sourceKotlinc:
			diags, err = checkKotlin(tctx, req.Root, files)
		}
		if err == nil && tctx.Err() != nil {
			err = tctx.Err()
		}
		if err != nil && tctx.Err() == context.DeadlineExceeded {
			err = &timeoutError{budget}
		}
		cancel()
		release()
		diags = keepFiles(diags, files)
		if err == nil && cacheable {
			// Keyed by the inputs as they were before the run: a file
			// changed meanwhile gets a new key next time.
			cache.put(key, diags)
		}
		res.add(tool, diags, err)
	}
	return res
}

// running lets one run of each toolchain go at a time in the process: they
// take whole cores for seconds, and a burst of saves would stack them up.
var running = map[string]chan struct{}{
	sourceGo: make(chan struct{}, 1), sourceTSC: make(chan struct{}, 1),
	sourcePyright: make(chan struct{}, 1), sourceKotlinc: make(chan struct{}, 1),
}

func acquire(ctx context.Context, tool string) (release func(), err error) {
	select {
	case running[tool] <- struct{}{}:
		return func() { <-running[tool] }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

const (
	sourceGo      = "go/types"
	sourceTSC     = "tsc"
	sourcePyright = "pyright"
	sourceKotlinc = "kotlinc"
)

// SourceFor names the check that applies to a file, "" for none.
func SourceFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".go":
		return sourceGo
	case ".ts", ".tsx", ".mts", ".cts":
		return sourceTSC
	case ".py":
		return sourcePyright
	case ".kt", ".kts":
		return sourceKotlinc
	}
	return ""
}

// keepFiles drops findings about other files than those asked for (a
// package's other files, a project's whole tree).
func keepFiles(diags []Diagnostic, files []string) []Diagnostic {
	want := map[string]bool{}
	for _, f := range files {
		want[filepath.Clean(f)] = true
	}
	out := diags[:0]
	for _, d := range diags {
		if want[filepath.Clean(d.Path)] {
			out = append(out, d)
		}
	}
	return out
}

type timeoutError struct{ budget time.Duration }

func (e *timeoutError) Error() string { return "timed out after " + e.budget.String() }

// notInstalled says a toolchain is missing.
type notInstalled struct{ tool, hint string }

func (e *notInstalled) Error() string { return e.tool + notInstalledPhrase + e.hint + ")" }

const notInstalledPhrase = " is not installed ("

// IsNotInstalled reports whether a Result.NotRun reason is a missing
// toolchain, rather than one that failed or timed out.
func IsNotInstalled(why string) bool { return strings.Contains(why, notInstalledPhrase) }

// Span is where the diagnostic lies in src, its file's text, with byte
// offsets and 0-based line and byte column points.
func (d Diagnostic) Span(src []byte) analysis.Span {
	start, end := d.Offsets(src)
	return analysis.Span{Start: start, End: end, StartPoint: pointOf(src, start), EndPoint: pointOf(src, end)}
}

func pointOf(src []byte, off int) analysis.Point {
	lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
	return analysis.Point{Line: bytes.Count(src[:lineStart], []byte{'\n'}), Col: off - lineStart}
}

// Offsets turns the diagnostic's line and column into byte offsets in src
// (its file's text); a diagnostic without an end covers the rest of the
// word it starts on.
func (d Diagnostic) Offsets(src []byte) (start, end int) {
	start = offsetOf(src, d.Line, d.Column, d.UTF16)
	if d.EndLine > 0 {
		end = offsetOf(src, d.EndLine, d.EndColumn, d.UTF16)
	}
	if end <= start {
		end = start
		for end < len(src) && (isWordByte(src[end]) || src[end] >= utf8.RuneSelf) {
			end++
		}
	}
	return start, end
}

// offsetOf finds 1-based line and column (bytes, or UTF-16 units) in src,
// clamped to the text.
func offsetOf(src []byte, line, col int, utf16Units bool) int {
	off := 0
	for l := 1; l < line && off < len(src); l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	if !utf16Units { // byte columns
		for n := 1; n < col && off < len(src) && src[off] != '\n'; n++ {
			off++
		}
		return off
	}
	for units := 1; units < col && off < len(src) && src[off] != '\n'; {
		r, size := utf8.DecodeRune(src[off:])
		off += size
		units++
		if r >= 0x10000 { // a surrogate pair
			units++
		}
	}
	return off
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
