package workspace

import (
	"testing"

	"github.com/kast-dev/kast/analysis/resolve"
)

// ReferencesAmongDecls is what a reference query resolves itself before
// the pass has stored def's uses: ids resolved by the snapshot's query
// resolver, which crosses into other files through declarations tables.
func (s *Snapshot) ReferencesAmongDecls(def resolve.DefID, ids []resolve.RefID) []resolve.Reference {
	return s.referencesAmong(def, ids, false)
}

// ShrinkViewCache makes the view keep one file's decoded facts for the
// test, so that what is read whole once is not served again in place of a
// declarations table.
func (w *Workspace) ShrinkViewCache(t *testing.T) {
	w.view.mu.Lock()
	saved := w.view.maxBytes
	w.view.maxBytes = 1
	w.view.mu.Unlock()
	t.Cleanup(func() {
		w.view.mu.Lock()
		w.view.maxBytes = saved
		w.view.mu.Unlock()
	})
}
