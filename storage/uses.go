package storage

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// The uses tables hold references already resolved: for each definition
// declared outside a body, where it is used. Finding the uses of a common
// name otherwise means decoding and resolving every file that mentions it,
// seconds for a method like Type or Pos in the Go standard library; a
// prefix scan of these rows takes milliseconds. A background pass fills
// them once the facts are indexed (see analysis/workspace); they are derived
// data, valid while the declarations they were resolved against stay as
// they were, which the pass records per file as a shape hash.
//
//	U <targetFileID> <ordinal> <refFileID> → the uses in one file of one definition
//	u <refFileID>                          → the file's resolution record: content hash,
//	                                         shape and the U keys it wrote
//	M usesComplete                         → present once a full pass has finished
//
// A definition is named by its file and its ordinal among the file's
// definitions declared outside bodies: unlike its index, the ordinal stays
// the same when an edit inside a body adds or removes locals.
const (
	tagUses       = 'U'
	tagUsesRecord = 'u'
)

var metaUsesComplete = metaKey("usesComplete")

func usesKey(target, ordinal, refFile uint32) []byte {
	return binary.BigEndian.AppendUint32(usesPrefix(target, ordinal), refFile)
}

func usesPrefix(target, ordinal uint32) []byte {
	return binary.BigEndian.AppendUint32(idKey(tagUses, target), ordinal)
}

// Use is one stored reference to a definition.
type Use struct {
	Ref        int32 // index into the referring file's Refs
	Span       analysis.Span
	Role       analysis.Role
	Confidence float64
	Uncertain  bool
	// Ambiguous: the use ties as surely to another overload.
	Ambiguous bool
}

// UseTarget names a definition: its file and its ordinal among the file's
// definitions declared outside bodies.
type UseTarget struct {
	Path    string
	Ordinal int32
}

// UseHit is a stored use with the file it is in.
type UseHit struct {
	Path string
	Use
}

// UsesRecord is what a file's uses were resolved from: its content hash and
// the shape hash of the declarations the whole workspace saw then.
type UsesRecord struct {
	Hash  string
	Shape uint64
}

type usesTarget struct{ file, ordinal uint32 }

type usesRow struct {
	hash    contentHash
	shape   uint64
	targets []usesTarget
}

func (r usesRow) encode() []byte {
	e := &encoder{buf: make([]byte, 0, hashLen+8+4*len(r.targets))}
	e.buf = append(e.buf, r.hash[:]...)
	e.buf = binary.BigEndian.AppendUint64(e.buf, r.shape)
	for _, t := range r.targets {
		e.uvarint(uint64(t.file))
		e.uvarint(uint64(t.ordinal))
	}
	return e.buf
}

func decodeUsesRow(v []byte) (usesRow, error) {
	d := &decoder{buf: v}
	var r usesRow
	copy(r.hash[:], d.bytes(hashLen))
	if b := d.bytes(8); b != nil {
		r.shape = binary.BigEndian.Uint64(b)
	}
	for len(d.buf) > 0 && d.err == nil {
		r.targets = append(r.targets, usesTarget{uint32(d.uvarint()), uint32(d.uvarint())})
	}
	return r, d.err
}

func encodeUses(uses []Use) []byte {
	e := &encoder{buf: make([]byte, 0, 16*len(uses))}
	prev := int32(0)
	for _, u := range uses {
		e.varint(int64(u.Ref - prev))
		prev = u.Ref
		e.byte(byte(u.Role))
		// One flags byte: bit 0 uncertain, bit 1 ambiguous (an index
		// written before the second bit reads as not ambiguous).
		e.byte(btoi(u.Uncertain) | btoi(u.Ambiguous)<<1)
		e.buf = binary.BigEndian.AppendUint64(e.buf, math.Float64bits(u.Confidence))
		e.span(u.Span)
	}
	return e.buf
}

func decodeUses(v []byte, path string, out []UseHit) ([]UseHit, error) {
	d := &decoder{buf: v}
	ref := int32(0)
	for len(d.buf) > 0 && d.err == nil {
		ref += d.int32()
		u := Use{Ref: ref, Role: analysis.Role(d.byte())}
		flags := d.byte()
		u.Uncertain, u.Ambiguous = flags&1 != 0, flags&2 != 0
		if b := d.bytes(8); b != nil {
			u.Confidence = math.Float64frombits(binary.BigEndian.Uint64(b))
		}
		u.Span = d.span()
		out = append(out, UseHit{Path: path, Use: u})
	}
	return out, d.err
}

