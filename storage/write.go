// The write batch and its crash protocol: files complete only with their
// postings. The posting rows and their sorted load are in postwrite.go, the
// interning of names in namewrite.go, the file row in filerow.go.

package storage

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// ErrNotIndexed is returned for a path the index does not hold.
var ErrNotIndexed = errors.New("storage: file not indexed")

var errBatchDone = errors.New("storage: batch already flushed")

// Batch groups writes of many files into one badger WriteBatch. It holds the
// index's write lock from NewBatch until Flush, which must always be called.
//
// Every file write is ordered so that a process killed at any point leaves a
// state the next run repairs: the file row is first rewritten as Incomplete,
// then the reverse index is widened to cover old and new postings, then the
// postings change, then the reverse index narrows to the new set and the file
// row is completed. badger applies one writer's commits in order, so a crash
// leaves a prefix of this sequence: an Incomplete file whose reverse index
// lists every posting it may have left behind. Files that had no postings
// take the same steps with their postings and final rows after the rest of
// the batch (see loadPostings).
type Batch struct {
	ix     *Index
	wb     *writeBatch
	paths  map[string]bool // files written since the last commit
	blobs  map[blobID]bool // blobs known to exist or written in this batch
	unused []blobID        // blobs that lost a user; removed after commit if none is left
	// scratch is reused for the uncompressed encoding of each blob; only
	// the compressed copy is handed to the WriteBatch.
	scratch []byte
	// declsScratch is the same for declarations and top-level tables
	// (see putDecls, putTopLevel).
	declsScratch []byte
	// interned are the names this batch added to the name table since its
	// last commit, for the queries' copy of it.
	interned []indexedName
	// deferredNames are new names whose rows wait for the sorted load, as
	// the postings of the files that introduced them do.
	deferredNames map[string]deferredName
	// loads are the postings of files that had none, and completed those
	// files' final rows: commit writes them after the batch (see
	// loadPostings).
	loads     []postingLoad
	completed []completedFile
	err       error
	done      bool
}

// NewBatch starts a batch, waiting for any other batch to finish. Do not call
// the Index's own write methods from the goroutine holding a Batch.
func (ix *Index) NewBatch() *Batch {
	ix.writeMu.Lock()
	return &Batch{ix: ix, wb: ix.newWriteBatch(), paths: map[string]bool{}, blobs: map[blobID]bool{}}
}

// PutFile replaces everything the index holds for path with facts, which must
// carry Lang, Size and Hash (see HashContent). The blob of equal content is
// reused when it already exists.
func (b *Batch) PutFile(path string, mtime time.Time, facts *analysis.FileFacts) error {
	hash, err := parseHash(facts.Hash)
	if err != nil {
		return err
	}
	if err := b.begin(path); err != nil {
		return err
	}
	return b.fail(b.putFile(path, mtime, hash, facts))
}

