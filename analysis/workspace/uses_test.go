package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage"
)

// openArchive writes a txtar archive into a fresh root and indexes it.
func openArchive(t *testing.T, ar *txtar.Archive) (*workspace.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	for _, f := range ar.Files {
		writeFile(t, root, f)
	}
	return openIndexed(t, root), root
}

// referenceKeys lists references as path@offset role conf uncertain
// ambiguous, sorted.
func referenceKeys(refs []resolve.Reference) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = fmt.Sprintf("%s@%d %d %.3f %v %v", filepath.Base(r.Ref.Path), r.Span.Start, r.Role, r.Confidence, r.Uncertain, r.Ambiguous)
	}
	slices.Sort(out)
	return out
}

// compareStoredReferences checks that every definition's references through
// a session snapshot (the stored uses, where they hold) are those the
// resolver finds by resolving every candidate reference, and returns how
// many definitions had any.
func compareStoredReferences(t *testing.T, ws *workspace.Workspace) int {
	t.Helper()
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	live := ws.Resolver()
	withRefs := 0
	for _, p := range snap.Files() {
		f := snap.File(p)
		for i := range f.Defs {
			def := resolve.DefID{Path: p, Index: int32(i)}
			got, want := referenceKeys(snap.References(def)), referenceKeys(live.References(def))
			if !slices.Equal(got, want) {
				t.Errorf("references of %s %s:\n got  %v\n want %v", f.Defs[i].Name, filepath.Base(p), got, want)
			}
			if len(want) > 0 {
				withRefs++
			}
		}
	}
	return withRefs
}

// The stored uses answer exactly as resolving does, on every resolution
// fixture, in every language.
func TestStoredUsesMatchResolution(t *testing.T) {
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		ws, _ := openArchive(t, ar)
		n, err := ws.ResolveUses(context.Background(), 0, nil)
		if err != nil || n == 0 {
			t.Fatalf("ResolveUses = %d, %v; want every file resolved", n, err)
		}
		if !ws.UsesHold() {
			t.Fatal("the stored uses do not hold right after a full pass")
		}
		if compareStoredReferences(t, ws) == 0 {
			t.Fatal("no definition has references: the fixture tests nothing")
		}
	})
}

const usesFixture = `
-- go.mod --
module example.com/m
-- shapes/shape.go --
package shapes

type Shape struct{ Sides int }

func (s Shape) Area() int { return s.Sides * 2 }

func New(n int) Shape { return Shape{Sides: n} }
-- use/use.go --
package use

import "example.com/m/shapes"

func Use() int {
	s := shapes.New(3)
	return s.Area() + s.Sides
}
-- use/more.go --
package use

import "example.com/m/shapes"

func More() int { return shapes.New(4).Area() }
`

func defIndex(t *testing.T, f *analysis.FileFacts, name string) int32 {
	t.Helper()
	for i, d := range f.Defs {
		if d.Name == name {
			return int32(i)
		}
	}
	t.Fatalf("no definition %s in %s", name, f.Path)
	return -1
}

