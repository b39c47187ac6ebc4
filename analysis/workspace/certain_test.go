package workspace_test

import (
	"context"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// certainKeys lists the certain references among refs, as referenceKeys.
func certainKeys(refs []resolve.Reference) []string {
	var certain []resolve.Reference
	for _, r := range refs {
		if !r.Uncertain {
			certain = append(certain, r)
		}
	}
	return referenceKeys(certain)
}

// certainBeforeAndAfter checks that the certain references of every
// definition are the same before the pass (pruned resolution), after it
// (stored uses) and by resolving every candidate, and returns how many
// definitions had any.
func certainBeforeAndAfter(t *testing.T, ws *workspace.Workspace) int {
	t.Helper()
	snapshot := func() *workspace.Snapshot {
		sess := workspace.NewSession() // nothing remembered from another
		sess.AddRoot(ws)
		return sess.Snapshot(nil)
	}
	type answer struct{ before, live []string }
	answers := map[resolve.DefID]answer{}
	snap := snapshot()
	for _, p := range snap.Files() {
		for i := range snap.File(p).Defs {
			def := resolve.DefID{Path: p, Index: int32(i)}
			if !resolve.IsPredeclared(snap, def) {
				answers[def] = answer{certainKeys(snap.CertainReferences(def)), certainKeys(ws.Resolver().References(def))}
			}
		}
	}
	if n, err := ws.ResolveUses(context.Background(), 0, nil); err != nil || n == 0 || !ws.UsesHold() {
		t.Fatalf("ResolveUses = %d, %v; want every file resolved and the uses holding", n, err)
	}
	after := snapshot()
	withRefs := 0
	for def, a := range answers {
		got := certainKeys(after.CertainReferences(def))
		if !slices.Equal(a.before, a.live) || !slices.Equal(got, a.live) {
			t.Errorf("certain references of %s#%d:\n before the pass %v\n after it        %v\n resolving all   %v",
				filepath.Base(def.Path), def.Index, a.before, got, a.live)
		}
		if len(a.live) > 0 {
			withRefs++
		}
	}
	return withRefs
}

// On every resolution fixture, navigation's references are the same
// before the reference pass as after it.
func TestCertainReferencesBeforeAndAfterThePass(t *testing.T) {
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		ws, _ := openArchive(t, ar)
		if certainBeforeAndAfter(t, ws) == 0 {
			t.Fatal("no definition has references: the fixture tests nothing")
		}
	})
}

// Two packages whose paths end alike, a method reached through a package
// that does not name its type, a dot import, a package imported by tests
// only, and a same-named method where nothing imports its package.
const pruneFixture = `
-- go.mod --
module example.com/m
-- internal/abi/abi.go --
package abi

func Size() int { return 1 }
-- cmd/internal/abi/abi.go --
package abi

func Size() int { return 2 }
-- user/user.go --
package user

import "example.com/m/internal/abi"

func Use() int { return abi.Size() }
-- tool/tool.go --
package tool

import "example.com/m/cmd/internal/abi"

func Use() int { return abi.Size() }
-- shapes/shape.go --
package shapes

type Shape struct{ Sides int }

func (s Shape) Area() int { return helper(s.Sides) }

func helper(n int) int { return n * 2 }

func New(n int) Shape { return Shape{Sides: n} }
-- mid/mid.go --
package mid

import "example.com/m/shapes"

func Make() shapes.Shape { return shapes.New(3) }
-- top/top.go --
package top

import "example.com/m/mid"

func Top() int { return mid.Make().Area() }
-- dot/dot.go --
package dot

import . "example.com/m/shapes"

func Dot() int { return New(2).Area() }
-- tonly/tonly.go --
package tonly

func F() int { return 0 }
-- tonly/tonly_test.go --
package tonly

import "example.com/m/shapes"

func check() int { return shapes.New(1).Area() }
-- far/far.go --
package far

import "example.com/m/tonly"

type Thing struct{}

func (Thing) Area() int { return helper() + tonly.F() }

func helper() int { return 1 }

func Far() int { return Thing{}.Area() }
`

