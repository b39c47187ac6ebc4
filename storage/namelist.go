package storage

import (
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// nameList is the queries' copy of the name table, in the table's order
// (lowercase form, then the name). Symbol search scores every name: read
// from badger, each query allocated every name (about 11 MB and 100 ms per
// workspace/symbol on the Go standard library), and the garbage slowed the
// requests around it. Names are never removed from the table, so the copy
// only grows: a batch hands over the names it interned once they are
// committed, and the next query merges them in.
type nameList struct {
	mu      sync.Mutex
	loaded  bool
	names   names
	pending []indexedName // committed since the last merge, in any order
	// expect is about how many names the table holds (the name counter at
	// open), so that reading it does not grow its buffers again and again.
	expect int
}

// names is an immutable sorted list of names packed in one string; a query
// keeps using the one it got while a later merge builds the next.
type names struct {
	text string   // the names, concatenated
	ends []uint32 // where each name ends in text
	ids  []uint32
	// masks are the names' analysis.FuzzyMask: a symbol search scores
	// only the names whose mask holds its pattern's characters.
	masks []uint64
}

func (n names) len() int { return len(n.ids) }

// fillMasks works out the masks of the names packed in n.
func (n *names) fillMasks() {
	n.masks = make([]uint64, n.len())
	for i := range n.masks {
		n.masks[i] = analysis.FuzzyMask(n.at(i).name)
	}
}

func (n names) at(i int) indexedName {
	start := uint32(0)
	if i > 0 {
		start = n.ends[i-1]
	}
	return indexedName{id: n.ids[i], name: n.text[start:n.ends[i]]}
}

// get returns every committed name, reading the table on first use.
func (l *nameList) get(view func(func(*badger.Txn) error) error) (names, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loaded {
		// Loading under the lock: a batch committing meanwhile waits in add,
		// so its names are either read here or kept pending (merge drops
		// the duplicates of both).
		var all names
		err := view(func(txn *badger.Txn) (err error) {
			all, err = readNames(txn, l.expect)
			return err
		})
		if err != nil {
			return names{}, err
		}
		l.names, l.loaded = all, true
	}
	if len(l.pending) > 0 {
		l.names = l.names.merge(l.pending)
		l.pending = nil
	}
	return l.names, nil
}

// PreloadNames reads the name table into the queries' copy ahead of the
// first workspace/symbol request, which otherwise reads it itself: after a
// restart on ten million lines of Go that read was most of the request's
// CPU. An empty or closed index has nothing to read.
func (ix *Index) PreloadNames() error {
	ix.writeMu.Lock()
	if ix.closed || ix.nextName == 1 {
		ix.writeMu.Unlock()
		return nil
	}
	g := ix.acquire() // before Close can retire it: Close waits for g's release
	ix.writeMu.Unlock()
	defer g.release()
	_, err := ix.nameList.get(g.db.View)
	return err
}

// setExpect records about how many names the table holds.
func (l *nameList) setExpect(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expect = n
}

// reset forgets the names, for a database that replaced the index's.
func (l *nameList) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names, l.loaded, l.pending = names{}, false, nil
}

// add records names a batch interned, after its commit.
func (l *nameList) add(interned []indexedName) {
	if len(interned) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loaded {
		l.pending = append(l.pending, interned...)
	}
}

// compareNames orders names as the name table's keys do: by lowercase
// form, then as they are.
func compareNames(a, b string) int {
	if c := compareLower(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// compareLower compares the lowercase forms of a and b. ASCII names, all
// but a few, are compared in place: a merge of the names a batch interned
// lowered both sides of every comparison, 40 MB of garbage in ten seconds
// of a cold start's symbol requests.
func compareLower(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x >= utf8.RuneSelf || y >= utf8.RuneSelf {
			return strings.Compare(strings.ToLower(a), strings.ToLower(b))
		}
		x, y = analysis.LowerASCII(x), analysis.LowerASCII(y)
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	// One is a prefix of the other, whose rest lowers to something.
	return cmp.Compare(len(a), len(b))
}

// merge returns n with added (sorted here) merged in, without duplicates.
func (n names) merge(added []indexedName) names {
	slices.SortFunc(added, func(a, b indexedName) int { return compareNames(a.name, b.name) })
	out := make([]indexedName, 0, n.len()+len(added))
	i, j := 0, 0
	for i < n.len() || j < len(added) {
		var next indexedName
		switch {
		case j == len(added):
			next = n.at(i)
			i++
		case i == n.len():
			next = added[j]
			j++
		default:
			a := n.at(i)
			c := compareNames(a.name, added[j].name)
			next = a
			if c >= 0 {
				next = added[j]
				j++
			}
			if c <= 0 {
				i++
			}
		}
		if k := len(out); k > 0 && out[k-1].name == next.name {
			continue
		}
		out = append(out, next)
	}
	return pack(out)
}

func pack(list []indexedName) names {
	size := 0
	for _, n := range list {
		size += len(n.name)
	}
	var b strings.Builder
	b.Grow(size)
	out := names{ends: make([]uint32, len(list)), ids: make([]uint32, len(list))}
	for i, n := range list {
		b.WriteString(n.name)
		out.ends[i] = uint32(b.Len())
		out.ids[i] = n.id
	}
	out.text = b.String()
	out.fillMasks()
	return out
}

// from returns the index of the first name whose lowercase form is not
// below lowerPrefix: where a prefix search starts.
func (n names) from(lowerPrefix string) int {
	return sort.Search(n.len(), func(i int) bool { return strings.ToLower(n.at(i).name) >= lowerPrefix })
}

// readNames reads the whole name table, in its order, packed as it reads:
// the first workspace/symbol request after a restart waits for it (300k
// names on ten million lines of Go). The ids are the rows' small values,
// kept in the keys' tables, so the iterator does not prefetch them.
func readNames(txn *badger.Txn, expect int) (names, error) {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagNameLower}})
	defer it.Close()
	var text strings.Builder
	text.Grow(expect * averageNameBytes)
	out := names{ends: make([]uint32, 0, expect), ids: make([]uint32, 0, expect)}
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		name, ok := parseLowerNameKey(item.Key())
		if !ok {
			continue
		}
		err := item.Value(func(v []byte) error {
			if len(v) != 4 {
				return errCorrupt
			}
			out.ids = append(out.ids, binary.BigEndian.Uint32(v))
			return nil
		})
		if err != nil {
			return names{}, err
		}
		text.Write(name)
		out.ends = append(out.ends, uint32(text.Len()))
	}
	out.text = text.String()
	out.fillMasks()
	return out, nil
}

// averageNameBytes is about a name's length in the name table: 17.5 bytes
// on ten million lines of Go.
const averageNameBytes = 18
