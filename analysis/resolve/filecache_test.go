package resolve_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// countingWorkspace decodes a file anew at every read, as an index does,
// and counts the reads.
type countingWorkspace struct {
	decodingWorkspace
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingWorkspace) File(path string) *analysis.FileFacts {
	c.mu.Lock()
	c.reads[path]++
	c.mu.Unlock()
	return c.decodingWorkspace.File(path)
}

// A resolver whose budget is smaller than what one reference's lookups
// read keeps the file whose references it resolves: it is read once, not
// once per reference. Every answer is the unbounded resolver's.
func TestBudgetKeepsTheFileBeingResolved(t *testing.T) {
	files := map[string]string{}
	var use strings.Builder
	use.WriteString("package main\n\nfunc main() {\n")
	for i := range 20 {
		files[fmt.Sprintf("p%02d/p.go", i)] = fmt.Sprintf("package p%02d\n\nfunc F() int { return %d }\n", i, i)
		fmt.Fprintf(&use, "\t_ = F%02d()\n", i)
	}
	use.WriteString("}\n")
	for i := range 20 {
		files[fmt.Sprintf("main/f%02d.go", i)] = fmt.Sprintf("package main\n\nfunc F%02d() int { return %d }\n", i, i)
	}
	files["main/main.go"] = use.String()
	ws := workspace(t, files)
	counting := &countingWorkspace{decodingWorkspace: decodingWorkspace{ws}, reads: map[string]int{}}
	bounded := resolve.NewWithBudget(counting, 1)
	var got, want []string
	bounded.FileUses("main/main.go", func(def resolve.DefID, ref resolve.Reference) {
		got = append(got, fmt.Sprint(def, ref.Ref))
	})
	resolve.New(ws).FileUses("main/main.go", func(def resolve.DefID, ref resolve.Reference) {
		want = append(want, fmt.Sprint(def, ref.Ref))
	})
	if strings.Join(got, ";") != strings.Join(want, ";") || len(want) < 20 {
		t.Errorf("bounded uses %v, want %v", got, want)
	}
	if n := counting.reads["main/main.go"]; n != 1 {
		t.Errorf("the file being resolved was read %d times, want once", n)
	}
}

// A reference pass gives way to queries inside a file too: FileUsesOf
// pauses between its references, every few dozen, and finds the same uses.
func TestFileUsesPausesBetweenReferences(t *testing.T) {
	var src strings.Builder
	src.WriteString("package main\n\nfunc F() int { return 1 }\n\nfunc main() {\n")
	for range 200 {
		src.WriteString("\t_ = F()\n")
	}
	src.WriteString("}\n")
	ws := workspace(t, map[string]string{"main/main.go": src.String()})
	f := ws.File("main/main.go")
	pauses, uses := 0, 0
	resolve.New(ws).FileUsesOf(f, func() { pauses++ }, func(resolve.DefID, resolve.Reference) { uses++ })
	want := 0
	resolve.New(ws).FileUses("main/main.go", func(resolve.DefID, resolve.Reference) { want++ })
	if uses != want || want < 200 {
		t.Errorf("%d uses with pauses, %d without; want the same, at least 200", uses, want)
	}
	if least := len(f.Refs) / 64; pauses < least || pauses >= len(f.Refs) {
		t.Errorf("%d pauses over %d references, want at least %d and fewer than one a reference", pauses, len(f.Refs), least)
	}
}
