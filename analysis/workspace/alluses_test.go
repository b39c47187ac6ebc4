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
