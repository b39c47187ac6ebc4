package storage

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"
)

// badger writes its memtables, value log and new tables through memory-mapped
// files it grows as sparse files. On a full disk a write into such a mapping
// is not an error but SIGBUS, which kills the process (and would again on
// every start). So an index on disk never lets badger write without room:
// Open falls back to an in-memory index when the disk has less than
// minFreeBytes, and every write path checks the room left every
// spaceCheckBytes it hands badger, failing with ErrDiskFull before badger
// could fault.
//
// minFreeBytes covers what badger may write between two checks: both
// memtables' logs (2 × 16 MB), a memtable flushed to a table (16 MB), the
// bytes of one check interval, and slack. A compaction that rewrites many
// tables at once can still need more; an editor-sized index rarely reaches
// one (16 level-0 tables before the first).
//
// Open asks for openFreeBytes, a little more, so a disk that just ran out
// during a run is not opened again only to fail at the first write.
const (
	minFreeBytes    = 64 << 20
	openFreeBytes   = minFreeBytes + 8<<20
	spaceCheckBytes = 4 << 20
)

// ErrDiskFull is the error of a write refused for want of disk space; the
// index is left as it was before the write (files written in part stay
// Incomplete and are redone by the next run).
var ErrDiskFull = errors.New("the disk holding the index is full")

// DiskFullError says where and how much room was left.
type DiskFullError struct {
	Dir        string
	Free, Need uint64
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("the disk holding the index at %s has %d MB free, under the %d MB kast needs; free some space (kast index --in-memory works meanwhile)",
		e.Dir, e.Free>>20, e.Need>>20)
}

func (e *DiskFullError) Unwrap() error { return ErrDiskFull }

// freeBytes is the room left for an unprivileged writer on dir's file system.
func freeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// room fails with a DiskFullError when the index's disk is nearly full; an
// in-memory index always has room.
func (ix *Index) room() error {
	if ix.current().inMemory {
		return nil
	}
	free, err := ix.free(ix.dir)
	if err != nil {
		return nil // no figure: let badger report real errors
	}
	if free < minFreeBytes {
		return &DiskFullError{Dir: ix.dir, Free: free, Need: minFreeBytes}
	}
	return nil
}

// update runs a read-write transaction when there is room for it.
func (ix *Index) update(fn func(txn *badger.Txn) error) error {
	g, err := ix.writable()
	defer g.release()
	if err != nil {
		return err
	}
	if err := ix.room(); err != nil {
		return err
	}
	return g.db.Update(fn)
}

// writeBatch is badger's WriteBatch with the room checked before the first
// entry and every spaceCheckBytes after: badger commits a write batch's
// entries in the background as they accumulate, so a check at Flush alone
// would come too late.
type writeBatch struct {
	ix    *Index
	gen   *generation // held until Flush or Cancel: a move waits for it
	wb    *badger.WriteBatch
	since int // bytes handed over since the last check
	err   error
}

func (ix *Index) newWriteBatch() *writeBatch {
	g, err := ix.writable()
	w := &writeBatch{ix: ix, gen: g, wb: g.db.NewWriteBatch()}
	if w.err = err; err == nil {
		w.err = ix.room()
	}
	return w
}

func (w *writeBatch) account(n int) error {
	if w.err != nil {
		return w.err
	}
	if w.since += n; w.since >= spaceCheckBytes {
		w.since = 0
		w.err = w.ix.room()
	}
	return w.err
}

func (w *writeBatch) Set(key, value []byte) error {
	if err := w.account(len(key) + len(value)); err != nil {
		return err
	}
	return w.wb.Set(key, value)
}

func (w *writeBatch) Delete(key []byte) error {
	if err := w.account(len(key)); err != nil {
		return err
	}
	return w.wb.Delete(key)
}

// Flush commits what was set, unless the room ran out: then nothing more is
// committed and the error says why.
func (w *writeBatch) Flush() error {
	defer w.done()
	if w.err != nil {
		w.wb.Cancel()
		return w.err
	}
	return w.wb.Flush()
}

func (w *writeBatch) Cancel() {
	defer w.done()
	w.wb.Cancel()
}

// done gives the generation back, once.
func (w *writeBatch) done() {
	if w.gen != nil {
		w.gen.release()
		w.gen = nil
	}
}
