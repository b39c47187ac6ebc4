package workspace_test

import (
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// A field and an interface method of one name, selected on parameters and
// locals of written types: the type itself, one embedding it, types
// declared as it (defined and alias), an interface embedding the
// interface, a type parameter, unrelated types, a slice of the type
// (declared as []Prog: no member of Prog's), a parameter shadowed by a
// local of another type, types spelled by a value (an assertion, a
// literal) and by a type switch's clause. Another package declares a
// Prog of its own, a type embedding it and one declared as it, and embeds
// pos.Prog.
const memberHintsFixture = `
-- go.mod --
module example.com/m
-- pos/pos.go --
package pos

type Prog struct {
	Pos  int
	Next *Prog
}

type Node interface{ Pos() int }

type Wrapped struct{ *Prog }

type Named Prog

type Alias = Prog

type Iface interface{ Node }

type Other struct{ Pos int }

type List []Prog
-- use/use.go --
package use

import "example.com/m/pos"

func Fields(p *pos.Prog, w pos.Wrapped, n pos.Named, a pos.Alias, o pos.Other, nd pos.Node, i pos.Iface) int {
	return p.Pos + w.Pos + n.Pos + a.Pos + o.Pos + nd.Pos() + i.Pos()
}

func Generic[T pos.Node](t T) int { return t.Pos() }

func Shadowed(q pos.Other) int {
	{
		q := &pos.Prog{}
		return q.Pos
	}
}

func Later(o pos.Other) int {
	x := o.Pos
	var y pos.Prog
	return x + y.Pos
}

func Asserted(n pos.Node) int {
	pa := n.(*pos.Prog)
	return pa.Pos
}

func Listed(l pos.List) int { return l.Pos }

func Switched(sw pos.Node) int {
	switch sw := sw.(type) {
	case *pos.Other:
		return sw.Pos
	case *pos.Prog, *pos.Wrapped:
		return sw.Pos()
	}
	return 0
}
-- far/far.go --
package far

import "example.com/m/pos"

type Prog struct{ Pos int }

type Holder struct{ Prog }

type Same = Prog

type Wrapped struct{ *pos.Prog }

func Far(h Holder, s Same, w Wrapped) int { return h.Pos + s.Pos + w.Pos }
`

// A Go field's or method's candidate references leave out the selectors
// whose qualifier's written type cannot carry it, before any file is
// decoded, and the answers stay those of resolving every candidate.
func TestCertainMemberReferencesPrunedByTypes(t *testing.T) {
	ws, root, snap := openSnapshot(t, memberHintsFixture)
	path := filepath.Join(root, "pos", "pos.go")
	member := func(name, in string) resolve.DefID { return memberDef(t, snap, path, name, in) }
	for _, c := range []struct {
		owner string
		want  []string // the qualifiers of the candidates left to resolve
	}{
		// Other's Pos and the interfaces' are not Prog's; the type
		// parameter and the clause of two types are left to the resolver.
		{"Prog", []string{"a", "n", "p", "pa", "q", "sw", "t", "w", "y"}},
		{"Node", []string{"i", "nd", "sw", "t"}},
		{"Other", []string{"o", "o", "sw", "sw", "t"}},
	} {
		var got []string
		for _, id := range snap.Resolver().ReferenceCandidates(member("Pos", c.owner), true) {
			if filepath.Base(id.Path) == "use.go" {
				got = append(got, snap.File(id.Path).Refs[id.Index].Qualifier)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s.Pos: candidates on %q; want %q", c.owner, got, c.want)
		}
	}
	// far's Holder and Same carry far.Prog's Pos, not pos.Prog's.
	var far []string
	for _, id := range snap.Resolver().ReferenceCandidates(member("Pos", "Prog"), true) {
		if filepath.Base(id.Path) == "far.go" {
			far = append(far, snap.File(id.Path).Refs[id.Index].Qualifier)
		}
	}
	if !slices.Equal(far, []string{"w"}) {
		t.Errorf("pos.Prog.Pos: candidates in far.go on %q; want [w]", far)
	}
	if n := certainBeforeAndAfter(t, ws); n == 0 {
		t.Fatal("no definition has references")
	}
}

// A field named like package-level variables that other packages select
// through their imports (base.Pos beside obj.Prog's Pos): each folder's
// group of such selectors is ruled out by resolving one of them, and the
// other files of the group are not read whole.
const settledMemberFixture = `
-- go.mod --
module example.com/m
-- obj/obj.go --
package obj

type Prog struct{ Pos int }

var Pos = 1
-- user/a.go --
package user

import "example.com/m/obj"

func A() int { return obj.Pos }
-- user/b.go --
package user

import "example.com/m/obj"

func B() int { return obj.Pos + 1 }
-- user/c.go --
package user

import "example.com/m/obj"

func C(p *obj.Prog) int { return obj.Pos + p.Pos }
`

func TestCertainMemberReferencesSettledByGroup(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(settledMemberFixture)))
	wholeReads := hearWholeReads(t, root)
	snap := snapshotOf(ws)
	got := snap.CertainReferences(memberDef(t, snap, filepath.Join(root, "obj", "obj.go"), "Pos", "Prog"))
	if len(got) != 1 || filepath.Base(got[0].Ref.Path) != "c.go" {
		t.Errorf("Prog.Pos: %v; want p.Pos in user/c.go alone", got)
	}
	// c.go is read for p.Pos; of a.go and b.go, one settles obj.Pos.
	if read := wholeReads(); read["user/a.go"] > 0 && read["user/b.go"] > 0 {
		t.Errorf("read whole: %v; want one of user/a.go and user/b.go", read)
	}
	if n := certainBeforeAndAfter(t, ws); n == 0 {
		t.Fatal("no definition has references")
	}
}

