package workspace_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/workspace"
)

// Selectors on variables typed through a chain from a typed parameter, as
// the compiler's SSA passes write `x := b.Controls[i]; x.Pos`: in the
// package itself, in two folders importing it (one settled by the other),
// through a range, a call's results, a second variable, an alias and a
// slice parameter, on a composite literal, and from a package's function
// or a call or element written in the selector, from a function of the
// package and from new(T); beside them a
// folder whose own Block and Value are other types, a chain ending in a
// Block (whose Pos is another field), and chains from a package-level
// variable, which other files of the package may declare.
const chainSettledFixture = `
-- go.mod --
module example.com/m
-- ssa/ssa.go --
package ssa

type Pos int

type Value struct {
	Pos   Pos
	Args  []*Value
	Block *Block
}

func (v *Value) Arg(i int) *Value { return v.Args[i] }

type Block struct {
	Controls [2]*Value
	Values   []*Value
	Pos      Pos
}

func (b *Block) First() (*Value, bool) { return b.Values[0], true }

func NewValue() *Value { return &Value{} }
-- ssa/rewrite.go --
package ssa

func rewrite(b *Block) Pos {
	x := b.Controls[0]
	for _, v := range b.Values {
		a := v.Args[0]
		_ = a.Pos + v.Pos
	}
	y := b.Values[1].Block
	return x.Pos + y.Pos
}
-- ssa/lower.go --
package ssa

func lower(b *Block) Pos {
	x := b.Controls[1]
	w, _ := b.First()
	z := x.Arg(0)
	for _, v := range b.Values {
		_ = v.Pos
	}
	return x.Pos + w.Pos + z.Pos
}
-- ssa/made.go --
package ssa

func made() Pos {
	v := NewValue()
	return v.Pos + new(Block).Controls[0].Pos
}

func madeToo() Pos {
	v := NewValue()
	return v.Pos + new(Block).Controls[1].Pos
}
-- ssa/global.go --
package ssa

var global *Block

func fromGlobal() Pos {
	g := global.Controls[0]
	return g.Pos
}

func fromGlobalToo() Pos {
	g := global.Controls[1]
	return g.Pos
}
-- ssa/alias.go --
package ssa

func alias(b *Block, vs []*Value) Pos {
	v_0 := b.Values[0]
	x := v_0
	y := vs[0]
	ws := b.Values
	for _, w := range ws {
		_ = w.Pos
	}
	return x.Pos + y.Pos + Value{Pos: 1}.Pos
}

func aliasToo(b *Block, vs []*Value) Pos {
	v_0 := b.Values[0]
	x := v_0
	y := vs[0]
	ws := b.Values
	for _, w := range ws {
		_ = w.Pos
	}
	return x.Pos + y.Pos + Value{Pos: 1}.Pos
}
-- other/other.go --
package other

import "example.com/m/ssa"

func Walk(b *ssa.Block) ssa.Pos {
	x := b.Controls[0]
	v := ssa.NewValue()
	return x.Pos + v.Pos + ssa.NewValue().Pos + b.Values[1].Pos
}
-- other/more.go --
package other

import "example.com/m/ssa"

func More(b *ssa.Block) ssa.Pos {
	x := b.Controls[1]
	v := ssa.NewValue()
	return x.Pos + v.Pos + ssa.NewValue().Pos + b.Values[0].Pos
}
-- third/t.go --
package third

import "example.com/m/ssa"

func T(b *ssa.Block) ssa.Pos {
	x := b.Controls[0]
	v := ssa.NewValue()
	return x.Pos + v.Pos + ssa.NewValue().Pos + b.Values[1].Pos
}
-- third/t2.go --
package third

import "example.com/m/ssa"

func T2(b *ssa.Block) ssa.Pos {
	x := b.Controls[1]
	v := ssa.NewValue()
	return x.Pos + v.Pos + ssa.NewValue().Pos + b.Values[0].Pos
}
-- own/types.go --
package own

type Value struct{ Pos int }

type Block struct{ Controls [2]*Value }
-- own/o.go --
package own

func O(b *Block) int {
	x := b.Controls[0]
	return x.Pos
}
-- own/o2.go --
package own

func O2(b *Block) int {
	x := b.Controls[1]
	return x.Pos
}
`

// The selectors of one folder typed through one chain are resolved one a
// group, and a group through an import settles that import's groups in
// other folders. The answers stay those of resolving each candidate,
// before the pass and after it.
func TestChainTypedSelectorsSettledByGroup(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(chainSettledFixture)))
	workspace.ReadSpansFromFacts(t)
	spansRead := hearSpansRead(t, root)
	wholeReads := hearWholeReads(t, root)
	snap := snapshotOf(ws)
	pos := memberDef(t, snap, filepath.Join(root, "ssa", "ssa.go"), "Pos", "Value")
	// rewrite: a, v, x; lower: v, x, w, z; global: g twice; alias: w, x,
	// y, the literal's key and selector, twice; other, third: x each, and
	// v, a call's and an element's; made: v and new(Block)'s, twice.
	if got := snap.CertainReferences(pos); len(got) != 39 {
		t.Errorf("Value.Pos: %d references %v; want 39", len(got), referenceKeys(got))
	}
	ownPos := memberDef(t, snap, filepath.Join(root, "own", "types.go"), "Pos", "Value")
	if got := snap.CertainReferences(ownPos); len(got) != 2 {
		t.Errorf("own Value.Pos: %d references %v; want 2", len(got), referenceKeys(got))
	}
	reads := wholeReads()
	for path, n := range reads {
		// A file read for a group serves its other candidates too.
		if n > 1 {
			t.Errorf("%s: read whole %d times by one query; want once", path, n)
		}
	}
	if n := btoi(reads["other/other.go"] > 0) + btoi(reads["other/more.go"] > 0) + btoi(reads["third/t.go"] > 0) + btoi(reads["third/t2.go"] > 0); n > 1 {
		t.Errorf("read whole: %v; want one file of other's and third's groups", slices.Sorted(maps.Keys(reads)))
	}
	if reads["own/o.go"] > 0 && reads["own/o2.go"] > 0 {
		t.Errorf("read whole: %v; want one file of own's group", slices.Sorted(maps.Keys(reads)))
	}
	read := spansRead()
	for _, want := range []string{"ssa/rewrite.go", "ssa/lower.go", "ssa/alias.go", "ssa/made.go", "other/other.go", "other/more.go", "third/t.go", "third/t2.go", "own/o.go", "own/o2.go"} {
		if !read[want] {
			t.Errorf("%s: its references were resolved one by one; want them settled", want)
		}
	}
	if read["ssa/global.go"] {
		t.Errorf("ssa/global.go: its references were settled; want each resolved")
	}
	if t.Failed() {
		t.Logf("settled: %v", slices.Sorted(maps.Keys(read)))
	}
	blockPos := memberDef(t, snap, filepath.Join(root, "ssa", "ssa.go"), "Pos", "Block")
	if got := snap.CertainReferences(blockPos); len(got) != 1 {
		t.Errorf("Block.Pos: %d references %v; want y.Pos", len(got), referenceKeys(got))
	}
	if certainBeforeAndAfter(t, ws) == 0 {
		t.Fatal("no definition has references")
	}
}
