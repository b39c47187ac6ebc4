package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// storedFile is a file's committed rows as a writer needs them.
type storedFile struct {
	id       uint32
	found    bool // the path has an id; row may still be zero after a crash
	row      fileRow
	postings []postingRef
}

func (ix *Index) loadFile(path string) (storedFile, error) {
	var f storedFile
	if ix.known.absentPath(path) {
		return f, nil
	}
	err := ix.view(func(txn *badger.Txn) error {
		id, ok, err := getID(txn, pathKey(path))
		if err != nil || !ok {
			return err
		}
		f.id, f.found = id, true
		if err := getValue(txn, fileKey(id), func(v []byte) (err error) {
			f.row, err = decodeFileRow(v)
			return err
		}); err != nil {
			return err
		}
		return getValue(txn, reverseKey(id), func(v []byte) (err error) {
			f.postings, err = decodePostingRefs(v)
			return err
		})
	})
	if err != nil {
		return f, fmt.Errorf("storage: reading %s: %w", path, err)
	}
	return f, nil
}

// getValue calls fn with the value of key; a missing key is not an error.
func getValue(txn *badger.Txn, key []byte, fn func([]byte) error) error {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return item.Value(fn)
}

func getID(txn *badger.Txn, key []byte) (id uint32, ok bool, err error) {
	err = getValue(txn, key, func(v []byte) error {
		if len(v) != 4 {
			return errCorrupt
		}
		id, ok = binary.BigEndian.Uint32(v), true
		return nil
	})
	return id, ok, err
}

func (ix *Index) lookupName(name string) (id uint32, ok bool, err error) {
	err = ix.view(func(txn *badger.Txn) error {
		id, ok, err = getID(txn, lowerNameKey(name))
		return err
	})
	return id, ok, err
}