func (b *Batch) putFile(path string, mtime time.Time, hash contentHash, facts *analysis.FileFacts) error {
	cur, err := b.ix.loadFile(path)
	if err != nil {
		return err
	}
	wb := b.wb
	if !cur.found {
		b.ix.known.addPath(path)
		if cur.id, err = b.allocFileID(); err != nil {
			return err
		}
		if err := wb.Set(pathKey(path), binary.BigEndian.AppendUint32(nil, cur.id)); err != nil {
			return err
		}
	}
	if cur.row.path == "" { // new, or its first write died between the path and file rows
		cur.row = fileRow{path: path, lang: facts.Lang}
	}
	pending := cur.row
	pending.incomplete = true
	if err := wb.Set(fileKey(cur.id), pending.encode()); err != nil {
		return err
	}

	rows, err := b.encodePostings(facts, len(cur.postings) == 0)
	if err != nil {
		return err
	}
	refs := make([]postingRef, len(rows))
	for i, r := range rows {
		refs[i] = r.ref
	}
	covering := union(cur.postings, refs)
	if len(covering) > 0 {
		if err := wb.Set(reverseKey(cur.id), encodePostingRefs(covering)); err != nil {
			return err
		}
	}
	blob := blobID{hash, facts.Lang}
	if err := b.ensureBlob(blob, facts); err != nil {
		return err
	}
	if err := wb.Set(blobUserKey(hash, facts.Lang, cur.id), nil); err != nil {
		return err
	}
	for _, r := range cur.postings {
		if _, kept := slices.BinarySearchFunc(refs, r, comparePostingRefs); !kept {
			if err := wb.Delete(postingKey(r.tag, r.nameID, cur.id)); err != nil {
				return err
			}
		}
	}
	// A file with no postings yet (new, or never written in full) hands
	// its postings and its completed row to the sorted load after commit.
	deferred := len(cur.postings) == 0 && len(rows) > 0
	for _, r := range rows {
		if deferred {
			b.loads = append(b.loads, postingLoad{uint64(r.ref.tag)<<32 | uint64(r.ref.nameID), cur.id, r.value})
		} else if err := wb.Set(postingKey(r.ref.tag, r.ref.nameID, cur.id), r.value); err != nil {
			return err
		}
	}
	switch {
	case len(refs) == 0 && len(covering) > 0:
		err = wb.Delete(reverseKey(cur.id))
	case len(refs) < len(covering):
		err = wb.Set(reverseKey(cur.id), encodePostingRefs(refs))
	}
	if err != nil {
		return err
	}
	if old := (blobID{cur.row.hash, cur.row.lang}); cur.found && old != blob {
		if err := b.dropBlobUser(old, cur.id); err != nil {
			return err
		}
	}
	final := fileRow{path: path, lang: facts.Lang, pkg: facts.Package, size: int64(facts.Size), mtime: mtime.UnixNano(),
		hash: hash, lines: facts.Lines, defs: len(facts.Defs), refs: len(facts.Refs), ascii: facts.ASCII, wide: facts.WideLines, imports: goImports(facts), receivers: goReceivers(facts)}
	if deferred {
		b.completed = append(b.completed, completedFile{cur.id, final.encode()})
		return nil
	}
	return wb.Set(fileKey(cur.id), final.encode())
}

// ensureBlob writes the extraction blob unless equal content is stored already.
func (b *Batch) ensureBlob(blob blobID, facts *analysis.FileFacts) error {
	if b.blobs[blob] {
		return nil
	}
	exists, err := b.ix.hasBlob(blob)
	if err != nil {
		return err
	}
	if !exists {
		b.ix.known.addBlob(blob)
		var value []byte
		value, b.scratch = appendFacts(b.scratch, facts)
		if b.ix.current().big != nil && len(value) > inMemoryValueLimit {
			b.ix.current().big.put(blob, value)
		} else if err := b.wb.Set(blobKey(blob.hash, blob.lang), value); err != nil {
			return err
		}
		if err := b.putDecls(blob, facts); err != nil {
			return err
		}
		if err := b.putTopLevel(blob, facts); err != nil {
			return err
		}
	}
	b.blobs[blob] = true
	return nil
}

func (b *Batch) dropBlobUser(blob blobID, fileID uint32) error {
	if blob.hash == (contentHash{}) {
		return nil // the file never completed a write
	}
	b.unused = append(b.unused, blob)
	return b.wb.Delete(blobUserKey(blob.hash, blob.lang, fileID))
}

// TouchFile records a new mtime for a file whose content hash is unchanged.
func (b *Batch) TouchFile(path string, mtime time.Time) error {
	if err := b.begin(path); err != nil {
		return err
	}
	cur, err := b.ix.loadFile(path)
	if err != nil {
		return b.fail(err)
	}
	if cur.row.path == "" {
		return ErrNotIndexed
	}
	cur.row.mtime = mtime.UnixNano()
	return b.fail(b.wb.Set(fileKey(cur.id), cur.row.encode()))
}