// An edit inside a body keeps the stored uses of every other file; an edit
// of a declaration stops them until the next pass, which starts over.
func TestStoredUsesFollowEdits(t *testing.T) {
	ctx := context.Background()
	ws, root := openArchive(t, txtar.Parse([]byte(usesFixture)))
	if n, err := ws.ResolveUses(ctx, 0, nil); err != nil || n != 3 {
		t.Fatalf("first pass resolved %d files, %v; want 3", n, err)
	}
	if n, err := ws.ResolveUses(ctx, 0, nil); err != nil || n != 0 {
		t.Fatalf("a pass with nothing changed resolved %d files, %v; want 0", n, err)
	}
	compareStoredReferences(t, ws)

	// Queries read the stored rows: a use planted there is listed.
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	shapePath, morePath := filepath.Join(root, "shapes/shape.go"), filepath.Join(root, "use/more.go")
	area := resolve.DefID{Path: shapePath, Index: defIndex(t, snap.File(shapePath), "Area")}
	planted := storage.Use{Ref: 0, Span: snap.File(morePath).Refs[0].Span, Role: analysis.RoleRead, Confidence: 1}
	wr := ws.Index.NewUsesWriter()
	// Area is the third definition outside a body in shape.go (Shape, Sides, Area).
	if err := wr.Put(morePath, storage.UsesRecord{Hash: snap.File(morePath).Hash, Shape: 0},
		map[storage.UseTarget][]storage.Use{{Path: shapePath, Ordinal: 2}: {planted}}); err != nil {
		t.Fatal(err)
	}
	if err := wr.Flush(); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range snap.References(area) {
		found = found || r.Ref == (resolve.RefID{Path: morePath, Index: 0})
	}
	if !found {
		t.Fatal("a use planted in the stored rows is not listed: queries do not read them")
	}
	if n, err := ws.ResolveUses(ctx, 0, nil); err != nil || n != 0 {
		t.Fatalf("planting resolved %d files, %v", n, err)
	}
	// Put the real uses of more.go back.
	if err := ws.Index.ClearUses(); err != nil {
		t.Fatal(err)
	}
	if n, err := ws.ResolveUses(ctx, 0, nil); err != nil || n != 3 {
		t.Fatalf("the pass after clearing resolved %d files, %v; want 3", n, err)
	}
	compareStoredReferences(t, ws)
	edit := func(rel, old, new string) {
		t.Helper()
		p := filepath.Join(root, rel)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src = []byte(strings.Replace(string(src), old, new, 1))
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ws.Reindex(ctx, p, src, time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	// A new use inside a body: use.go is resolved at query time.
	edit("use/use.go", "return s.Area() + s.Sides", "x := s.Area()\n\treturn x + s.Area() + s.Sides")
	if !ws.UsesHold() {
		t.Fatal("a body edit stopped the stored uses")
	}
	compareStoredReferences(t, ws)
	if n, err := ws.ResolveUses(ctx, 0, nil); err != nil || n != 1 {
		t.Fatalf("after a body edit the pass resolved %d files, %v; want the edited one", n, err)
	}
	compareStoredReferences(t, ws)

	// A new method changes shapes.go's declarations.
	edit("shapes/shape.go", "func New(", "func (s Shape) Perimeter() int { return s.Sides }\n\nfunc New(")
	if ws.UsesHold() {
		t.Fatal("a declaration edit left the stored uses in use")
	}
	compareStoredReferences(t, ws)
	if n, err := ws.ResolveUses(ctx, 0, nil); err != nil || n != 3 {
		t.Fatalf("after a declaration edit the pass resolved %d files, %v; want all 3", n, err)
	}
	if !ws.UsesHold() {
		t.Fatal("the stored uses do not hold after the full pass")
	}
	compareStoredReferences(t, ws)

	// A removed file takes its declarations with it.
	if err := ws.Remove(filepath.Join(root, "use/more.go")); err != nil {
		t.Fatal(err)
	}
	if ws.UsesHold() {
		t.Fatal("a removed file left the stored uses in use")
	}
	compareStoredReferences(t, ws)
}

// A full pass stopped part way keeps what it stored: references answer
// from it (resolving only the candidates in the files it had not reached)
// exactly as resolving does, and the next pass resumes with the rest.
func TestStoppedPassIsResumed(t *testing.T) {
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		ws, _ := openArchive(t, ar)
		files, ferr := ws.Index.Files()
		if ferr != nil {
			t.Fatal(ferr)
		}
		total := len(files)
		ctx, cancel := context.WithCancel(context.Background())
		first, err := ws.ResolveUsesInBackground(ctx, 1, func(done, _ int) {
			if done == 1 {
				cancel()
			}
		})
		cancel()
		if total > 1 && err == nil {
			t.Fatalf("the stopped pass ended without error after %d of %d files", first, total)
		}
		compareStoredReferences(t, ws)
		rest, err := ws.ResolveUses(context.Background(), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first+rest != total {
			t.Errorf("the stopped pass did %d files and the next %d; want %d in all", first, rest, total)
		}
		if !ws.UsesHold() {
			t.Fatal("the stored uses do not hold after the resumed pass")
		}
		compareStoredReferences(t, ws)
	})
}
