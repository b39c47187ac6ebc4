package resolve_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Two types' methods named alike share their candidate references: once a
// query for one has resolved them, a query for the other reads no file to
// resolve them again, and answers as resolving each does. Each answer
// holds its own method's uses only.
func TestResolvedMemoAnswersTheNameAgain(t *testing.T) {
	files := map[string]string{
		"shapes/shapes.go": "package shapes\n\ntype Square struct{}\n\nfunc (Square) Area() int { return 1 }\n\ntype Circle struct{}\n\nfunc (Circle) Area() int { return 3 }\n",
		"use/a.go":         "package use\n\nimport \"shapes\"\n\nfunc A(s shapes.Square, c shapes.Circle) int { return s.Area() + c.Area() }\n",
		"use/b.go":         "package use\n\nimport \"shapes\"\n\nfunc B() int {\n\tvar c shapes.Circle\n\treturn c.Area() + c.Area()\n}\n",
	}
	ws := workspace(t, files)
	var methods []resolve.DefID // Square's Area, then Circle's
	for i, d := range ws.File("shapes/shapes.go").Defs {
		if d.Name == "Area" {
			methods = append(methods, resolve.DefID{Path: "shapes/shapes.go", Index: int32(i)})
		}
	}
	r := resolve.New(ws)
	memo := &resolve.ResolvedMemo{}
	var mu sync.Mutex
	wholeReads := 0
	whole := func(path string, refs []int32) *analysis.FileFacts {
		mu.Lock()
		wholeReads++
		mu.Unlock()
		return ws.File(path)
	}
	keys := func(refs []resolve.Reference) []string {
		var out []string
		for _, x := range refs {
			out = append(out, fmt.Sprintf("%s@%d %.3f %v", x.Ref.Path, x.Span.Start, x.Confidence, x.Uncertain))
		}
		slices.Sort(out)
		return out
	}
	for i, def := range methods {
		ids := r.ReferenceCandidates(def, true)
		got := keys(r.ReferencesAmongWhole(def, ids, true, whole, memo))
		want := keys(resolve.New(ws).ReferencesAmong(def, ids, true))
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("query %d: references %v, want %v", i, got, want)
		}
		if i == 0 && wholeReads == 0 {
			t.Fatal("the first query read no file whole: the test tests nothing")
		}
		if i == 1 && wholeReads > 0 {
			t.Errorf("the second query read %d files whole, want none: the first resolved its candidates", wholeReads)
		}
		wholeReads = 0
	}
}
