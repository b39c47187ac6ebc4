package workspace_test

import (
	"cmp"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Package-qualified uses of top-level declarations settled by their
// hints, and those that must not be: in functions, a func literal and at
// the top level (plain scopes); in methods, through a package named like
// no member in the workspace (a variable elsewhere), and through one
// named like a field that the receiver's embedded type brings in from
// another package (Go names no member plainly: errs.Errorf there is the
// package's too), beside a file of the same folder (twice, the files'
// names swapped); a folder whose other file declares a variable named like the
// import (code that does not compile) beside its test package, where it
// is the import; a renamed import and a dot import; a file that
// dot-imports another package, whose names are exported, beside its
// lower-case import errs; a field named like an import in a struct type
// written in place, which no method's scope looks through. Beside them, what
// other queries reach: a method on a value a function returns, a method
// promoted through an embedded field, an interface method.
const settledFixture = `
-- go.mod --
module example.com/m
-- errs/errs.go --
package errs

func Errorf(format string) string { return format }

type Err struct{ Msg string }

func (e Err) Error() string { return e.Msg }

func New() Err { return Err{} }

type Wrapper struct{ Err }

type Reporter interface{ Report() string }
-- log/log.go --
package log

type Logger struct{}

func (Logger) Errorf(format string) string { return format }

type Holder struct{ errs Logger }
-- util/util.go --
package util

func Join(a, b string) string { return a + b }
-- plain/a.go --
package plain

import "example.com/m/errs"

func A() string { return errs.Errorf("a") + errs.Errorf("b") }

var V = errs.Errorf("v")
-- plain/b.go --
package plain

import "example.com/m/errs"

func B() string {
	f := func() string { return errs.Errorf("c") }
	return f() + errs.Errorf("d")
}
-- methods/a.go --
package methods

import "example.com/m/errs"

type T0 struct{}

func (T0) A() string { return errs.Errorf("c") + errs.Errorf("d") }
-- methods/m.go --
package methods

import (
	"example.com/m/errs"
	"example.com/m/log"
)

type S struct{ log.Holder }

func (s S) M() string { return errs.Errorf("a") + errs.Errorf("b") }
-- methods2/z.go --
package methods2

import "example.com/m/errs"

type T0 struct{}

func (T0) A() string { return errs.Errorf("c") + errs.Errorf("d") }
-- methods2/b.go --
package methods2

import (
	"example.com/m/errs"
	"example.com/m/log"
)

type S struct{ log.Holder }

func (s S) M() string { return errs.Errorf("a") + errs.Errorf("b") }
-- tables/t.go --
package tables

var Cases = []struct{ util string }{{util: "x"}}
-- methods/n.go --
package methods

import "example.com/m/util"

type T struct{}

func (T) N() string { return util.Join("a", "b") + util.Join("c", "d") }
-- shadowed/0_test.go --
package shadowed_test

import "example.com/m/errs"

func T() string { return errs.Errorf("c") + errs.Errorf("d") }
-- shadowed/a.go --
package shadowed

import "example.com/m/errs"

func A() string { return errs.Errorf("a") + errs.Errorf("b") }
-- shadowed/b.go --
package shadowed

import "example.com/m/log"

var errs = log.Logger{}
-- renamed/r.go --
package renamed

import e "example.com/m/errs"

var util = 1

func R() string { return e.Errorf("a") + e.Errorf("b") }
-- dot/d.go --
package dot

import . "example.com/m/errs"

func D() string { return Errorf("a") + Errorf("b") }
-- dotq/q.go --
package dotq

import (
	"example.com/m/errs"
	. "example.com/m/util"
)

func Q() string { return Join(errs.Errorf("a"), errs.Errorf("b")) }
-- values/v.go --
package values

import "example.com/m/errs"

func V(r errs.Reporter) string {
	return errs.New().Error() + errs.Wrapper{}.Error() + r.Report() + errs.Errorf("x") + errs.Errorf("y")
}
`

// Settling a group of selectors by resolving one of them gives every
// definition the references that resolving each gives, before the pass
// and after it; and it is what answered for the groups it may settle,
// never for those it may not.
func TestSettledReferencesEqualResolvingEach(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(settledFixture)))
	// The files whose spans are read are those settled: read from their
	// facts, not their postings (see TestSettledSpansFromPostings).
	workspace.ReadSpansFromFacts(t)
	spansRead := hearSpansRead(t, root)
	if certainBeforeAndAfter(t, ws) == 0 {
		t.Fatal("no definition has references")
	}
	read := spansRead()
	for _, want := range []string{"plain/a.go", "plain/b.go", "methods/n.go", "methods/a.go", "methods/m.go", "methods2/b.go", "methods2/z.go", "values/v.go", "dotq/q.go"} {
		if !read[want] {
			t.Errorf("%s: its references were resolved one by one; want them settled", want)
		}
	}
	for _, never := range []string{"shadowed/0_test.go", "shadowed/a.go", "renamed/r.go", "dot/d.go"} {
		if read[never] {
			t.Errorf("%s: its references were settled; want each resolved", never)
		}
	}
	// Whichever file a group starts with, the answer is resolving each.
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	path := filepath.Join(root, "errs", "errs.go")
	def := resolve.DefID{Path: path, Index: defIndex(t, snap.File(path), "Errorf")}
	ids := snap.Resolver().ReferenceCandidates(def, true)
	var want []resolve.Reference
	for _, id := range ids {
		if r, ok := snap.Resolver().ResolvesTo(id, def); ok {
			want = append(want, r)
		}
	}
	for _, order := range []int{1, -1} {
		ids := slices.Clone(ids)
		slices.SortFunc(ids, func(a, b resolve.RefID) int {
			return order * cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Index, b.Index))
		})
		if got := snap.Resolver().ReferencesAmong(def, ids, false); !slices.Equal(referenceKeys(got), referenceKeys(want)) {
			t.Errorf("Errorf's references, candidates in order %d:\n got  %v\n want %v", order, referenceKeys(got), referenceKeys(want))
		}
	}
	if t.Failed() {
		t.Logf("settled: %v", slices.Sorted(maps.Keys(read)))
	}
}

// The spans of settled references come with their postings: no file's
// facts are read for them, and the answers stay those of resolving each.
func TestSettledSpansFromPostings(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(settledFixture)))
	spansRead := hearSpansRead(t, root)
	if certainBeforeAndAfter(t, ws) == 0 {
		t.Fatal("no definition has references")
	}
	if read := spansRead(); len(read) > 0 {
		t.Errorf("settled references' spans read from the facts of %v; want them from their postings", slices.Sorted(maps.Keys(read)))
	}
}

// hearWholeReads counts, relative to root, the files a reference query
// reads whole; the returned function gives the counts so far.
func hearWholeReads(t *testing.T, root string) func() map[string]int {
	var mu sync.Mutex
	read := map[string]int{}
	workspace.HearWholeRead(t, func(path string) {
		rel, _ := filepath.Rel(root, path)
		mu.Lock()
		read[filepath.ToSlash(rel)]++
		mu.Unlock()
	})
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(read)
	}
}

// hearSpansRead records, relative to root, the files whose references'
// spans a query reads; the returned function gives those heard so far.
func hearSpansRead(t *testing.T, root string) func() map[string]bool {
	var mu sync.Mutex
	read := map[string]bool{}
	workspace.HearSpansRead(t, func(path string, n int) {
		rel, _ := filepath.Rel(root, path)
		mu.Lock()
		read[filepath.ToSlash(rel)] = true
		mu.Unlock()
	})
	return func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(read)
	}
}
