package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// While a full reference pass runs, the query caches of facts keep a
// third of their budgets, and afterwards all of them again; a pass shares
// 40 MB of facts within the memory limit's floor and more as the limit
// may rise with the workspace.
func TestCachesAreLeanDuringAFullPass(t *testing.T) {
	w := indexedTwoPackages(t)
	roots := []*Workspace{w}
	if got := factsBudget(roots, snapshotFactsBytes); got != snapshotFactsBytes || w.view.cacheBudget() != maxCachedFactsBytes {
		t.Fatalf("before the pass: budgets %d and %d, want the full ones", got, w.view.cacheBudget())
	}
	var during []int64
	passPicked = func(string) { during = append(during, factsBudget(roots, sharedFactsBytes), w.view.cacheBudget()) }
	t.Cleanup(func() { passPicked = nil })
	if _, err := w.ResolveUses(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if len(during) == 0 {
		t.Fatal("the pass took no file")
	}
	if during[0] != sharedFactsBytes/leanShare || during[1] != maxCachedFactsBytes/leanShare {
		t.Errorf("during the pass: budgets %v, want a third of %d and %d", during[:2], sharedFactsBytes, maxCachedFactsBytes)
	}
	if got := factsBudget(roots, snapshotFactsBytes); got != snapshotFactsBytes || w.view.cacheBudget() != maxCachedFactsBytes {
		t.Errorf("after the pass: budgets %d and %d, want the full ones", got, w.view.cacheBudget())
	}
	if got := passFactsBudget(6000); got != passLeanFacts {
		t.Errorf("pass facts within the floor: %d, want %d", got, passLeanFacts)
	}
	if got := passFactsBudget(30000); got != passBudget.facts {
		t.Errorf("pass facts at ten million lines: %d, want %d", got, passBudget.facts)
	}
}

// indexedTwoPackages returns an indexed workspace in memory of two
// packages: a declares A, which b/b.go calls on line 5, column 14.
func indexedTwoPackages(t *testing.T) *Workspace {
	t.Helper()
	root := t.TempDir()
	for name, text := range map[string]string{"a/a.go": "package a\n\nfunc A() {}\n", "b/b.go": "package b\n\nimport \"a\"\n\nfunc B() { a.A() }\n"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openRefreshed(t, root, Options{InMemory: true})
}