// RemoveFile deletes a file and all its postings; a missing file is no error.
func (b *Batch) RemoveFile(path string) error {
	if err := b.begin(path); err != nil {
		return err
	}
	cur, err := b.ix.loadFile(path)
	if err != nil || !cur.found {
		return b.fail(err)
	}
	// Postings go before the reverse index that lists them, and the file row
	// before the path row, so an interrupted removal is simply repeated.
	for _, r := range cur.postings {
		if err := b.wb.Delete(postingKey(r.tag, r.nameID, cur.id)); err != nil {
			return b.fail(err)
		}
	}
	if err := b.wb.Delete(reverseKey(cur.id)); err != nil {
		return b.fail(err)
	}
	if err := b.dropBlobUser(blobID{cur.row.hash, cur.row.lang}, cur.id); err != nil {
		return b.fail(err)
	}
	if err := b.wb.Delete(fileKey(cur.id)); err != nil {
		return b.fail(err)
	}
	return b.fail(b.wb.Delete(pathKey(path)))
}

// begin checks the batch is usable and commits first when path was already
// written in this batch, since each write reads the file's committed rows.
func (b *Batch) begin(path string) error {
	if b.done {
		return errBatchDone
	}
	if b.err != nil {
		return b.err
	}
	if b.paths[path] {
		if err := b.commit(); err != nil {
			return err
		}
		b.wb = b.ix.newWriteBatch()
	}
	b.paths[path] = true
	return nil
}

// fail records the first write error: after it the batch's state is unknown,
// so later writes are refused and names allocated in it are forgotten.
func (b *Batch) fail(err error) error {
	if err != nil && b.err == nil {
		b.err = err
		b.ix.forgetNames()
		// The counter may not have reached the disk: write it again
		// before the next id is used.
		b.ix.nameLimit = b.ix.nextName
	}
	return err
}

// commit flushes the pending writes, then deletes blobs left without users.
func (b *Batch) commit() error {
	err := b.fail(b.wb.Flush())
	if err == nil && len(b.completed) > 0 {
		err = b.fail(b.loadPostings())
	}
	b.ix.rows.forget(b.paths) // even after a failure: the rows are unknown
	if err == nil {
		b.ix.nameList.add(b.interned)
	}
	b.interned = b.interned[:0]
	if err != nil {
		return err
	}
	clear(b.paths)
	clear(b.blobs)
	if len(b.unused) == 0 {
		return nil
	}
	var orphans [][]byte
	err = b.ix.view(func(txn *badger.Txn) error {
		for _, blob := range b.unused {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: blobUsersPrefix(blob.hash, blob.lang)})
			it.Rewind()
			if !it.Valid() {
				orphans = append(orphans, blobKey(blob.hash, blob.lang), topLevelKey(blob.hash, blob.lang))
				if declsLangs[blob.lang] {
					orphans = append(orphans, declsKey(blob.hash, blob.lang))
				}
				b.ix.current().big.remove(blob)
			}
			it.Close()
		}
		return nil
	})
	b.unused = b.unused[:0]
	if err != nil || len(orphans) == 0 {
		return b.fail(err)
	}
	return b.fail(b.ix.update(func(txn *badger.Txn) error {
		for _, k := range orphans {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Flush commits the batch and releases the write lock. The batch cannot be
// used afterwards.
func (b *Batch) Flush() error {
	if b.done {
		return errBatchDone
	}
	b.done = true
	defer b.ix.writeMu.Unlock()
	if b.err != nil {
		b.wb.Cancel()
		return b.err // deferred files stay Incomplete: the next run redoes them
	}
	return b.commit()
}

// PutFile writes one file in its own batch.
func (ix *Index) PutFile(path string, mtime time.Time, facts *analysis.FileFacts) error {
	return ix.write(func(b *Batch) error { return b.PutFile(path, mtime, facts) })
}

// TouchFile records a new mtime for a file whose content is unchanged.
func (ix *Index) TouchFile(path string, mtime time.Time) error {
	return ix.write(func(b *Batch) error { return b.TouchFile(path, mtime) })
}

// RemoveFile deletes a file from the index; a missing file is no error.
func (ix *Index) RemoveFile(path string) error {
	return ix.write(func(b *Batch) error { return b.RemoveFile(path) })
}

func (ix *Index) write(op func(*Batch) error) error {
	b := ix.NewBatch()
	err := op(b)
	if ferr := b.Flush(); err == nil {
		err = ferr
	}
	return err
}
