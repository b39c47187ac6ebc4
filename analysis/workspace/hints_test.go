package workspace_test

import (
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Package-qualified names, a renamed import, an import renamed like
// another package, a dot import, a local variable named like an import,
// a method of the same name called on values, a same-named function of
// another package called bare, and a package named without its import
// (code that does not compile, which the resolver still follows).
const hintsFixture = `
-- go.mod --
module example.com/m
-- errs/errs.go --
package errs

func Errorf(format string) string { return format }

const Size = 4

func size() int { return 4 }
-- log/log.go --
package log

func Errorf(format string) string { return format }

type Logger struct{}

func (Logger) Errorf(format string) string { return format }
-- plain/plain.go --
package plain

import (
	"example.com/m/errs"
	"example.com/m/log"
)

func Use(l log.Logger) string { return errs.Errorf("a") + l.Errorf("b") + log.Errorf("c") }

func Size() int { return errs.Size }
-- renamed/renamed.go --
package renamed

import (
	e "example.com/m/errs"
	errs "example.com/m/log"
)

func Use() string { return e.Errorf("a") + errs.Errorf("b") }
-- dot/dot.go --
package dot

import (
	. "example.com/m/errs"
	"example.com/m/log"
)

func Use() string { return Errorf("a") + log.Errorf("b") + string(rune(size())) }

func size() int { return 1 }
-- shadow/shadow.go --
package shadow

import (
	"example.com/m/errs"
	"example.com/m/log"
)

func Use() string {
	first := errs.Errorf("a")
	errs := log.Logger{}
	return first + errs.Errorf("b")
}
-- other/other.go --
package other

import "example.com/m/errs"

func Errorf(format string) string { return format }

func Use() string { return Errorf("a") + errs.Errorf("b") }

func Size() int { return len(errs.Errorf("c")) }
-- noimport/a.go --
package noimport

import "example.com/m/errs"

func A() string { return errs.Errorf("a") }
-- noimport/b.go --
package noimport

func B() string { return errs.Errorf("b") }
-- values/values.go --
package values

import "example.com/m/log"

func Use(l log.Logger) string { return l.Errorf("a") }
`

// A top-level declaration's candidate references are pruned by the hints
// stored with the reference postings, before any file is decoded, and
// navigation's answers stay those of resolving every candidate.
func TestCertainReferencesPrunedByHints(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(hintsFixture)))
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	at := func(ids []resolve.RefID) []string {
		var out []string
		for _, id := range ids {
			rel, _ := filepath.Rel(root, id.Path)
			ref := snap.File(id.Path).Refs[id.Index]
			out = append(out, filepath.ToSlash(rel)+" "+ref.Qualifier+"."+ref.Name)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, c := range []struct {
		file, name string
		want       []string // the references left to resolve
	}{
		{"errs/errs.go", "Errorf", []string{
			"dot/dot.go .Errorf", // a dot import: bare names may be the package's
			"noimport/a.go errs.Errorf",
			"noimport/b.go errs.Errorf",  // by its package's name
			"other/other.go errs.Errorf", // not other's own Errorf, called bare
			"plain/plain.go errs.Errorf",
			"renamed/renamed.go e.Errorf",    // renamed
			"renamed/renamed.go errs.Errorf", // log's, but named like errs: left to the resolver
			"shadow/shadow.go errs.Errorf",   // both: the local errs is left to the resolver
		}},
		{"errs/errs.go", "Size", []string{"plain/plain.go errs.Size"}}, // not plain's own Size
		// A dot import brings in exported names only: dot's size() is its own.
		{"errs/errs.go", "size", nil},
		{"log/log.go", "Errorf", []string{
			"dot/dot.go log.Errorf", // not .Errorf: dot/dot.go dot-imports errs, not log
			"plain/plain.go log.Errorf",
			"renamed/renamed.go errs.Errorf", // errs names log's package here
		}},
	} {
		path := filepath.Join(root, filepath.FromSlash(c.file))
		def := resolve.DefID{Path: path, Index: defIndex(t, snap.File(path), c.name)}
		got := at(snap.Resolver().ReferenceCandidates(def, true))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: resolves %q; want %q", c.file, c.name, got, c.want)
		}
	}
	// The method keeps every candidate its package's importers hold:
	// hints settle top-level declarations only.
	path := filepath.Join(root, "log", "log.go")
	f := snap.File(path)
	method := int32(-1)
	for i, d := range f.Defs {
		if d.Name == "Errorf" && d.Receiver != "" {
			method = int32(i)
		}
	}
	if got := at(snap.Resolver().ReferenceCandidates(resolve.DefID{Path: path, Index: method}, true)); !slices.Contains(got, "values/values.go l.Errorf") {
		t.Errorf("Logger.Errorf: resolves %q; want l.Errorf among them", got)
	}
	if n := certainBeforeAndAfter(t, ws); n == 0 {
		t.Fatal("no definition has references")
	}
}
