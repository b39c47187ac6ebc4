package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// A library's index is written once, by its first build, and then only
// read. A writable badger database keeps a memtable allocated whatever it
// holds: its arena (MemTableSize plus room for a batch, 20.8 MB here) is
// on the Go heap, which the collector counts against the soft memory
// limit. On a cold open of the Go standard library the two library
// indexes (std and its vendor folder) held 42 MB of the 260 MB live heap
// that way, every byte of it unused. A sealed index is reopened read-only:
// no memtable, no compactors, no flusher. A write to it (a library built
// again) reopens it writable first.

// ErrSealedWrite is returned by a write to a sealed index that could not
// be reopened writable (another process took its folder meanwhile).
var ErrSealedWrite = errors.New("storage: the index is sealed read-only and could not be reopened for writing")

// Seal reopens the index's database read-only, once its writes are done:
// the open Batch, if any, ends first. An index in memory stays as it is.
func (ix *Index) Seal() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	ix.sealMu.Lock()
	defer ix.sealMu.Unlock()
	g := ix.current()
	if ix.closed || g.inMemory || g.readOnly || ix.dir == "" {
		return nil
	}
	return ix.reopen(g, true)
}

// Sealed reports whether the index's database is open read-only.
func (ix *Index) Sealed() bool { return ix.gen.Load().readOnly }

// openSealed opens the folder read-only, as Open with Options.Sealed asks;
// nil when it cannot be (another process writes it, a different version, a
// crash left it half written), and the caller opens it as usual.
func (ix *Index) openSealed() *badger.DB {
	db, err := badger.Open(sealedOptions(badgerOptions(ix.dir, ix.logger)))
	if err != nil {
		return nil
	}
	if ok, err := checkVersion(db, ix.version); err != nil || !ok {
		db.Close()
		return nil
	}
	ix.claimLock()
	return db
}

// sealedOptions are a sealed index's: read-only, with small caches. A
// module's dependencies are a hundred libraries or more, and each open
// database's caches cost about 1 MB of Go heap before they hold a block
// (147 sealed libraries of kast's own module: 149 MB, 65 MB with these).
// Without an index cache badger keeps each table's index in memory; a
// compressed table needs some block cache.
func sealedOptions(o badger.Options) badger.Options {
	return o.WithReadOnly(true).WithBlockCacheSize(sealedBlockCache).WithIndexCacheSize(sealedIndexCache)
}

const (
	sealedBlockCache = 1 << 20
	sealedIndexCache = 0
)

// claimLock writes the process's pid into the folder's LOCK file, as badger
// does only for a writable open: kast cache then sees the index in use.
func (ix *Index) claimLock() {
	_ = os.WriteFile(filepath.Join(ix.dir, "LOCK"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
}

// releaseLock removes the LOCK file claimLock wrote, as badger's writable
// close does, unless another process sharing the sealed index claimed it
// since; the caller has closed the read-only database.
func (ix *Index) releaseLock() {
	lock := filepath.Join(ix.dir, "LOCK")
	if pid, err := os.ReadFile(lock); err == nil && strings.TrimSpace(string(pid)) == strconv.Itoa(os.Getpid()) {
		_ = os.Remove(lock)
	}
}

// writable returns the current generation for a write, reopening a sealed
// index writable first. The caller releases it.
func (ix *Index) writable() (*generation, error) {
	for {
		g := ix.acquire()
		if !g.readOnly {
			return g, nil
		}
		g.release()
		if err := ix.unseal(g); err != nil {
			return ix.acquire(), err
		}
	}
}

// unseal reopens the sealed generation g writable, unless another writer
// did already.
func (ix *Index) unseal(g *generation) error {
	ix.sealMu.Lock()
	defer ix.sealMu.Unlock()
	if ix.gen.Load() != g || ix.closed {
		return nil
	}
	return ix.reopen(g, false)
}

// reopen closes g, the current generation, once its users are done, and
// opens the folder again, read-only or writable. When the writable open
// fails the index is opened read-only again, so reads go on; the caller
// holds sealMu. The content does not change, so the query caches stay.
func (ix *Index) reopen(g *generation, readOnly bool) error {
	if err := g.retire(); err != nil {
		ix.logger.Warn("closing the index to reopen it", "err", err)
	}
	if g.readOnly {
		ix.releaseLock()
	}
	var db *badger.DB
	if readOnly {
		db = ix.openSealed()
	} else {
		var err error
		if db, err = badger.Open(badgerOptions(ix.dir, ix.logger)); err != nil {
			ix.logger.Warn("reopening a sealed index for writing", "err", err)
		}
	}
	var err error
	if db == nil {
		// Back to what it was: writable after a failed seal, read-only
		// after a failed unseal.
		if readOnly {
			db, err = badger.Open(badgerOptions(ix.dir, ix.logger))
		} else if db = ix.openSealed(); db == nil {
			err = errors.New("reopening read-only failed")
		}
		if err != nil {
			return fmt.Errorf("storage: reopening %s: %w", ix.dir, err)
		}
		readOnly = !readOnly
		err = ErrSealedWrite
		if readOnly {
			err = nil // a seal that did not happen is no failure
		}
	}
	next := newGeneration(db, false)
	next.readOnly = readOnly
	ix.gen.Store(next)
	g.succeed()
	return err
}
