package storage

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/dgraph-io/badger/v4/pb"

	"github.com/kast-dev/kast/analysis"
)

// How a batch encodes a file's posting rows and loads them in key order.

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
	var hints []uint64
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
