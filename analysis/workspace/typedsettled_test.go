package workspace_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/workspace"
)

// A method called on parameters of written types, as a test calls
// t.Fatalf: through an import in two folders (one group each, one settled
// by the other; beside a type parameter T, a dot import), a type of the folder's own package, and where no group
// settles: a folder that declares a name like the import's, an aliased
// import, a file that declares the type (found in its own scope, with
// another confidence), a file that declares a type inside a function
// named like its package's.
const typedSettledFixture = `
-- go.mod --
module example.com/m
-- tt/tt.go --
package tt

type common struct{}

func (c *common) Fatalf(format string) {}

type T struct{ common }

type B struct{ common }

type Other struct{}

func (Other) Fatalf(format string) {}
-- a/a_test.go --
package a

import "example.com/m/tt"

func TestA(t *tt.T) { t.Fatalf("a") }
-- a/b_test.go --
package a

import "example.com/m/tt"

func TestB(t *tt.T) {
	t.Fatalf("b")
	var o tt.Other
	o.Fatalf("o")
}

func same[T any](v T) T { return v }
-- b/c_test.go --
package b

import "example.com/m/tt"

func TestC(t *tt.T, b *tt.B) {
	t.Fatalf("c")
	b.Fatalf("c")
}
-- b/d_test.go --
package b

import (
	. "example.com/m/util"
	"example.com/m/tt"
)

func TestD(t *tt.T) { t.Fatalf(Help()) }
-- util/util.go --
package util

func Help() string { return "" }
-- shadow/s.go --
package shadow

import "example.com/m/tt"

func S(t *tt.T) { t.Fatalf("s") }
-- shadow/s2.go --
package shadow

import "example.com/m/tt"

func S2(t *tt.T) { t.Fatalf("s2") }
-- shadow/v.go --
package shadow

var tt = 1
-- alias/al.go --
package alias

import x "example.com/m/tt"

func Al(t *x.T) { t.Fatalf("al") }
-- alias/al2.go --
package alias

import x "example.com/m/tt"

func Al2(t *x.T) { t.Fatalf("al2") }
-- local/l.go --
package local

type L struct{}

func (L) Fatalf(format string) {}

func One(l L) { l.Fatalf("1") }
-- local/m.go --
package local

func Two(l L) { l.Fatalf("2") }

func Three(l *L) { l.Fatalf("3") }
-- nested/n.go --
package nested

type L struct{}

func (L) Fatalf(string) {}

func One(l L) { l.Fatalf("1") }
-- nested/o.go --
package nested

func Two() {
	type L struct{ Fatalf func(string) }
	var l L
	l.Fatalf("2")
}

func Three(l L) { l.Fatalf("3") }
`

// Typed selectors whose type their folder settles are resolved one a
// group, and a group through an import settles that import's groups in
// other folders: no file of theirs is read whole. The answers stay those
// of resolving each candidate, before the pass and after it.
func TestTypedSelectorsSettledByGroup(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(typedSettledFixture)))
	workspace.ReadSpansFromFacts(t)
	spansRead := hearSpansRead(t, root)
	wholeReads := hearWholeReads(t, root)
	snap := snapshotOf(ws)
	fatalf := memberDef(t, snap, filepath.Join(root, "tt", "tt.go"), "Fatalf", "common")
	if got := snap.CertainReferences(fatalf); len(got) != 9 {
		t.Errorf("common.Fatalf: %d references %v; want the 9 on a T or a B", len(got), referenceKeys(got))
	}
	if whole := wholeReads(); btoi(whole["a/a_test.go"] > 0)+btoi(whole["a/b_test.go"] > 0)+btoi(whole["b/d_test.go"] > 0) > 1 {
		t.Errorf("read whole: %v; want one file of a's and b's groups of t.Fatalf", slices.Sorted(maps.Keys(whole)))
	}
	local := memberDef(t, snap, filepath.Join(root, "local", "l.go"), "Fatalf", "L")
	if got := snap.CertainReferences(local); len(got) != 3 {
		t.Errorf("local L.Fatalf: %d references %v; want 3", len(got), referenceKeys(got))
	}
	read := spansRead() // the two queries' settled files
	for _, want := range []string{"a/a_test.go", "a/b_test.go", "b/d_test.go", "local/m.go"} {
		if !read[want] {
			t.Errorf("%s: its references were resolved one by one; want them settled", want)
		}
	}
	for _, never := range []string{"shadow/s.go", "shadow/s2.go", "alias/al.go", "alias/al2.go", "local/l.go", "nested/o.go"} {
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