// UsesComplete reports whether a full resolution pass has finished since the
// uses were last cleared.
func (ix *Index) UsesComplete() (bool, error) {
	found := false
	err := ix.view(func(txn *badger.Txn) error {
		_, err := txn.Get(metaUsesComplete)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		found = err == nil
		return err
	})
	return found, err
}

// UsesRecords returns each indexed file's resolution record by path, and
// how many records belong to files removed from the index since: their
// declarations are gone, which changes what other files resolve to.
func (ix *Index) UsesRecords() (records map[string]UsesRecord, orphans int, err error) {
	out := map[string]UsesRecord{}
	gen := ix.rows.begin()
	err = ix.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagUsesRecord}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			file, err := ix.rows.row(txn, gen, binary.BigEndian.Uint32(it.Item().Key()[1:5]))
			if err != nil {
				return err
			}
			if err := it.Item().Value(func(v []byte) error {
				r, err := decodeUsesRow(v)
				switch {
				case err != nil:
				case file.path == "":
					orphans++
				default:
					out[file.path] = UsesRecord{Hash: hex.EncodeToString(r.hash[:]), Shape: r.shape}
				}
				return err
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("storage: reading uses: %w", err)
	}
	return out, orphans, nil
}

// ClearUses drops every stored use and the completion mark, before a full
// pass rewrites them. It deletes key by key: badger's DropPrefix would
// block every other writer (the indexer, the search tables) meanwhile.
func (ix *Index) ClearUses() error {
	if err := ix.update(func(txn *badger.Txn) error { return txn.Delete(metaUsesComplete) }); err != nil {
		return fmt.Errorf("storage: clearing uses: %w", err)
	}
	wb := ix.newWriteBatch()
	err := ix.view(func(txn *badger.Txn) error {
		for _, tag := range []byte{tagUses, tagUsesRecord} {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tag}})
			for it.Rewind(); it.Valid(); it.Next() {
				if err := wb.Delete(it.Item().KeyCopy(nil)); err != nil {
					it.Close()
					return err
				}
			}
			it.Close()
		}
		return nil
	})
	if err != nil {
		wb.Cancel()
		return fmt.Errorf("storage: clearing uses: %w", err)
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("storage: clearing uses: %w", err)
	}
	return nil
}

// CompleteUses marks the uses as covering the whole workspace.
func (ix *Index) CompleteUses() error {
	return ix.update(func(txn *badger.Txn) error { return txn.Set(metaUsesComplete, nil) })
}

// UsesOf returns the stored uses of one definition, ordered by the file id of
// the referring file, then by reference.
func (ix *Index) UsesOf(t UseTarget) ([]UseHit, error) {
	var out []UseHit
	err := ix.scan(func(s *postingScan) error {
		target, ok, err := ix.rows.idOf(s.txn, s.gen, t.Path)
		if err != nil || !ok {
			return err
		}
		it := s.txn.NewIterator(badger.IteratorOptions{Prefix: usesPrefix(target, uint32(t.Ordinal))})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().Key()
			file, err := s.file(binary.BigEndian.Uint32(key[9:13]))
			if err != nil {
				return err
			}
			if file.path == "" {
				continue
			}
			if err := it.Item().Value(func(v []byte) (err error) {
				out, err = decodeUses(v, file.path, out)
				return err
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: reading uses: %w", err)
	}
	return out, nil
}

// EachUse calls fn with every stored use and the definition it is a use
// of, grouped by definition, in one read transaction: the whole reference
// graph in one scan. fn's error stops the scan and is returned as is, so a
// caller stops a long scan by returning its context's error.
func (ix *Index) EachUse(fn func(t UseTarget, hit UseHit) error) error {
	var stop error
	err := ix.scan(func(s *postingScan) error {
		it := s.txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagUses}})
		defer it.Close()
		var hits []UseHit
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().Key()
			target, err := s.file(binary.BigEndian.Uint32(key[1:5]))
			if err != nil {
				return err
			}
			file, err := s.file(binary.BigEndian.Uint32(key[9:13]))
			if err != nil {
				return err
			}
			if target.path == "" || file.path == "" {
				continue // a removed file's rows linger until the next pass
			}
			t := UseTarget{Path: target.path, Ordinal: int32(binary.BigEndian.Uint32(key[5:9]))}
			if err := it.Item().Value(func(v []byte) (err error) {
				hits, err = decodeUses(v, file.path, hits[:0])
				return err
			}); err != nil {
				return err
			}
			for _, h := range hits {
				if stop = fn(t, h); stop != nil {
					return stop
				}
			}
		}
		return nil
	})
	if stop != nil {
		return stop
	}
	if err != nil {
		return fmt.Errorf("storage: reading uses: %w", err)
	}
	return nil
}

