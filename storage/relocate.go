package storage

import (
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// An index lives in one badger database at a time, but not always the same
// one: when its disk fills during a run, it moves to a fresh in-memory
// database (MoveToMemory), and when space returns it moves back
// (ReturnToDisk). Holders keep their *Index across a move, so the database
// is reached through a generation: readers and writers take the current one
// and give it back; a move installs the next and closes the old one when its
// last user is done. Queries running across a move may miss what the new
// database has not indexed yet, never fail on a closed one.

// generation is one open database of the index and what belongs to it.
type generation struct {
	db       *badger.DB
	inMemory bool
	readOnly bool      // a sealed index's (sealed.go)
	big      *bigBlobs // blobs too large for an in-memory database; nil on disk

	mu      sync.Mutex
	users   int
	retired bool
	idle    *sync.Cond
	// succeeded is closed once the next generation is installed (or the
	// index closed): a reader that finds this one retired waits for it.
	succeeded chan struct{}
}

func newGeneration(db *badger.DB, inMemory bool) *generation {
	g := &generation{db: db, inMemory: inMemory, succeeded: make(chan struct{})}
	if inMemory {
		g.big = &bigBlobs{m: map[blobID][]byte{}}
	}
	g.idle = sync.NewCond(&g.mu)
	return g
}

// acquire returns the current generation, counted as used until release.
func (ix *Index) acquire() *generation {
	for {
		g := ix.gen.Load()
		g.mu.Lock()
		if !g.retired {
			g.users++
			g.mu.Unlock()
			return g
		}
		g.mu.Unlock()
		<-g.succeeded // a move installs the next one
	}
}

// succeed lets readers waiting on the retired g go to the next generation.
func (g *generation) succeed() {
	select {
	case <-g.succeeded:
	default:
		close(g.succeeded)
	}
}

func (g *generation) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.users--; g.users == 0 {
		g.idle.Broadcast()
	}
}

// retire waits for the generation's last user, then closes its database.
func (g *generation) retire() error {
	g.mu.Lock()
	g.retired = true
	for g.users > 0 {
		g.idle.Wait()
	}
	g.mu.Unlock()
	return g.db.Close()
}

// view runs a read-only transaction on the current database.
func (ix *Index) view(fn func(txn *badger.Txn) error) error {
	ix.reads.Add(1)
	g := ix.acquire()
	defer g.release()
	return g.db.View(fn)
}

// current is the database of a writer holding writeMu, which no move
// replaces while it is held.
func (ix *Index) current() *generation { return ix.gen.Load() }

// MoveToMemory moves an index whose disk is full to a fresh, empty in-memory
// database, for the rest of the run or until ReturnToDisk: the caller
// refreshes it. The files on disk stay as they were, to be brought up to
// date on return. An index already in memory is left alone.
func (ix *Index) MoveToMemory(cause error) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.closed || ix.current().inMemory {
		return nil
	}
	db, err := badger.Open(tune(badger.DefaultOptions("").WithInMemory(true), ix.logger).WithValueThreshold(inMemoryValueLimit))
	if err != nil {
		return fmt.Errorf("storage: in-memory index: %w", err)
	}
	ix.spaceFallback = true
	ix.setNotice(fmt.Sprintf("%v; the index moved to memory and returns to disk when space is freed", cause))
	return ix.install(newGeneration(db, true))
}

// ReturnToDisk moves an index that left its disk for want of space back to
// it once the disk has room again, reporting whether it moved: the caller
// then refreshes it (only files changed since it left are re-read). An
// index that never left, or whose disk is still full, stays where it is.
func (ix *Index) ReturnToDisk() (bool, error) {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.closed || !ix.spaceFallback || !ix.current().inMemory {
		return false, nil
	}
	if free, err := ix.free(ix.dir); err != nil || free < openFreeBytes {
		return false, nil
	}
	db, notice, err := ix.openDisk()
	if err != nil {
		return false, err
	}
	ix.spaceFallback = false
	ix.setNotice(notice)
	return true, ix.install(newGeneration(db, false))
}

// SpaceFallback reports whether the index is in memory because its disk was
// full, and would return to it (ReturnToDisk).
func (ix *Index) SpaceFallback() bool {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	return ix.spaceFallback && !ix.closed
}

// install makes g the index's database, with writeMu held: the query caches
// start over, the counters are read from g, and the previous database is
// closed once its readers and write batches are done (before a return to
// disk can open its directory again). Readers never wait for writeMu, so
// waiting for them here cannot deadlock.
func (ix *Index) install(g *generation) error {
	old := ix.gen.Swap(g)
	if old != nil {
		old.succeed()
	}
	ix.rows.reset()
	ix.nameList.reset()
	err := ix.init()
	if old != nil {
		if cerr := old.retire(); cerr != nil {
			ix.logger.Warn("closing the index's previous database", "err", cerr)
		}
	}
	return err
}
