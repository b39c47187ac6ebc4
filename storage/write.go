// Why one long file: the write batch, its crash protocol (files complete
// only with their postings) and the sorted posting load are one mechanism;
// their invariants are stated and kept in one place.

package storage

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"

	"github.com/kast-dev/kast/analysis"
)

// ErrNotIndexed is returned for a path the index does not hold.
var ErrNotIndexed = errors.New("storage: file not indexed")

var errBatchDone = errors.New("storage: batch already flushed")

// HashContent is the content hash FileFacts.Hash must carry: lowercase hex SHA-256.
func HashContent(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

func parseHash(s string) (contentHash, error) {
	var h contentHash
	if len(s) != 2*hashLen {
		return h, fmt.Errorf("storage: content hash %q is not hex SHA-256", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("storage: content hash %q: %w", s, err)
	}
	return h, nil
}

// FileState is what the index knows about one file.
type FileState struct {
	Path    string
	Lang    string
	Package string // FileFacts.Package
	Size    int64
	ModTime time.Time
	Hash    string // lowercase hex SHA-256 of the indexed content
	Lines   int
	Defs    int
	Refs    int
	ASCII   bool     // FileFacts.ASCII
	Imports []string // a Go file's import paths
	// Incomplete marks a file whose last write was interrupted (the process
	// died mid-batch): its rows may be partial and it must be reindexed.
	Incomplete bool
}

// fileRow is the stored form of FileState.
type fileRow struct {
	path, lang, pkg   string
	size, mtime       int64
	hash              contentHash
	lines, defs, refs int
	incomplete, ascii bool
	// imports are a Go file's import paths: queries find which files
	// import a package from the file table, without decoding facts.
	imports []string
}

func (r fileRow) encode() []byte {
	e := &encoder{}
	e.str(r.path)
	e.str(r.lang)
	e.str(r.pkg)
	e.varint(r.size)
	e.varint(r.mtime)
	e.buf = append(e.buf, r.hash[:]...)
	e.varint(int64(r.lines))
	e.varint(int64(r.defs))
	e.varint(int64(r.refs))
	e.bool(r.incomplete)
	e.bool(r.ascii)
	e.uvarint(uint64(len(r.imports)))
	for _, p := range r.imports {
		e.str(p)
	}
	return e.buf
}

func decodeFileRow(v []byte) (fileRow, error) {
	d := &decoder{buf: v}
	r := fileRow{path: d.str(), lang: d.str(), pkg: d.str(), size: d.varint(), mtime: d.varint()}
	copy(r.hash[:], d.bytes(hashLen))
	r.lines, r.defs, r.refs, r.incomplete, r.ascii = d.int(), d.int(), d.int(), d.bool(), d.bool()
	if n := d.count(); n > 0 {
		r.imports = make([]string, n)
		for i := range r.imports {
			r.imports[i] = d.str()
		}
	}
	return r, d.err
}

func (r fileRow) state() FileState {
	s := FileState{Path: r.path, Lang: r.lang, Package: r.pkg, Size: r.size, Hash: hex.EncodeToString(r.hash[:]),
		Lines: r.lines, Defs: r.defs, Refs: r.refs, ASCII: r.ascii, Incomplete: r.incomplete, Imports: r.imports}
	if r.mtime != 0 {
		s.ModTime = time.Unix(0, r.mtime)
	}
	return s
}

// goImports lists the import paths of a Go file, nil for other languages.
func goImports(f *analysis.FileFacts) []string {
	if f.Lang != "go" {
		return nil
	}
	var out []string
	for _, imp := range f.Imports {
		out = append(out, imp.Path)
	}
	return out
}

// blobID names one stored extraction result.
type blobID struct {
	hash contentHash
	lang string
}

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
		hash: hash, lines: facts.Lines, defs: len(facts.Defs), refs: len(facts.Refs), ascii: facts.ASCII, imports: goImports(facts)}
	if deferred {
		b.completed = append(b.completed, completedFile{cur.id, final.encode()})
		return nil
	}
	return wb.Set(fileKey(cur.id), final.encode())
}

// postingRow is one encoded posting row of the file being written.
type postingRow struct {
	ref   postingRef
	value []byte
}

