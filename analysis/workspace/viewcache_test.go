package workspace_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// A refresh that changes one file keeps what the view decoded of the
// others (a cold open's indexing refreshes the view every second) and
// serves the changed file's new facts and top-level definitions.
func TestViewKeepsUnchangedFilesAcrossRefresh(t *testing.T) {
	root, a, b := twoGoFiles(t)
	ws := openIndexed(t, root)
	snapshot := func() *workspace.Snapshot {
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		return sess.Snapshot(nil)
	}
	names := func(defs []workspace.TopLevelDef) []string {
		var out []string
		for _, d := range defs {
			out = append(out, d.Name)
		}
		return out
	}
	before := snapshot()
	fa, fb := before.File(a), before.File(b)
	if fa == nil || fb == nil {
		t.Fatal("the files are not indexed")
	}
	if got := names(before.TopLevel(b)); !slices.Equal(got, []string{"B"}) {
		t.Fatalf("b's top-level definitions = %v, want [B]", got)
	}
	if err := os.WriteFile(b, []byte("package p\n\nfunc B2() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	after := snapshot()
	if after.File(a) != fa {
		t.Error("a's facts were decoded again though a did not change")
	}
	if g := after.File(b); g == fb || g == nil || len(g.Defs) == 0 || g.Defs[0].Name != "B2" {
		t.Errorf("b's facts after the change: %+v; want B2's", g)
	}
	if got := names(after.TopLevel(b)); !slices.Equal(got, []string{"B2"}) {
		t.Errorf("b's top-level definitions after the change = %v, want [B2]", got)
	}
	if got := names(after.TopLevel(a)); !slices.Equal(got, []string{"A"}) {
		t.Errorf("a's top-level definitions = %v, want [A]", got)
	}
}

// A Go file's top-level definitions, read from its declarations table, are
// those of its whole facts, on every resolution fixture.
func TestTopLevelFromDeclarationsTables(t *testing.T) {
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		ws, _ := openArchive(t, ar)
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		snap := sess.Snapshot(nil)
		for _, p := range snap.Files() {
			got := snap.TopLevel(p) // before the whole facts are read and cached
			var want []workspace.TopLevelDef
			for i, d := range snap.File(p).Defs {
				if d.Container == analysis.None {
					want = append(want, workspace.TopLevelDef{Index: int32(i), Name: d.Name, Kind: d.Kind,
						Detail: cmp.Or(d.Signature, d.TypeName), Receiver: resolve.BaseTypeName(d.Receiver)})
				}
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%s:\n got  %+v\n want %+v", filepath.Base(p), got, want)
			}
		}
	})
}

// TopLevels answers as TopLevel does, file by file: on every resolution
// fixture, and across a refresh that changed one file of two (the other's
// cached list is served again, the changed one's read anew).
func TestTopLevelsAnswersAsTopLevel(t *testing.T) {
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		ws, _ := openArchive(t, ar)
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		files := sess.Snapshot(nil).Files()
		got := sess.Snapshot(nil).TopLevels(files)
		one := sess.Snapshot(nil)
		for i, p := range files {
			if want := one.TopLevel(p); !slices.Equal(got[i], want) {
				t.Errorf("%s:\n got  %+v\n want %+v", filepath.Base(p), got[i], want)
			}
		}
	})

	root, a, b := twoGoFiles(t)
	ws := openIndexed(t, root)
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	first := sess.Snapshot(nil).TopLevels([]string{a, b, filepath.Join(root, "missing.go")})
	if len(first[0]) != 1 || first[0][0].Name != "A" || len(first[1]) != 1 || first[1][0].Name != "B" || first[2] != nil {
		t.Fatalf("top-level definitions of a, b, missing = %+v", first)
	}
	if err := os.WriteFile(b, []byte("package p\n\nfunc B2() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	after := sess.Snapshot(nil).TopLevels([]string{a, b})
	if len(after[0]) != 1 || &after[0][0] != &first[0][0] {
		t.Errorf("a's list was read again though a did not change: %+v", after[0])
	}
	if len(after[1]) != 1 || after[1][0].Name != "B2" {
		t.Errorf("b's top-level definitions after the change = %+v, want B2", after[1])
	}
}

// twoGoFiles writes a.go and b.go, declaring A and B in package p, into a
// new root.
func twoGoFiles(t *testing.T) (root, a, b string) {
	root = t.TempDir()
	a, b = filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	for p, src := range map[string]string{a: "package p\n\nfunc A() {}\n", b: "package p\n\nfunc B() {}\n"} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, a, b
}
