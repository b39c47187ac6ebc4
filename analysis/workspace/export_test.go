package workspace

import (
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// ShrinkPassBudgets makes every memo of the reference pass tiny for the
// test, so that its files are evicted and read again all the time.
func ShrinkPassBudgets(t *testing.T) {
	saved := passBudget
	passBudget.facts, passBudget.defs, passBudget.resolver, passBudget.renewal, passBudget.ordinals = 1, 1, 1, 1, 0
	t.Cleanup(func() { passBudget = saved })
}

// PassCrossedFacts is what a reference pass's resolution reads of path when
// it crosses into it from another file.
func (w *Workspace) PassCrossedFacts(path string) *analysis.FileFacts {
	return newPassCache(w.view, len(w.view.Files())).file(path)
}

// OpenRefreshed is openRefreshed for the external tests.
func OpenRefreshed(t *testing.T, root string, opts Options) *Workspace {
	t.Helper()
	return openRefreshed(t, root, opts)
}