// Pruning leaves out the files that cannot import a definition's package,
// and the answers stay those of resolving every candidate.
func TestCertainReferencesPruneFilesThatCannotImport(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(pruneFixture)))
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	files := func(ids []resolve.RefID) []string {
		var out []string
		for _, id := range ids {
			rel, _ := filepath.Rel(root, id.Path)
			out = append(out, filepath.ToSlash(rel))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, c := range []struct {
		file, name string
		want       []string // the files whose references are resolved
	}{
		{"shapes/shape.go", "Area", []string{"dot/dot.go", "tonly/tonly_test.go", "top/top.go"}},
		{"far/far.go", "Area", []string{"far/far.go"}},
		{"internal/abi/abi.go", "Size", []string{"user/user.go"}},
		{"cmd/internal/abi/abi.go", "Size", []string{"tool/tool.go"}},
		{"shapes/shape.go", "helper", []string{"shapes/shape.go"}},
	} {
		path := filepath.Join(root, filepath.FromSlash(c.file))
		def := resolve.DefID{Path: path, Index: defIndex(t, snap.File(path), c.name)}
		r := snap.Resolver()
		all, pruned := files(r.ReferenceCandidates(def, false)), files(r.ReferenceCandidates(def, true))
		if !slices.Equal(pruned, c.want) {
			t.Errorf("%s %s: resolves references in %v (of %v); want %v", c.file, c.name, pruned, all, c.want)
		}
		if len(all) <= len(pruned) {
			t.Errorf("%s %s: nothing pruned from %v", c.file, c.name, all)
		}
	}
	if n := certainBeforeAndAfter(t, ws); n == 0 {
		t.Fatal("no definition has references")
	}
}

// A copy of the module cache: folders named path@version, no go.mod. An
// import of "github.com/x/loc" names the folder loc@v0.1.0, not the
// standard library's folder of the same name nearer the root.
const moduleCacheFixture = `
-- mod/github.com/x/loc@v0.1.0/rules.go --
package loc

type Rule int

func Doc() {}
-- mod/github.com/x/loc@v0.1.0/af/af.go --
package af

import "github.com/x/loc"

var rules []loc.Rule
-- mod/github.com/y/tool@v1.0.0/build/build.go --
package build

func Doc() {}
-- mod/github.com/y/tool@v1.0.0/ex/ex.go --
package ex

import . "github.com/y/tool/build"

func F() { Doc() }
-- std/go/build/build.go --
package build

func Doc() {}
-- std/go/user/user.go --
package user

import "go/build"

func F() { build.Doc() }
-- mod/github.com/z/sdk/v3@v3.1.0/err.go --
package sdk

type Error struct{}

func (e *Error) Error() string { return "" }
-- mod/github.com/z/sdk/v3@v3.1.0/conv/conv_test.go --
package conv

import "github.com/z/sdk/v3"

func check(e *sdk.Error) string { return e.Error() }
-- mod/github.com/w/store@v1.0.0/store.go --
package store

import zfs "github.com/other/zfs/v3"

func check(err error) bool { _, ok := err.(*zfs.Error); return ok }
`

// Before the pass, a definition in the module cache has the references of
// its importers, found by their folders' names without the @version; an
// import of another module whose path ends in the same major version
// (zfs/v3) is none of them.
func TestCertainReferencesInTheModuleCache(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(moduleCacheFixture)))
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	for _, c := range []struct {
		file, name, user string
	}{
		{"mod/github.com/x/loc@v0.1.0/rules.go", "Rule", "mod/github.com/x/loc@v0.1.0/af/af.go"},
		{"mod/github.com/y/tool@v1.0.0/build/build.go", "Doc", "mod/github.com/y/tool@v1.0.0/ex/ex.go"},
		{"std/go/build/build.go", "Doc", "std/go/user/user.go"},
		{"mod/github.com/z/sdk/v3@v3.1.0/err.go", "Error", "mod/github.com/z/sdk/v3@v3.1.0/conv/conv_test.go"},
	} {
		file := filepath.Join(root, filepath.FromSlash(c.file))
		def := resolve.DefID{Path: file, Index: defIndex(t, snap.File(file), c.name)}
		var users []string
		for _, r := range snap.CertainReferences(def) {
			rel, _ := filepath.Rel(root, r.Ref.Path)
			users = append(users, filepath.ToSlash(rel))
		}
		if !slices.Contains(users, c.user) || slices.ContainsFunc(users, func(u string) bool { return path.Dir(u) != path.Dir(c.user) && path.Dir(u) != path.Dir(c.file) }) {
			t.Errorf("%s %s: certain references in %v; want those of %s", c.file, c.name, users, c.user)
		}
	}
	certainBeforeAndAfter(t, ws)
}
