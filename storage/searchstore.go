package storage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// tagSearch is the one table tag the search engine (analysis/search) owns.
// Every key it writes starts with this byte followed by its own sub-table
// byte, so search postings, chunks and vectors never mix with the symbol
// tables above and can be dropped wholesale:
//
//	Q <sub> …   search tables; layout documented in analysis/search/store.go
//
// The symbol index's version check still covers them: a schema change moves the
// whole database aside.
const tagSearch = 'Q'

// SearchStore is a key-value view of the search tables. Keys passed in and
// handed out omit the leading tag byte.
type SearchStore struct{ ix *Index }

// SearchStore returns the search engine's view of the index.
func (ix *Index) SearchStore() *SearchStore { return &SearchStore{ix: ix} }

func searchKey(k []byte) []byte { return append([]byte{tagSearch}, k...) }

// Get returns a copy of the value at key, or ok=false.
func (s *SearchStore) Get(key []byte) (v []byte, ok bool, err error) {
	err = s.ix.view(func(txn *badger.Txn) error {
		item, err := txn.Get(searchKey(key))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		v, err = item.ValueCopy(nil)
		return err
	})
	return v, ok, err
}

// Scan calls fn for every key with prefix, in key order, from one consistent
// snapshot. k and v are only valid during the call. keysOnly skips values.
func (s *SearchStore) Scan(prefix []byte, keysOnly bool, fn func(k, v []byte) error) error {
	p := searchKey(prefix)
	return s.ix.view(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = p
		opts.PrefetchValues = false // see postingScan.each
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(p); it.ValidForPrefix(p); it.Next() {
			item := it.Item()
			k := item.Key()[1:]
			if keysOnly {
				if err := fn(k, nil); err != nil {
					return err
				}
				continue
			}
			if err := item.Value(func(v []byte) error { return fn(k, v) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// SearchWriter collects writes; they reach the database in batches.
type SearchWriter struct{ wb *writeBatch }

// Set stores value at key. The slices must not change until Write returns.
func (w *SearchWriter) Set(key, value []byte) error { return w.wb.Set(searchKey(key), value) }

// Delete removes key.
func (w *SearchWriter) Delete(key []byte) error { return w.wb.Delete(searchKey(key)) }

// Write runs fn with a writer and flushes what it wrote. Writes are not one
// transaction: the search engine records a generation last so that a torn
// write is detected and repaired by its next refresh.
func (s *SearchStore) Write(fn func(w *SearchWriter) error) error {
	s.ix.writeMu.Lock()
	defer s.ix.writeMu.Unlock()
	if s.ix.closed {
		return errors.New("storage: index closed")
	}
	wb := s.ix.newWriteBatch()
	defer wb.Cancel()
	if err := fn(&SearchWriter{wb: wb}); err != nil {
		return err
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("storage: search tables: %w", err)
	}
	return nil
}

// DropSearch deletes every search table, for a rebuild.
func (s *SearchStore) DropSearch() error {
	var keys [][]byte
	err := s.Scan(nil, true, func(k, _ []byte) error {
		keys = append(keys, bytes.Clone(k))
		return nil
	})
	if err != nil {
		return err
	}
	return s.Write(func(w *SearchWriter) error {
		for _, k := range keys {
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Size estimates the on-disk bytes of the search tables (keys plus values as
// stored), for index_status.
func (s *SearchStore) Size() (int64, error) {
	var n int64
	p := []byte{tagSearch}
	err := s.ix.view(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = p
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(p); it.ValidForPrefix(p); it.Next() {
			n += int64(len(it.Item().Key())) + it.Item().ValueSize()
		}
		return nil
	})
	return n, err
}
