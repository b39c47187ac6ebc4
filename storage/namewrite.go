package storage

import (
	"encoding/binary"
	"strings"
)

// How a batch allocates file ids and interns names.

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
