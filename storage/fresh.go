package storage

import "sync"

// maxKnown bounds knownSet: past it the set is dropped and reads go to the
// database as usual (a workspace that large pays a few more lookups).
const maxKnown = 1 << 20

// knownSet remembers the paths and blobs written since an index was opened
// empty: while complete, a path or blob missing from it does not exist, and
// the lookup is skipped. The skipped reads are not merely lookups that miss:
// a badger read waits until every commit before it is applied to the
// memtable, so during a cold build each one stalled an extracting worker or
// the writer behind the batch being committed.
//
// Entries are added before the rows are written and never removed, so the set
// stays a superset of what exists even after a failed write or a removal; a
// hit is always confirmed by a real read.
type knownSet struct {
	mu       sync.RWMutex
	complete bool
	paths    map[string]struct{}
	blobs    map[blobID]struct{}
}

func (k *knownSet) reset(complete bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.complete = complete
	k.paths, k.blobs = nil, nil
	if complete {
		k.paths, k.blobs = map[string]struct{}{}, map[blobID]struct{}{}
	}
}

// absentPath reports whether path certainly has no rows.
func (k *knownSet) absentPath(path string) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if !k.complete {
		return false
	}
	_, ok := k.paths[path]
	return !ok
}

// absentBlob reports whether blob certainly has no row.
func (k *knownSet) absentBlob(blob blobID) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if !k.complete {
		return false
	}
	_, ok := k.blobs[blob]
	return !ok
}

func (k *knownSet) addPath(path string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.complete {
		k.paths[path] = struct{}{}
		k.checkSize()
	}
}

func (k *knownSet) addBlob(blob blobID) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.complete {
		k.blobs[blob] = struct{}{}
		k.checkSize()
	}
}

func (k *knownSet) checkSize() {
	if len(k.paths)+len(k.blobs) > maxKnown {
		k.complete, k.paths, k.blobs = false, nil, nil
	}
}
