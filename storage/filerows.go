package storage

import (
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// maxCachedRows bounds fileRows; past it the cache starts over.
const maxCachedRows = 1 << 18

// fileRows caches the file table (path → id → row) in memory. Every query
// turns file ids into paths and paths into blobs through it: a definition
// lookup of a common name reads a posting row from each of hundreds of
// files, and each was followed by a badger read of its file row, most of
// the cost of the fastest requests.
//
// Writers call forget after their rows are committed. A read in a
// transaction that began before a forget must not store what it read, which
// may be the old row: gen counts forgets, callers take it with begin before
// they open the transaction, and a read stores its row only if gen has not
// moved since.
type fileRows struct {
	mu   sync.RWMutex
	gen  uint64
	byID map[uint32]fileRow
	ids  map[string]uint32
}

// begin returns the generation to pass to reads in a transaction opened
// after it.
func (c *fileRows) begin() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// idOf returns path's file id, reading it within txn on a miss; gen is what
// begin returned before txn was opened.
func (c *fileRows) idOf(txn *badger.Txn, gen uint64, path string) (uint32, bool, error) {
	c.mu.RLock()
	id, ok := c.ids[path]
	c.mu.RUnlock()
	if ok {
		return id, true, nil
	}
	id, ok, err := getID(txn, pathKey(path))
	if err != nil || !ok {
		return id, ok, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		if c.ids == nil || len(c.ids) >= maxCachedRows {
			c.byID, c.ids = map[uint32]fileRow{}, map[string]uint32{}
		}
		c.ids[path] = id
	}
	return id, true, nil
}

// row returns the row of a file id, reading it within txn on a miss. A
// missing row is the zero row, and is not kept: a removed file's id has no
// path by which forget would find it.
func (c *fileRows) row(txn *badger.Txn, gen uint64, id uint32) (fileRow, error) {
	c.mu.RLock()
	r, ok := c.byID[id]
	c.mu.RUnlock()
	if ok {
		return r, nil
	}
	err := getValue(txn, fileKey(id), func(v []byte) (err error) {
		r, err = decodeFileRow(v)
		return err
	})
	if err != nil {
		return fileRow{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && r.path != "" {
		if c.byID == nil || len(c.byID) >= maxCachedRows {
			c.byID, c.ids = map[uint32]fileRow{}, map[string]uint32{}
		}
		// The path's id too, by which forget finds the row.
		c.byID[id] = r
		c.ids[r.path] = id
	}
	return r, nil
}

// reset forgets every row, for a database that replaced the index's.
func (c *fileRows) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.byID, c.ids = nil, nil
}

// forget drops what the cache holds of the files at paths, after their
// rows changed.

func (c *fileRows) forget(paths map[string]bool) {
	if len(paths) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for p := range paths {
		if id, ok := c.ids[p]; ok {
			delete(c.byID, id)
			delete(c.ids, p)
		}
	}
}