// encodePostings builds the posting rows of a file, interning their names,
// in key order. deferrable tells that the file's postings will wait for the
// sorted load, and so may the rows of the names it introduces. Entries are
// grouped by sorting (nameID, index) pairs packed in a uint64, which is much
// cheaper than a map of slices per name. All values share one growing
// buffer: a WriteBatch keeps the slices until commit, and appending never
// rewrites bytes already handed out.
func (b *Batch) encodePostings(facts *analysis.FileFacts, deferrable bool) ([]postingRow, error) {
	var rows []postingRow
	// Sized for about 2 bytes a reference, 40 a definition and 60 an edge,
	// which goes to two tables.
	e := &encoder{buf: make([]byte, 0, 16+3*len(facts.Refs)+48*len(facts.Defs)+128*len(facts.Supertypes))}
	var keys []uint64
	var idx []int
	// A file repeats its names: a small per-file map is cheaper than the
	// index-wide cache, whose size makes every lookup a cache miss.
	local := make(map[string]uint32, len(facts.Defs)+len(facts.Refs)/4)
	var hints []uint32
	if b.ix.refHints != nil {
		hints = b.ix.refHints(facts)
	}
	for _, t := range b.ix.postingTables(facts) {
		keys = keys[:0]
		for i := range t.n {
			name := t.name(i)
			if name == "" {
				continue
			}
			id, ok := local[name]
			if !ok {
				var err error
				if id, err = b.nameID(name, deferrable); err != nil {
					return nil, err
				}
				local[name] = id
			}
			keys = append(keys, uint64(id)<<32|uint64(i))
		}
		slices.Sort(keys)
		for start := 0; start < len(keys); {
			id := uint32(keys[start] >> 32)
			idx = idx[:0]
			end := start
			for ; end < len(keys) && uint32(keys[end]>>32) == id; end++ {
				idx = append(idx, int(uint32(keys[end])))
			}
			valueStart := len(e.buf)
			if t.tag == tagRef {
				encodeRefPosting(e, facts, idx, hints)
			} else {
				postingEncoders[t.tag](e, facts, idx)
			}
			rows = append(rows, postingRow{postingRef{t.tag, id}, e.buf[valueStart:len(e.buf):len(e.buf)]})
			start = end
		}
	}
	return rows, nil
}

func comparePostingRefs(a, b postingRef) int {
	if a.tag != b.tag {
		return int(a.tag) - int(b.tag)
	}
	return int(int64(a.nameID) - int64(b.nameID))
}

