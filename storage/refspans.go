package storage

import (
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// RefSpans returns the spans of some of a file's references (indexes into
// Facts(path).Refs), in the order asked, read from the stored facts
// without building them: a reference query that has settled thousands of
// references from their postings alone (see resolve.HintSettled) needs
// only where they are, and decoding every file's facts for that was most
// of its time. An index out of range is an error.
func (ix *Index) RefSpans(path string, refs []int32) ([]analysis.Span, error) {
	var out []analysis.Span
	gen := ix.rows.begin()
	err := ix.view(func(txn *badger.Txn) error {
		id, ok, err := ix.rows.idOf(txn, gen, path)
		if err != nil || !ok {
			return cmpErr(err, ErrNotIndexed)
		}
		row, err := ix.rows.row(txn, gen, id)
		if err != nil {
			return err
		}
		if row.path == "" {
			return ErrNotIndexed
		}
		return ix.getBlob(txn, blobID{row.hash, row.lang}, func(v []byte) (err error) {
			out, err = decodeRefSpans(v, refs)
			return err
		})
	})
	if err == nil && out == nil && len(refs) > 0 {
		err = ErrNotIndexed // an interrupted first write left no blob
	}
	return out, err
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// decodeRefSpans walks a facts blob as decodeFactsUpTo reads it, skipping
// what it does not need: it must change with it.
func decodeRefSpans(blob []byte, refs []int32) ([]analysis.Span, error) {
	// Only spans are kept from the decoded bytes: they can serve the next
	// blob (a query over unsafe.Pointer reads a thousand files' spans).
	b, release, err := decompress(blob)
	if err != nil {
		return nil, err
	}
	defer release()
	// The indexes asked, ascending, with where each answer goes.
	order := make([]int, len(refs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(refs[a]) - int(refs[b]) })

	d := &decoder{buf: b}
	d.skip() // language
	d.skip() // package
	d.int()  // size
	d.int()  // lines
	d.bool() // ASCII
	// Varints passed over are not decoded (skipVarints): for thousands of
	// files, decoding each span read was most of the walk.
	for n := d.count(); n > 0 && d.err == nil; n-- { // definitions
		d.skip()
		d.byte()
		d.skipVarints(14) // name span, full span, container, scope
		for range 6 {     // visibility, signature, doc, type, receiver, value
			d.skip()
		}
	}
	out := make([]analysis.Span, len(refs))
	next := 0
	n := d.count()
	for i := 0; i < n && next < len(order) && d.err == nil; i++ {
		d.skip() // name
		if int(refs[order[next]]) == i {
			s := d.span()
			for next < len(order) && int(refs[order[next]]) == i {
				out[order[next]] = s
				next++
			}
		} else {
			d.skipVarints(6) // span
		}
		d.byte()         // role
		d.skipVarints(2) // scope, enclosing
		d.skip()         // qualifier
		d.skip()         // arguments
	}
	if d.err != nil {
		return nil, d.err
	}
	if next < len(order) {
		return nil, errCorrupt // an index past the file's references
	}
	return out, nil
}

// skip passes over a string.
func (d *decoder) skip() { d.bytes(int(d.uvarint())) }
