package search

import (
	"bytes"
	"slices"
	"sort"

	"github.com/kast-dev/kast/storage"
)

// dropPrefix deletes every row under prefix.
func (e *Engine) dropPrefix(prefix []byte) error {
	var keys [][]byte
	if err := e.store.Scan(prefix, true, func(k, _ []byte) error {
		keys = append(keys, slices.Clone(k))
		return nil
	}); err != nil {
		return err
	}
	return e.store.Write(func(w *storage.SearchWriter) error {
		for _, k := range keys {
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// compact merges every posting row's segments into segment 0, dropping dead
// file ids, and deletes vectors no live chunk uses.
func (e *Engine) compact(st *state) error {
	for _, sub := range []byte{subTrigram, subTerm} {
		var group []byte
		var rows [][]byte // keys of the current group
		var ids []uint32
		var ps []termPosting
		writeGroup := func(w *storage.SearchWriter) error {
			if group == nil {
				return nil
			}
			for _, k := range rows {
				if err := w.Delete(k); err != nil {
					return err
				}
			}
			var v []byte
			if sub == subTrigram {
				ids = slices.DeleteFunc(ids, func(id uint32) bool { return st.byID[id] == nil })
				slices.Sort(ids)
				if len(ids) > 0 {
					v = encodeIDs(ids)
				}
			} else {
				ps = slices.DeleteFunc(ps, func(p termPosting) bool { return st.byID[p.file] == nil })
				sort.SliceStable(ps, func(i, j int) bool { return ps[i].file < ps[j].file })
				if len(ps) > 0 {
					v = encodeTermPostings(ps)
				}
			}
			if v != nil {
				return w.Set(binaryAppendSeg(group, 0), v)
			}
			return nil
		}
		err := e.store.Write(func(w *storage.SearchWriter) error {
			return e.store.Scan([]byte{sub}, false, func(k, v []byte) error {
				p := k[:len(k)-4]
				if !bytes.Equal(p, group) {
					if err := writeGroup(w); err != nil {
						return err
					}
					group, rows, ids, ps = slices.Clone(p), rows[:0], ids[:0], ps[:0]
				}
				rows = append(rows, slices.Clone(k))
				var err error
				if sub == subTrigram {
					ids, err = decodeIDs(v, ids)
				} else {
					ps, err = decodeTermPostings(v, ps)
				}
				return err
			})
		})
		if err != nil {
			return err
		}
		if err := e.store.Write(writeGroup); err != nil {
			return err
		}
	}
	used := map[uint64]bool{}
	for _, f := range st.files {
		for _, c := range f.chunks {
			used[c.Hash] = true
		}
	}
	var unused [][]byte
	if err := e.store.Scan([]byte{subVector}, true, func(k, _ []byte) error {
		if !used[beUint64(k[1:])] {
			unused = append(unused, slices.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	st.meta.segments, st.meta.dead = 1, 0
	return e.store.Write(func(w *storage.SearchWriter) error {
		for _, k := range unused {
			if err := w.Delete(k); err != nil {
				return err
			}
		}
		return w.Set([]byte{subMeta}, st.meta.encode())
	})
}

func binaryAppendSeg(prefix []byte, seg uint32) []byte {
	return append(slices.Clone(prefix), byte(seg>>24), byte(seg>>16), byte(seg>>8), byte(seg))
}
