package workspace_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis"
)

// A file that is not ASCII keeps which lines are not, when they are few,
// so that a position on another line converts to UTF-16 without reading
// the file; with many such lines, none is known to be ASCII.
func TestASCIILinesOfAWideFile(t *testing.T) {
	many := "package b\n\n" + strings.Repeat("// é\n", analysis.MaxWideLines+1) + "func B() {}\n"
	ws, root := openArchive(t, txtar.Parse([]byte("-- a/a.go --\n// café\npackage a\n\nvar s = \"naïve\"\n\nfunc Name() {}\n-- b/b.go --\n"+many)))
	snap := snapshotOf(ws)
	a := filepath.Join(root, "a", "a.go")
	for line, want := range []bool{false, true, true, false, true, true} {
		if got := snap.ASCIILine(a, line); got != want {
			t.Errorf("a.go line %d: ASCIILine = %v, want %v", line, got, want)
		}
	}
	b := filepath.Join(root, "b", "b.go")
	if snap.ASCIILine(b, 0) || snap.ASCIILine(b, analysis.MaxWideLines+2) {
		t.Errorf("b.go has %d lines that are not ASCII: none of its lines is known to be", analysis.MaxWideLines+1)
	}
}
