package workspace

import (
	"context"
	"errors"

	"github.com/kast-dev/kast/storage"
)

// A full disk does not stop kast: a write the index's disk has no room for
// moves the index to memory, where the write is redone after a refresh
// rebuilds it from the tree; ReturnToDisk brings it back once space is
// freed. Readers keep their Workspace across both moves.

// moveToMemory moves the index to memory when err is a write its disk had no
// room for, reporting whether it did: the caller then refreshes and retries.
func (w *Workspace) moveToMemory(err error) bool {
	if !errors.Is(err, storage.ErrDiskFull) || w.Index.InMemory() {
		return false
	}
	if merr := w.Index.MoveToMemory(err); merr != nil {
		w.log.Error("the index's disk is full and the index could not move to memory", "root", w.Root, "err", merr)
		return false
	}
	w.log.Warn(w.Index.Notice(), "root", w.Root)
	w.view.invalidate()
	return true
}

// ReturnToDisk moves an index that left its full disk back to it once the
// disk has room, and brings it up to date there (only the files changed
// since it left are re-read). It reports whether the index moved.
func (w *Workspace) ReturnToDisk(ctx context.Context) (bool, error) {
	moved, err := w.Index.ReturnToDisk()
	if !moved || err != nil {
		return false, err
	}
	w.log.Info("the index's disk has room again; the index is back on it", "root", w.Root)
	w.view.invalidate()
	_, _, err = w.Refresh(ctx, nil)
	return true, err
}