// UsesWriter writes files' resolved uses in one badger WriteBatch. It is not
// safe for concurrent use; Flush must be called.
type UsesWriter struct {
	ix  *Index
	wb  *writeBatch
	ids map[string]uint32 // path → file id, 0 when not indexed
	err error
}

// NewUsesWriter starts writing uses.
func (ix *Index) NewUsesWriter() *UsesWriter {
	return &UsesWriter{ix: ix, wb: ix.newWriteBatch(), ids: map[string]uint32{}}
}

func (w *UsesWriter) fileID(txn *badger.Txn, path string) (uint32, error) {
	if id, ok := w.ids[path]; ok {
		return id, nil
	}
	id, _, err := getID(txn, pathKey(path))
	w.ids[path] = id
	return id, err
}

// Put replaces the uses recorded for the file at path with uses, resolved
// from the file and workspace that rec describes. Targets not in the index
// are skipped.
//
// Like Batch, it orders its writes so that a process killed at any point
// leaves a repairable state: the record is first rewritten with no content
// hash (so the file counts as unresolved) and every key old or new, then the
// rows change, then the record takes its final form.
func (w *UsesWriter) Put(path string, rec UsesRecord, uses map[UseTarget][]Use) error {
	if w.err != nil {
		return w.err
	}
	hash, err := parseHash(rec.Hash)
	if err != nil {
		return err
	}
	var refFile uint32
	var old usesRow
	rows := map[usesTarget][]Use{}
	err = w.ix.view(func(txn *badger.Txn) error {
		if refFile, err = w.fileID(txn, path); err != nil || refFile == 0 {
			return err
		}
		if err := getValue(txn, idKey(tagUsesRecord, refFile), func(v []byte) (err error) {
			old, err = decodeUsesRow(v)
			return err
		}); err != nil {
			return err
		}
		for t, list := range uses {
			id, err := w.fileID(txn, t.Path)
			if err != nil {
				return err
			}
			if id != 0 && len(list) > 0 {
				rows[usesTarget{id, uint32(t.Ordinal)}] = list
			}
		}
		return nil
	})
	if err != nil || refFile == 0 {
		return w.fail(err)
	}
	targets := make([]usesTarget, 0, len(rows))
	for t := range rows {
		targets = append(targets, t)
	}
	slices.SortFunc(targets, compareUsesTargets)
	recordKey := idKey(tagUsesRecord, refFile)
	if len(old.targets) > 0 {
		both := append(slices.Clone(old.targets), targets...)
		slices.SortFunc(both, compareUsesTargets)
		pending := usesRow{shape: old.shape, targets: slices.Compact(both)}
		if err := w.wb.Set(recordKey, pending.encode()); err != nil {
			return w.fail(err)
		}
		for _, t := range old.targets {
			if _, kept := rows[t]; !kept {
				if err := w.wb.Delete(usesKey(t.file, t.ordinal, refFile)); err != nil {
					return w.fail(err)
				}
			}
		}
	}
	for _, t := range targets {
		list := rows[t]
		slices.SortFunc(list, func(a, b Use) int { return int(a.Ref - b.Ref) })
		if err := w.wb.Set(usesKey(t.file, t.ordinal, refFile), encodeUses(list)); err != nil {
			return w.fail(err)
		}
	}
	return w.fail(w.wb.Set(recordKey, usesRow{hash: hash, shape: rec.Shape, targets: targets}.encode()))
}

func compareUsesTargets(a, b usesTarget) int {
	if a.file != b.file {
		return int(int64(a.file) - int64(b.file))
	}
	return int(int64(a.ordinal) - int64(b.ordinal))
}

func (w *UsesWriter) fail(err error) error {
	if err != nil && w.err == nil {
		w.err = err
	}
	return err
}

// Flush commits what was put. The writer cannot be used afterwards.
func (w *UsesWriter) Flush() error {
	if w.err != nil {
		w.wb.Cancel()
		return w.err
	}
	return w.wb.Flush()
}

func btoi(b bool) byte {
	if b {
		return 1
	}
	return 0
}
