package workspace_test

import (
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/workspace"
)

// Selectors on variables set from a typed variable's members, as the
// compiler's generated rewrite rules write v_0 := v.Args[0]: through an
// index, a call, a range and another such variable, in two files of one
// folder; and where no group may settle: a chain from a generic type (its
// members' types depend on its arguments), through an assertion (its type
// is looked up in the file), and a variable shadowing its own root.
const chainSettledFixture = `
-- go.mod --
module example.com/m
-- ssa/value.go --
package ssa

type Value struct {
	Args []*Value
	Pos  int
}

func (v *Value) First() *Value { return v.Args[0] }

type Block struct{ Values []*Value }

type Box[T any] struct{ Items []T }

type Other struct{ Pos int }
-- ssa/rewrite_a.go --
package ssa

func rewriteA(v *Value, b *Block) int {
	v_0 := v.Args[0]
	x := v_0
	f := v.First()
	n := 0
	for _, w := range b.Values {
		n += w.Pos
	}
	return v_0.Pos + x.Pos + f.Pos + n
}
-- ssa/rewrite_b.go --
package ssa

func rewriteB(v *Value, b *Block) (n int) {
	for _, w := range b.Values {
		n += w.Pos
	}
	v_0 := v.Args[1]
	f := v.First()
	y := v_0
	return n + y.Pos + f.Pos + v_0.Pos
}
-- ssa/generic.go --
package ssa

func generic(b Box[*Value], o Box[Other]) int {
	v := b.Items[0]
	w := o.Items[0]
	return v.Pos + w.Pos
}
-- ssa/assert.go --
package ssa

func asserted(a any) int {
	v := a.(*Value).Args[0]
	return v.Pos
}

func shadow(v *Value) int {
	{
		v := v.Args[0]
		return v.Pos
	}
}
`

// Chained selectors whose root type their folder settles are resolved one
// a group; the others are resolved each. The answers stay those of
// resolving each candidate, before the pass and after it.
func TestChainedSelectorsSettledByGroup(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(chainSettledFixture)))
	workspace.ReadSpansFromFacts(t)
	spansRead := hearSpansRead(t, root)
	var mu sync.Mutex
	whole := map[string]bool{}
	workspace.HearWholeRead(t, func(path string) {
		rel, _ := filepath.Rel(root, path)
		mu.Lock()
		whole[filepath.ToSlash(rel)] = true
		mu.Unlock()
	})
	snap := snapshotOf(ws)
	pos := memberDef(t, snap, filepath.Join(root, "ssa", "value.go"), "Pos", "Value")
	// Four in each rewrite file, two in assert.go (the resolver does not
	// type generic.go's).
	if got := snap.CertainReferences(pos); len(got) != 10 {
		t.Errorf("Value.Pos: %d references %v; want 10", len(got), referenceKeys(got))
	}
	mu.Lock()
	if whole["ssa/rewrite_a.go"] && whole["ssa/rewrite_b.go"] {
		t.Errorf("read whole: %v; want one file of the rewrite files' groups", slices.Sorted(maps.Keys(whole)))
	}
	mu.Unlock()
	read := spansRead()
	if !read["ssa/rewrite_a.go"] || !read["ssa/rewrite_b.go"] {
		t.Errorf("a rewrite file's references were resolved one by one; want them settled by their groups")
	}
	for _, never := range []string{"ssa/generic.go", "ssa/assert.go"} {
		if read[never] {
			t.Errorf("%s: its references were settled; want each resolved", never)
		}
	}
	if t.Failed() {
		t.Logf("settled: %v", slices.Sorted(maps.Keys(read)))
	}
	if certainBeforeAndAfter(t, ws) == 0 {
		t.Fatal("no definition has references")
	}
}