func (ix *Index) hasBlob(blob blobID) (bool, error) {
	if ix.known.absentBlob(blob) {
		return false, nil
	}
	if _, ok := ix.gen.Load().big.get(blob); ok {
		return true, nil
	}
	err := ix.view(func(txn *badger.Txn) error {
		_, err := txn.Get(blobKey(blob.hash, blob.lang))
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

// File returns the indexed state of path.
func (ix *Index) File(path string) (FileState, bool, error) {
	f, err := ix.loadFile(path)
	if err != nil || f.row.path == "" {
		return FileState{}, false, err
	}
	return f.row.state(), true, nil
}

// Files lists every indexed file in file-id order.
func (ix *Index) Files() ([]FileState, error) {
	var files []FileState
	err := ix.view(func(txn *badger.Txn) error {
		return eachFileRow(txn, func(r fileRow) { files = append(files, r.state()) })
	})
	return files, err
}

func eachFileRow(txn *badger.Txn, fn func(fileRow)) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{tagFile}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		if err := it.Item().Value(func(v []byte) error {
			r, err := decodeFileRow(v)
			if err == nil {
				fn(r)
			}
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// Facts returns the stored extraction result of path's indexed content.
func (ix *Index) Facts(path string) (*analysis.FileFacts, error) {
	return ix.facts(path, false, nil)
}

// FactsWithRefs is Facts building only the references at the indexes
// refs and the inheritance references: the others are zero Refs at their
// indexes, and there are no doc comments and no call sites. A reference query resolves a few references of each of
// thousands of files, and building every reference of each was most of
// its time.
func (ix *Index) FactsWithRefs(path string, refs []int32) (*analysis.FileFacts, error) {
	want := slices.Sorted(slices.Values(refs))
	next := 0
	// The decoder asks for each index once, in order.
	return ix.facts(path, false, func(i int) bool {
		for next < len(want) && int(want[next]) < i {
			next++
		}
		return next < len(want) && int(want[next]) == i
	})
}

// Defs is Facts with the definitions alone (and the file's language,
// package, size and lines): what listing a package's declarations needs,
// several times faster to decode.
func (ix *Index) Defs(path string) (*analysis.FileFacts, error) {
	return ix.facts(path, true, nil)
}

func (ix *Index) facts(path string, defsOnly bool, keep func(int) bool) (*analysis.FileFacts, error) {
	var facts *analysis.FileFacts
	gen := ix.rows.begin()
	err := ix.view(func(txn *badger.Txn) error {
		id, ok, err := ix.rows.idOf(txn, gen, path)
		if err != nil {
			return err
		}
		var row fileRow
		if ok {
			row, err = ix.rows.row(txn, gen, id)
		}
		if err != nil {
			return err
		}
		if row.path == "" {
			return ErrNotIndexed
		}
		return ix.getBlob(txn, blobID{row.hash, row.lang}, func(v []byte) (err error) {
			facts, err = decodeFactsKeeping(v, defsOnly, keep)
			if facts != nil {
				facts.Path, facts.Hash = path, row.state().Hash
			}
			return err
		})
	})
	if err == nil && facts == nil {
		err = ErrNotIndexed // an interrupted first write left no blob
	}
	return facts, err
}

// FactsByHash returns the stored extraction result of content with this hash
// (see HashContent) in lang, if any file indexed such content before. The
// result's Path is empty.
func (ix *Index) FactsByHash(hash, lang string) (*analysis.FileFacts, bool, error) {
	h, err := parseHash(hash)
	if err != nil {
		return nil, false, err
	}
	if ix.known.absentBlob(blobID{h, lang}) {
		return nil, false, nil
	}
	var facts *analysis.FileFacts
	err = ix.view(func(txn *badger.Txn) error {
		return ix.getBlob(txn, blobID{h, lang}, func(v []byte) (err error) {
			facts, err = decodeFacts(v)
			if facts != nil {
				facts.Hash = hash
			}
			return err
		})
	})
	return facts, facts != nil, err
}

// postingScan walks the posting rows of one table and name, resolving file ids
// to their rows once per query.
type postingScan struct {
	txn *badger.Txn
	ix  *Index
	gen uint64 // of the file-row cache when txn began
}

func (ix *Index) scan(fn func(s *postingScan) error) error {
	gen := ix.rows.begin()
	return ix.view(func(txn *badger.Txn) error {
		return fn(&postingScan{txn: txn, ix: ix, gen: gen})
	})
}

// file returns the row of a file id.
func (s *postingScan) file(id uint32) (fileRow, error) { return s.ix.rows.row(s.txn, s.gen, id) }

func (s *postingScan) nameID(name string) (uint32, bool, error) {
	return getID(s.txn, lowerNameKey(name))
}

// each calls fn with the postings of one name in one table. Like every
// iterator of the index, it does not prefetch values (the zero
// IteratorOptions): badger starts a goroutine per row to copy its value,
// while rows under valueThreshold are read in place from the LSM tree. The
// reference pass reads a name's postings thousands of times a second, and
// its workers had waited for those goroutines a fifth of the time (3
// million lines, trace of the pass); cold reference queries waited for
// them behind indexing.
func (s *postingScan) each(tag byte, nameID uint32, fn func(file fileRow, v []byte) error) error {
	it := s.txn.NewIterator(badger.IteratorOptions{Prefix: idKey(tag, nameID)})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		file, err := s.file(postingFileID(item.Key()))
		if err != nil {
			return err
		}
		if file.path == "" || file.incomplete {
			// Removed while a posting lingers (the reverse index will drop
			// it), or new and not complete: a new file's postings are
			// loaded before its final row, and its facts are not readable
			// until that row is.
			continue
		}
		if err := item.Value(func(v []byte) error { return fn(file, v) }); err != nil {
			return err
		}
	}
	return nil
}

// byName collects one table's postings for an exact name.
func byName[T any](ix *Index, tag byte, name string, decode func([]byte, fileRow, []T) ([]T, error)) ([]T, error) {
	var out []T
	err := ix.scan(func(s *postingScan) error {
		id, ok, err := s.nameID(name)
		if err != nil || !ok {
			return err
		}
		return s.each(tag, id, func(file fileRow, v []byte) (err error) {
			out, err = decode(v, file, out)
			return err
		})
	})
	return out, err
}

// DefsNamed returns every definition named exactly name.
func (ix *Index) DefsNamed(name string) ([]DefHit, error) {
	return byName(ix, tagDef, name, func(v []byte, f fileRow, out []DefHit) ([]DefHit, error) {
		return decodeDefPosting(v, name, f, out)
	})
}

// RefsNamed returns every reference to name.
func (ix *Index) RefsNamed(name string) ([]RefHit, error) {
	return byName(ix, tagRef, name, func(v []byte, f fileRow, out []RefHit) ([]RefHit, error) {
		return decodeRefPosting(v, name, f, out)
	})
}

// Callers returns every call site whose callee is named name, with its caller.
// The reference postings of name say which files call it; their facts hold
// the calls.
func (ix *Index) Callers(name string) ([]CallHit, error) {
	var out []CallHit
	err := ix.scan(func(s *postingScan) error {
		id, ok, err := s.nameID(name)
		if err != nil || !ok {
			return err
		}
		var refs []RefHit
		return s.each(tagRef, id, func(file fileRow, v []byte) error {
			refs, err = decodeRefPosting(v, name, file, refs[:0])
			if err != nil || !slices.ContainsFunc(refs, func(r RefHit) bool { return r.Role&analysis.RoleCall != 0 }) {
				return err
			}
			return s.ix.getBlob(s.txn, blobID{file.hash, file.lang}, func(b []byte) error {
				facts, err := decodeFacts(b)
				if err == nil {
					out = callsTo(facts, name, file, out)
				}
				return err
			})
		})
	})
	return out, err
}

// Supertypes returns the edges from types named name to what they extend.
func (ix *Index) Supertypes(name string) ([]TypeEdge, error) {
	return byName(ix, tagSuper, name, decodeEdgePosting)
}

// Subtypes returns the edges from types naming name as a supertype.
func (ix *Index) Subtypes(name string) ([]TypeEdge, error) {
	return byName(ix, tagSub, name, decodeEdgePosting)
}

// indexedName is one entry of the case-insensitive name table.
type indexedName struct {
	id   uint32
	name string
}

// defsOfNames appends the definitions of each visited name until limit hits
// are collected.
func defsOfNames(s *postingScan, limit int, out *[]DefHit, err *error) func(indexedName) bool {
	return func(n indexedName) bool {
		*err = s.each(tagDef, n.id, func(f fileRow, v []byte) (derr error) {
			*out, derr = decodeDefPosting(v, n.name, f, *out)
			return derr
		})
		return *err == nil && len(*out) < limit
	}
}

// DefsWithPrefix returns up to limit definitions whose name starts with prefix,
// ignoring case, in name order.
func (ix *Index) DefsWithPrefix(prefix string, limit int) ([]DefHit, error) {
	all, err := ix.nameList.get(ix.view)
	if err != nil {
		return nil, err
	}
	lower := strings.ToLower(prefix)
	var out []DefHit
	err = ix.scan(func(s *postingScan) (err error) {
		visit := defsOfNames(s, limit, &out, &err)
		for i := all.from(lower); i < all.len(); i++ {
			n := all.at(i)
			if !strings.HasPrefix(strings.ToLower(n.name), lower) || !visit(n) {
				break
			}
		}
		return err
	})
	return truncate(out, limit), err
}

// DefsFuzzy returns up to limit definitions whose name contains the letters of
// pattern in order, ignoring case, best matches first (see analysis.FuzzyScore).
func (ix *Index) DefsFuzzy(pattern string, limit int) ([]DefHit, error) {
	all, err := ix.nameList.get(ix.view)
	if err != nil {
		return nil, err
	}
	buf := matchBuffers.Get().(*[]scoredName)
	matches := (*buf)[:0]
	defer func() {
		clear(matches) // holds no name list past the request
		*buf = matches[:0]
		matchBuffers.Put(buf)
	}()
	want := analysis.FuzzyPatternMask(pattern)
	for i := range all.len() {
		if all.masks[i]&want != want {
			continue // a character of the pattern is not in the name
		}
		n := all.at(i)
		if score := analysis.FuzzyScore(pattern, n.name); score > 0 {
			matches = append(matches, scoredName{n, score})
		}
	}
	rankNames(matches)
	var out []DefHit
	err = ix.scan(func(s *postingScan) (err error) {
		visit := defsOfNames(s, limit, &out, &err)
		for _, m := range matches {
			if !visit(m.indexedName) {
				break
			}
		}
		return err
	})
	return truncate(out, limit), err
}

func truncate[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Stats summarises the index.
type Stats struct {
	Files     int
	Lines     int
	Defs      int
	Refs      int
	Bytes     int64 // source bytes indexed
	DiskBytes int64 // badger's LSM and value log on disk (0 in memory)
}

// Stats counts files, definitions, references and bytes from the file rows.
func (ix *Index) Stats() (Stats, error) {
	var st Stats
	err := ix.view(func(txn *badger.Txn) error {
		return eachFileRow(txn, func(r fileRow) {
			st.Files++
			st.Lines += r.lines
			st.Defs += r.defs
			st.Refs += r.refs
			st.Bytes += r.size
		})
	})
	g := ix.acquire()
	defer g.release()
	if !g.inMemory {
		lsm, vlog := g.db.Size()
		st.DiskBytes = lsm + vlog
	}
	return st, err
}
