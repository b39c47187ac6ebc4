package storage

import (
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// inMemoryValueLimit is the largest value badger's in-memory mode accepts:
// without a value log, it refuses values above its value threshold, which
// cannot exceed 1 MB.
const inMemoryValueLimit = 1 << 20

// bigBlobs holds, for an in-memory index, the extraction blobs above
// inMemoryValueLimit: the largest file of the Go standard library makes a
// 3 MB one. Blobs are content-addressed and immutable, so a map kept beside
// the database is as good as a row in it.
type bigBlobs struct {
	mu sync.RWMutex
	m  map[blobID][]byte
}

func (b *bigBlobs) get(blob blobID) ([]byte, bool) {
	if b == nil {
		return nil, false
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, ok := b.m[blob]
	return v, ok
}

func (b *bigBlobs) put(blob blobID, v []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m[blob] = v
}

func (b *bigBlobs) remove(blob blobID) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, blob)
}

// getBlob calls fn with the stored blob, which may be a big one kept
// outside badger; a missing blob is not an error.
func (ix *Index) getBlob(txn *badger.Txn, blob blobID, fn func([]byte) error) error {
	if v, ok := ix.gen.Load().big.get(blob); ok {
		return fn(v)
	}
	return getValue(txn, blobKey(blob.hash, blob.lang), fn)
}
