package storage

import (
	"cmp"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// Completion lists the names a package declares at its top level. Read
// from the declarations tables, the first completion in a large package
// decoded every local and scope of its files: 180 ms of CPU for
// cmd/compile/internal/ssa, whose 125 files hold 5,740 functions and
// hundreds of thousands of locals. So beside each blob the index keeps its
// top-level table: the definitions outside any other, with what a
// completion item shows of them, and nothing else.

// tagTopLevel keys a blob's top-level table, like tagBlob.
const tagTopLevel = 'T'

func topLevelKey(h contentHash, lang string) []byte {
	k := append([]byte{tagTopLevel}, h[:]...)
	return append(k, lang...)
}

// TopLevelDef is a definition at the top level of a file: a name its
// package sees, or a method declared outside its type.
type TopLevelDef struct {
	Index    int32 // in the file's Defs
	Name     string
	Kind     analysis.Kind
	Detail   string // signature, else type
	Receiver string // a method's receiver type as written, or ""
}

// appendTopLevel encodes a top-level table into scratch.
func appendTopLevel(scratch []byte, defs []TopLevelDef) []byte {
	e := &encoder{buf: scratch[:0]}
	e.uvarint(uint64(len(defs)))
	for _, d := range defs {
		e.varint(int64(d.Index))
		e.str(d.Name)
		e.byte(byte(d.Kind))
		e.str(d.Detail)
		e.str(d.Receiver)
	}
	return e.buf
}

func decodeTopLevel(v []byte) ([]TopLevelDef, error) {
	d := &decoder{buf: v, names: map[string]string{}}
	out := make([]TopLevelDef, d.count())
	for i := range out {
		out[i] = TopLevelDef{Index: d.int32(), Name: d.str(), Kind: analysis.Kind(d.byte()), Detail: d.str(), Receiver: d.name()}
	}
	if d.err == nil && len(d.buf) != 0 {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

// putTopLevel writes blob's top-level table; an in-memory index skips one
// above the largest value it accepts (TopLevel then reads the facts).
func (b *Batch) putTopLevel(blob blobID, facts *analysis.FileFacts) error {
	b.declsScratch = appendTopLevel(b.declsScratch, TopLevelDefs(facts))
	if b.ix.current().big != nil && len(b.declsScratch) > inMemoryValueLimit {
		return nil
	}
	return b.wb.Set(topLevelKey(blob.hash, blob.lang), append([]byte(nil), b.declsScratch...))
}

// TopLevel returns the top-level definitions of path's indexed content and
// its hash, from its top-level table, else (content stored without one)
// from its definitions.
func (ix *Index) TopLevel(path string) ([]TopLevelDef, string, error) {
	defs, hashes, err := ix.TopLevels([]string{path}, func(int, string) bool { return false })
	if err != nil {
		return nil, "", err
	}
	if hashes[0] != "" {
		return defs[0], hashes[0], nil
	}
	// Not indexed: Defs says why.
	f, err := ix.Defs(path)
	if err != nil || f == nil {
		return nil, "", err
	}
	return TopLevelDefs(f), f.Hash, nil
}

// TopLevelDefs lists the top-level definitions of facts at hand.
func TopLevelDefs(f *analysis.FileFacts) []TopLevelDef {
	out := []TopLevelDef{}
	for i, d := range f.Defs {
		if d.Container == analysis.None {
			out = append(out, TopLevelDef{Index: int32(i), Name: d.Name, Kind: d.Kind, Detail: cmp.Or(d.Signature, d.TypeName), Receiver: d.Receiver})
		}
	}
	return out
}

// TopLevels is TopLevel for several files (a package's) in one transaction.
// A completion listed a package's names through a transaction per file,
// and during the first index each transaction waits its turn behind the
// indexer's writes (badger's read watermark): the completions in the
// largest packages (runtime, syscall) were the slowest of a cold start.
// have reports that the caller holds file i's definitions of content hash:
// they are then not decoded (nil), only the hash returned. A file the index
// does not hold gets a nil list and an empty hash.
func (ix *Index) TopLevels(paths []string, have func(i int, hash string) bool) (defs [][]TopLevelDef, hashes []string, err error) {
	defs, hashes = make([][]TopLevelDef, len(paths)), make([]string, len(paths))
	var withoutTable []int
	gen := ix.rows.begin()
	err = ix.view(func(txn *badger.Txn) error {
		for i, path := range paths {
			id, ok, err := ix.rows.idOf(txn, gen, path)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			row, err := ix.rows.row(txn, gen, id)
			if err != nil {
				return err
			}
			if row.path == "" {
				continue
			}
			hashes[i] = row.hashHex()
			if !row.incomplete && have(i, hashes[i]) {
				continue
			}
			found := false
			if err := getValue(txn, topLevelKey(row.hash, row.lang), func(v []byte) (err error) {
				found = true
				defs[i], err = decodeTopLevel(v)
				return err
			}); err != nil {
				return err
			}
			if !found {
				withoutTable = append(withoutTable, i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, i := range withoutTable {
		f, err := ix.Defs(paths[i])
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			defs[i], hashes[i] = TopLevelDefs(f), f.Hash
		}
	}
	return defs, hashes, nil
}
