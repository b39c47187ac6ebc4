package workspace_test

import (
	"context"
	"errors"
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
)

func useKey(def resolve.DefID, ref resolve.Reference) string {
	return fmt.Sprintf("%s#%d ← %s", filepath.Base(def.Path), def.Index, referenceKeys([]resolve.Reference{ref})[0])
}

// allUses lists every use EachUse reports, sorted.
func allUses(t *testing.T, ws *workspace.Workspace) []string {
	t.Helper()
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	var out []string
	err := sess.Snapshot(nil).EachUse(context.Background(), nil, func(def resolve.DefID, ref resolve.Reference) {
		out = append(out, useKey(def, ref))
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// resolvedUses lists every use a fresh resolver finds, file by file, sorted.
func resolvedUses(ws *workspace.Workspace) []string {
	var out []string
	r := ws.Resolver()
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	for _, p := range sess.Snapshot(nil).Files() {
		r.FileUses(p, func(def resolve.DefID, ref resolve.Reference) { out = append(out, useKey(def, ref)) })
	}
	slices.Sort(out)
	return out
}

// EachUse reports the same uses from the stored rows (a body edit since
// resolved at query time) as by resolving every file.
func TestEachUseStoredMatchesResolved(t *testing.T) {
	ctx := context.Background()
	ws, root := openArchive(t, txtar.Parse([]byte(usesFixture)))
	resolved := resolvedUses(ws)
	if got := allUses(t, ws); !slices.Equal(got, resolved) {
		t.Fatalf("before any pass:\n got  %v\n want %v", got, resolved)
	}
	if len(resolved) < 5 {
		t.Fatalf("too few uses to compare: %v", resolved)
	}
	if _, err := ws.ResolveUses(ctx, 0, nil); err != nil || !ws.UsesHold() {
		t.Fatalf("pass: %v, hold %v", err, ws.UsesHold())
	}
	if got := allUses(t, ws); !slices.Equal(got, resolved) {
		t.Fatalf("from stored uses:\n got  %v\n want %v", got, resolved)
	}

	p := filepath.Join(root, "use/use.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "return s.Area() + s.Sides", "return s.Area() + s.Area() + s.Sides", 1))
	if err := ws.Reindex(ctx, p, src, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !ws.UsesHold() {
		t.Fatal("a body edit stopped the stored uses")
	}
	stored, now := allUses(t, ws), resolvedUses(ws)
	if !slices.Equal(stored, now) || len(now) != len(resolved)+1 {
		t.Fatalf("after a body edit, stored and resolved differ:\n stored   %v\n resolved %v", stored, now)
	}
}

// A cancelled EachUse reports nothing and returns the context's error,
// from the stored uses and by resolving alike.
func TestEachUseCancelled(t *testing.T) {
	ws, _ := openArchive(t, txtar.Parse([]byte(usesFixture)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, stored := range []bool{false, true} {
		if stored {
			if _, err := ws.ResolveUses(context.Background(), 0, nil); err != nil {
				t.Fatal(err)
			}
		}
		sess := workspace.NewSession()
		sess.AddRoot(ws)
		n := 0
		err := sess.Snapshot(nil).EachUse(ctx, nil, func(resolve.DefID, resolve.Reference) { n++ })
		if !errors.Is(err, context.Canceled) || n > 0 {
			t.Errorf("stored %v: %d uses, err %v; want none and context.Canceled", stored, n, err)
		}
	}
}

// The pass's stored uses are exactly what a fresh resolver with no budget
// finds file by file, on every resolution fixture, with the pass's shared
// memos as large as in production and shrunk until they evict at every
// read, and with more workers than files.
func TestPassUsesEqualUncachedResolution(t *testing.T) {
	for _, shrunk := range []bool{false, true} {
		t.Run(fmt.Sprintf("shrunk=%v", shrunk), func(t *testing.T) {
			if shrunk {
				workspace.ShrinkPassBudgets(t)
			}
			eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
				ws, _ := openArchive(t, ar)
				want := resolvedUses(ws)
				if _, err := ws.ResolveUses(context.Background(), 4, nil); err != nil || !ws.UsesHold() {
					t.Fatalf("pass: %v, hold %v", err, ws.UsesHold())
				}
				if got := allUses(t, ws); !slices.Equal(got, want) {
					t.Fatalf("stored uses differ from resolution:\n got  %v\n want %v", got, want)
				}
			})
		})
	}
}

// A pass crosses into a Go file through its declarations table: every
// definition at its index, locals as place holders, without the references
// and doc comments that make most of the whole facts. Another language's file is read whole.
func TestPassCrossesIntoGoFilesThroughDeclarations(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(usesFixture+"-- use/doc.go --\npackage use\n\n// Doc says why.\nfunc Doc() int { return More() + Use() }\n-- py/m.py --\ndef f():\n    return g()\n")))
	locals := 0
	for _, name := range []string{"use/use.go", "use/doc.go"} {
		p := filepath.Join(root, name)
		whole, err := ws.Index.Facts(p)
		crossed := ws.PassCrossedFacts(p)
		if err != nil || crossed == nil || len(whole.Refs) == 0 {
			t.Fatalf("%s: whole %v, crossed %v", name, whole, crossed)
		}
		if len(crossed.Refs) != 0 || len(crossed.Defs) != len(whole.Defs) || crossed.Hash != whole.Hash {
			t.Errorf("%s crossed: %d refs, %d defs; want none of the %d refs and all %d defs", name,
				len(crossed.Refs), len(crossed.Defs), len(whole.Refs), len(whole.Defs))
		}
		for i, d := range whole.Defs {
			d.Doc = ""
			if resolve.DeclaredInBody(whole, int32(i)) && d.Kind != analysis.KindParameter && d.Kind != analysis.KindTypeParameter {
				locals++
				d = analysis.Def{Kind: d.Kind, Container: d.Container, Scope: d.Scope}
			}
			if crossed.Defs[i] != d {
				t.Errorf("%s def %d crossed as %+v, want %+v", name, i, crossed.Defs[i], d)
			}
		}
	}
	if locals == 0 {
		t.Error("no local in the fixture: the test would not see them left out")
	}
	if f, _ := ws.Index.Facts(filepath.Join(root, "use/doc.go")); f == nil || !slices.ContainsFunc(f.Defs, func(d analysis.Def) bool { return d.Doc != "" }) {
		t.Error("the fixture's doc comment was not extracted: the test would not see it dropped")
	}
	py := filepath.Join(root, "py/m.py")
	if crossed := ws.PassCrossedFacts(py); crossed == nil || len(crossed.Refs) == 0 {
		t.Errorf("a Python file crossed into: %+v, want its whole facts", crossed)
	}
}