// A field and a method named like the function and variable of a package
// importing theirs, which it names bare, and bare inside a method of a
// type embedding their owner and of a type that does not.
const bareMemberFixture = `
-- go.mod --
module example.com/m
-- pos/pos.go --
package pos

type Prog struct{ Pos int }

func (p *Prog) Run() int { return p.Pos }
-- other/other.go --
package other

import "example.com/m/pos"

var Pos = 1

var _ pos.Prog

func Run() int { return Pos }

func Use() int {
	f := func() int { return Run() + Pos }
	return Run() + f()
}
-- embed/embed.go --
package embed

import "example.com/m/pos"

type W struct{ *pos.Prog }

func (w W) Both() int { return Pos + Run() }

var Pos = 2

func Run() int { return 3 }
-- embed/v.go --
package embed

type V struct{}

func (v V) Neither() int { return Pos + Run() }
`

// Bare references to a name are no candidates for a Go field or method
// of that name, even inside a method of a type that embeds its owner: Go
// names no member plainly.
func TestCertainMemberReferencesSkipPlainBareNames(t *testing.T) {
	ws, root, snap := openSnapshot(t, bareMemberFixture)
	path := filepath.Join(root, "pos", "pos.go")
	for _, name := range []string{"Pos", "Run"} {
		def := memberDef(t, snap, path, name, "Prog")
		var bare []string
		for _, id := range snap.Resolver().ReferenceCandidates(def, true) {
			if snap.File(id.Path).Refs[id.Index].Qualifier == "" {
				rel, _ := filepath.Rel(root, id.Path)
				bare = append(bare, filepath.ToSlash(rel))
			}
		}
		if len(bare) != 0 {
			t.Errorf("%s: bare candidates in %q; want none", name, bare)
		}
	}
	if n := certainBeforeAndAfter(t, ws); n == 0 {
		t.Fatal("no definition has references")
	}
}

// openSnapshot opens a fixture as a workspace, and a snapshot of it.
func openSnapshot(t *testing.T, fixture string) (*workspace.Workspace, string, *workspace.Snapshot) {
	ws, root := openArchive(t, txtar.Parse([]byte(fixture)))
	return ws, root, snapshotOf(ws)
}

func snapshotOf(ws *workspace.Workspace) *workspace.Snapshot {
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	return sess.Snapshot(nil)
}

// memberDef is the field or method name of type in declared in the file at
// path: inside the type, or as a method on it.
func memberDef(t *testing.T, snap *workspace.Snapshot, path, name, in string) resolve.DefID {
	t.Helper()
	f := snap.File(path)
	for i, d := range f.Defs {
		owner := resolve.BaseTypeName(d.Receiver)
		if d.Container >= 0 {
			owner = f.Defs[d.Container].Name
		}
		if d.Name == name && (d.Kind == analysis.KindField || d.Kind == analysis.KindMethod) && owner == in {
			return resolve.DefID{Path: path, Index: int32(i)}
		}
	}
	t.Fatalf("no %s.%s in the fixture", in, name)
	return resolve.DefID{}
}