func union(a, b []postingRef) []postingRef {
	u := slices.Concat(a, b)
	slices.SortFunc(u, comparePostingRefs)
	return slices.Compact(u)
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
				orphans = append(orphans, blobKey(blob.hash, blob.lang))
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

// postingLoad is a posting row waiting for loadPostings: table tag and name
// id packed as tag<<32 | nameID, which orders like the key.
type postingLoad struct {
	tagName uint64
	fileID  uint32
	value   []byte
}

// sortLoads orders loads by (tag, name) and then arrival, which is file id
// order. Each load's index packed under its table and name id (40 bits)
// sorts as a plain uint64, about twice as fast as the structs through a
// comparison function, for batches of fewer than packed rows; a batch (256
// files of at most 2 MB) stays far below the 2^24 that loadPostings allows,
// and larger ones are sorted in place the slow way.
func sortLoads(loads []postingLoad, packed int) []postingLoad {
	if len(loads) >= packed {
		slices.SortStableFunc(loads, func(x, y postingLoad) int { return cmp.Compare(x.tagName, y.tagName) })
		return loads
	}
	order := make([]uint64, len(loads))
	for i, p := range loads {
		order[i] = p.tagName<<24 | uint64(i)
	}
	slices.Sort(order)
	sorted := make([]postingLoad, len(loads))
	for i, o := range order {
		sorted[i] = loads[o&(1<<24-1)]
	}
	return sorted
}

// beforeLoading and beforeCompleting, set by tests only, run before the
// sorted load and between it and the final rows; an error either returns
// fails the batch there.
var beforeLoading, beforeCompleting func() error

// completedFile is the final row of a file whose postings wait in loads.
type completedFile struct {
	id  uint32
	row []byte
}

// loadPostings writes the batch's deferred name rows and postings in key
// order, then the rows that complete their files. Inserted through a
// transaction, posting rows reached badger's memtable in hash-map order, and
// each insertion into its skiplist missed the cache all the way down; in key
// order consecutive insertions share their path, which took about a second
// of CPU off a cold index of the Go standard library. badger's KVLoader
// keeps the order.
//
// The crash protocol of Batch still holds: the files' Incomplete rows and
// their reverse index were committed first, so a crash before the final rows
// leaves files the next run rewrites. The rows take the version a reader sees
// after that commit, newer than any earlier row under their keys (written, or
// deleted, before it) and older than any later write, which the write lock
// keeps out until the load is done.
func (b *Batch) loadPostings() error {
	if beforeLoading != nil {
		if err := beforeLoading(); err != nil {
			return err
		}
	}
	sorted := sortLoads(b.loads, 1<<24)
	txn := b.ix.current().db.NewTransaction(false)
	version := txn.ReadTs()
	txn.Discard()
	loader := b.ix.current().db.NewKVLoader(2)
	names := make([]*pb.KV, 0, len(b.deferredNames))
	for _, d := range b.deferredNames {
		key, value := nameRow(d.name, d.id)
		names = append(names, &pb.KV{Key: key, Value: value, Version: version})
	}
	slices.SortFunc(names, func(x, y *pb.KV) int { return bytes.Compare(x.Key, y.Key) })
	clear(b.deferredNames)
	for _, kv := range names {
		if err := loader.Set(kv); err != nil {
			loader.Finish()
			return err
		}
	}
	for _, p := range sorted {
		key := postingKey(byte(p.tagName>>32), uint32(p.tagName), p.fileID)
		if err := loader.Set(&pb.KV{Key: key, Value: p.value, Version: version}); err != nil {
			loader.Finish()
			return err
		}
	}
	if err := loader.Finish(); err != nil {
		return err
	}
	if beforeCompleting != nil {
		if err := beforeCompleting(); err != nil {
			return err
		}
	}
	wb := b.ix.newWriteBatch()
	for _, f := range b.completed {
		if err := wb.Set(fileKey(f.id), f.row); err != nil {
			wb.Cancel()
			return err
		}
	}
	b.loads, b.completed = b.loads[:0], b.completed[:0]
	return wb.Flush()
}

func (b *Batch) allocFileID() (uint32, error) {
	id := b.ix.nextFile
	b.ix.nextFile++
	return id, b.wb.Set(metaKey("nextFile"), binary.BigEndian.AppendUint32(nil, b.ix.nextFile))
}

// nameIDBlock is how many name ids one write of the counter reserves.
const nameIDBlock = 4096

// nameID interns name. The counter is written ahead of the ids it covers,
// before the rows that use them, so a crash can never hand the same id out
// twice; it only leaves the rest of a reserved block unused.
//
// When deferrable, a new name's row waits for the batch's sorted load with
// the postings of the file that introduced it: written through the batch,
// the rows of a cold index's 100k names reached badger's skiplist in random
// order, each insertion missing the cache (see loadPostings). A name whose
// row waits is written through the batch at once when a file that is not
// deferred uses it, as that file's postings are committed with the batch.
func (b *Batch) nameID(name string, deferrable bool) (uint32, error) {
	if id, ok := b.ix.names[name]; ok {
		if !deferrable && len(b.deferredNames) > 0 {
			return id, b.undefer(name)
		}
		return id, nil
	}
	if d, ok := b.deferredNames[name]; ok { // the cache was cleared since
		b.ix.names[d.name] = d.id
		if !deferrable {
			return d.id, b.undefer(name)
		}
		return d.id, nil
	}
	// Names are substrings of their file's whole text: a copy keeps the
	// cache and the name table from pinning the texts (50 MB of a cold
	// index of the Go standard library).
	name = strings.Clone(name)
	var id uint32
	found := false
	if !b.ix.allNames {
		var err error
		if id, found, err = b.ix.lookupName(name); err != nil {
			return 0, err
		}
	}
	if !found {
		if b.ix.nextName >= b.ix.nameLimit {
			limit := b.ix.nextName + nameIDBlock
			if err := b.wb.Set(metaKey("nextName"), binary.BigEndian.AppendUint32(nil, limit)); err != nil {
				return 0, err
			}
			b.ix.nameLimit = limit
		}
		id = b.ix.nextName
		b.ix.nextName++
		if deferrable {
			if b.deferredNames == nil {
				b.deferredNames = map[string]deferredName{}
			}
			b.deferredNames[name] = deferredName{name, id}
		} else if err := b.wb.Set(nameRow(name, id)); err != nil {
			return 0, err
		}
		b.interned = append(b.interned, indexedName{id, name})
	}
	if len(b.ix.names) >= maxCachedNames {
		b.ix.forgetNames()
	}
	b.ix.names[name] = id
	return id, nil
}

// nameRow is the key and value of an interned name's row.
func nameRow(name string, id uint32) (key, value []byte) {
	return lowerNameKey(name), binary.BigEndian.AppendUint32(nil, id)
}

// deferredName is a new name whose row waits for the sorted load. It keeps
// the name, as a lookup cannot return the copy its map holds as key.
type deferredName struct {
	name string
	id   uint32
}

// undefer writes the row of name through the batch if it was waiting.
func (b *Batch) undefer(name string) error {
	d, ok := b.deferredNames[name]
	if !ok {
		return nil
	}
	delete(b.deferredNames, name)
	return b.wb.Set(nameRow(d.name, d.id))
}

func (ix *Index) forgetNames() {
	clear(ix.names)
	ix.allNames = false
}

// maxCachedNames bounds the interning cache (a few tens of MB at most).
const maxCachedNames = 1 << 19

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
