// Package storage is kast's persistent symbol index: a badger database per
// workspace holding each file's extraction results (keyed by content hash) and
// name-keyed postings of definitions, references, call edges and type edges.
//
// The index is a rebuildable cache. A version mismatch or an unreadable
// database moves the directory aside and starts empty; when another process
// holds the directory lock the index lives in memory for this session and
// Notice says so.
package storage

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/kast-dev/kast/analysis"
)

// schemaVersion changes whenever the key layout or a value encoding changes,
// or what a stored value means (16: Go resolves no plain name through a
// receiver's members, which the stored uses and reference hints assumed;
// 17: typed hints through chains).
const schemaVersion = 17

// Options configures Open. The zero value is a usable default.
type Options struct {
	// Dir overrides the index directory (default: DefaultDir(root)).
	Dir string
	// InMemory keeps the index in RAM only, e.g. for --no-cache or tests.
	InMemory bool
	// GrammarVersion and BinaryVersion are stored in the index; a change of
	// either discards it, because extraction results may differ.
	GrammarVersion string
	BinaryVersion  string
	// Logger receives badger's warnings and errors (default: text on stderr,
	// never stdout, which carries the LSP stream).
	Logger *slog.Logger
	// FileLocal says which of a file's definitions and references only that
	// file can mean (what function bodies declare, and the uses bound to
	// them by scope alone): they stay out of the name tables, and queries
	// look for them in their own file. The resolver decides this
	// (resolve.BodyBindings); its opener hands it in, since storage knows no
	// resolution rules. nil keeps every entry in the name tables.
	FileLocal func(*analysis.FileFacts) (defs, refs []bool)
	// RefHints gives each of a file's references a small number, stored in
	// its reference posting (RefHit.Hint): what the resolver can tell of it
	// from its own file (resolve.GoRefHints), so that a query can set some
	// aside without decoding the file. nil, or a nil result, stores zeros.
	// A hint with HintSpan set stores the reference's span too.
	RefHints func(*analysis.FileFacts) []uint64
	// Sealed opens the index read-only when it can (sealed.go): a complete
	// library's, which is only read. A write reopens it writable.
	Sealed bool
	// FreeSpace reports the bytes free on a directory's file system (default:
	// statfs); tests stand in a full disk with it.
	FreeSpace func(dir string) (uint64, error)
}

// Index is an open symbol index. Queries are safe for concurrent use; writes
// are serialised internally (see Batch).
type Index struct {
	fileLocal func(*analysis.FileFacts) (defs, refs []bool)
	refHints  func(*analysis.FileFacts) []uint64
	free      func(dir string) (uint64, error) // see space.go
	gen       atomic.Pointer[generation]       // the database now (relocate.go)
	dir       string                           // on disk, or the disk it left for memory; "" for an in-memory index
	version   []byte                           // schema, grammar and binary versions, as stored
	logger    *slog.Logger
	notice    atomic.Pointer[string]
	reads     atomic.Int64 // read transactions begun (tests count them)

	// root and binaryVersion go into the folder's descriptor (cache.go).
	root          string
	binaryVersion string
	descMu        sync.Mutex
	languages     map[string]int // as last recorded, under descMu

	// spaceFallback is set, under writeMu, while the index is in memory for
	// want of space on dir.
	spaceFallback bool

	writeMu  sync.Mutex // held by the one open Batch, and by Close
	sealMu   sync.Mutex // held while the database is reopened (sealed.go)
	closed   bool
	nextFile uint32
	nextName uint32
	// nameLimit is the name counter as last written: ids below it are
	// reserved, so interning a name writes the counter only once per
	// nameIDBlock names (see Batch.nameID).
	nameLimit uint32
	names     map[string]uint32 // name → id cache, only touched under writeMu
	// allNames is true while names holds every interned name, as it does for
	// an index created empty until the cache is first cleared: a cache miss
	// then means a new name, without a lookup (most of a cold build's names).
	allNames bool
	// known lists, for an index opened empty, every path and blob that may
	// exist, so a cold build skips reads that can only miss (see fresh.go).
	known knownSet
	// rows caches the file table for queries (see filerows.go).
	rows fileRows
	// nameList copies the name table for symbol search (see namelist.go).
	nameList nameList
}

// DefaultDir is $XDG_CACHE_HOME/kast/<hash of the workspace root>, falling back
// to ~/.cache when XDG_CACHE_HOME is unset.
func DefaultDir(root string) (string, error) {
	abs, err := canonicalRoot(root)
	if err != nil {
		return "", err
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" || !filepath.IsAbs(cache) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("storage: no cache directory: %w", err)
		}
		cache = filepath.Join(home, ".cache")
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "kast", hex.EncodeToString(sum[:8])), nil
}

// canonicalRoot is root absolute with its symlinks resolved: the name its
// index folder is derived from and its descriptor shows.
func canonicalRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// Open opens or creates the index of the workspace at root.
func Open(root string, opts Options) (*Index, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	ix := &Index{fileLocal: opts.FileLocal, refHints: opts.RefHints, free: opts.FreeSpace, version: versionValue(opts),
		logger: logger.With("component", "badger"), binaryVersion: opts.BinaryVersion}
	ix.root, _ = canonicalRoot(root)
	if ix.free == nil {
		ix.free = freeBytes
	}
	if opts.InMemory {
		return ix, ix.openInMemory("")
	}
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultDir(root); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	ix.dir = dir
	if free, err := ix.free(dir); err == nil && free < openFreeBytes {
		ix.spaceFallback = true
		return ix, ix.openInMemory(fmt.Sprintf("%s; using a temporary in-memory index until space is freed",
			(&DiskFullError{Dir: dir, Free: free, Need: openFreeBytes}).Error()))
	}
	var db *badger.DB
	var notice string
	var err error
	sealed := false
	if opts.Sealed {
		db = ix.openSealed()
		sealed = db != nil
	}
	if db == nil {
		db, notice, err = ix.openDisk()
	}
	switch {
	case isLockError(err):
		return ix, ix.openInMemory(lockNotice(dir))
	case err != nil:
		return nil, err
	}
	ix.setNotice(notice)
	g := newGeneration(db, false)
	g.readOnly = sealed
	ix.gen.Store(g)
	if err := ix.init(); err != nil {
		db.Close()
		return nil, err
	}
	ix.touchDescriptor(ix.root, nil)
	return ix, nil
}

// openDisk opens the database at ix.dir, rebuilding it when it cannot be
// opened or read or was written by other versions; notice says so. Another
// process holding it is an error isLockError recognises.
func (ix *Index) openDisk() (*badger.DB, string, error) {
	dir, logger := ix.dir, ix.logger
	db, err := badger.Open(badgerOptions(dir, logger))
	if isLockError(err) {
		return nil, "", err
	}
	if err != nil {
		notice := fmt.Sprintf("the index at %s could not be opened and was rebuilt: %v", dir, err)
		db, err = reopenAside(dir, logger, true)
		return db, notice, err
	}
	switch ok, err := checkVersion(db, ix.version); {
	case err != nil: // unreadable data is an open error by another name
		db.Close()
		notice := fmt.Sprintf("the index at %s could not be read and was rebuilt: %v", dir, err)
		db, err = reopenAside(dir, logger, true)
		return db, notice, err
	case !ok:
		db.Close()
		db, err = reopenAside(dir, logger, false)
		return db, "the index was built by a different kast version and is being rebuilt", err
	}
	return db, "", nil
}

// openInMemory makes ix an in-memory index, notice saying why.
func (ix *Index) openInMemory(notice string) error {
	db, err := badger.Open(tune(badger.DefaultOptions("").WithInMemory(true), ix.logger).WithValueThreshold(inMemoryValueLimit))
	if err != nil {
		return fmt.Errorf("storage: in-memory index: %w", err)
	}
	ix.setNotice(notice)
	ix.gen.Store(newGeneration(db, true))
	if err := ix.init(); err != nil {
		db.Close()
		return err
	}
	return nil
}

// badgerOptions is the editor profile of notes/go-lsp-stack.md §3.3: small
// memtables and caches so an idle editor backend stays small.
func badgerOptions(dir string, logger *slog.Logger) badger.Options {
	return tune(badger.DefaultOptions(dir), logger).
		WithValueLogFileSize(valueLogFileSize)
}

// valueLogFileSize is where badger starts a new value-log file. Starting
// one syncs the whole previous file while writes wait: with 64 MB files a
// cold index of the Go standard library (81 MB of blobs) stalled on it once,
// and ran 1-3% slower in 8 of 8 alternated pairs than with one file. The
// price: garbage in the file being written cannot be collected until the
// next one starts, so up to 128 MB of it may sit on disk.
const valueLogFileSize = 128 << 20

// valueThreshold sends values above it to the value log instead of the LSM
// tree. Extraction blobs (tens of KB) then are written once instead of again
// by every compaction, which cut write CPU by about 30% in BenchmarkPutFiles;
// posting rows stay below it and are read straight from the LSM tree. The
// price is value-log garbage, reclaimed by CollectGarbage.
const valueThreshold = 1 << 10

func tune(o badger.Options, logger *slog.Logger) badger.Options {
	return o.
		// Smaller memtables make inserts cheaper (8 MB took about 0.3 s of
		// CPU off a cold index of the Go standard library), but the extra
		// level-0 tables they leave slowed name queries by 15-40% until a
		// compaction, which an index of that size never reaches.
		WithMemTableSize(16 << 20).
		WithNumMemtables(2).
		// Level-0 tables are compacted only once 16 accumulate: a cold index
		// of the Go standard library flushes 7, so a bulk load writes each
		// row once instead of recompacting it, which saved about 2 s of CPU
		// and 100 MB of table-builder buffers. Reads check at most 16 small
		// tables' bloom filters meanwhile.
		WithNumLevelZeroTables(16).
		WithNumLevelZeroTablesStall(32).
		WithBlockCacheSize(32 << 20).
		WithIndexCacheSize(16 << 20).
		WithNumCompactors(2).
		WithCompression(options.Snappy).
		WithValueThreshold(valueThreshold).
		WithMetricsEnabled(false).
		WithDetectConflicts(false). // Batch serialises writers itself
		WithLogger(slogLogger{logger}).
		WithLoggingLevel(badger.WARNING)
}

// isLockError recognises badger's directory-lock failure. badger formats the
// cause with %+v rather than wrapping it, so the message is all there is; the
// phrase is shared by the Unix (flock) and Windows (lock file) implementations.
func isLockError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Another process is using this Badger database")
}

// lockNotice names the holder by the pid badger writes into dir/LOCK.
func lockNotice(dir string) string {
	holder := "another process"
	if pid, err := os.ReadFile(filepath.Join(dir, "LOCK")); err == nil && len(bytes.TrimSpace(pid)) > 0 {
		holder = "another process (pid " + string(bytes.TrimSpace(pid)) + ")"
	}
	return fmt.Sprintf("the index at %s is in use by %s; using a temporary in-memory index for this session", dir, holder)
}

// reopenAside moves dir to dir.old (replacing an older one) and opens a fresh
// database at dir. keep leaves the old copy for diagnosis; otherwise it is removed.
func reopenAside(dir string, logger *slog.Logger, keep bool) (*badger.DB, error) {
	aside := dir + ".old"
	if err := os.RemoveAll(aside); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	if err := os.Rename(dir, aside); err != nil {
		return nil, fmt.Errorf("storage: moving the index aside: %w", err)
	}
	if !keep {
		if err := os.RemoveAll(aside); err != nil {
			logger.Warn("cannot remove old index", "dir", aside, "err", err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	db, err := badger.Open(badgerOptions(dir, logger))
	if err != nil {
		return nil, fmt.Errorf("storage: rebuilding the index: %w", err)
	}
	return db, nil
}

func versionValue(opts Options) []byte {
	e := &encoder{}
	e.uvarint(schemaVersion)
	e.str(opts.GrammarVersion)
	e.str(opts.BinaryVersion)
	return e.buf
}

// checkVersion reports whether the database is empty or was written with the
// same schema, grammar and binary versions.
func checkVersion(db *badger.DB, version []byte) (bool, error) {
	var ok bool
	err := db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(metaKey("version"))
		if errors.Is(err, badger.ErrKeyNotFound) {
			it := txn.NewIterator(badger.IteratorOptions{})
			defer it.Close()
			it.Rewind()
			ok = !it.Valid()
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			ok = bytes.Equal(v, version)
			return nil
		})
	})
	return ok, err
}

// init writes the version of a new database and loads the id counters: at
// open, and after a move under writeMu.
func (ix *Index) init() error {
	ix.nextFile, ix.nextName = 1, 1 // 0 is never a valid id
	ix.names = make(map[string]uint32)
	err := ix.view(func(txn *badger.Txn) error {
		for key, dst := range map[string]*uint32{"nextFile": &ix.nextFile, "nextName": &ix.nextName} {
			item, err := txn.Get(metaKey(key))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := item.Value(func(v []byte) error {
				if len(v) != 4 {
					return errCorrupt
				}
				*dst = binary.BigEndian.Uint32(v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	ix.allNames = ix.nextName == 1
	// File ids are allocated before a file's first row, and blobs are written
	// only with a file, so an unused file counter means no paths or blobs.
	ix.known.reset(ix.nextFile == 1)
	ix.nameLimit = ix.nextName
	ix.nameList.setExpect(int(ix.nextName))
	if ix.gen.Load().readOnly {
		return nil // opened sealed: its version was read, and is this one
	}
	return ix.update(func(txn *badger.Txn) error {
		return txn.Set(metaKey("version"), ix.version)
	})
}

// CollectGarbage rewrites value-log files that are mostly garbage (blobs of
// replaced or removed files). It is cheap when there is nothing to do; call it
// after an indexing run and now and then while serving.
func (ix *Index) CollectGarbage() error {
	g := ix.acquire()
	defer g.release()
	if g.inMemory || g.readOnly { // a sealed index writes no garbage
		return nil
	}
	for {
		switch err := g.db.RunValueLogGC(0.5); {
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			return nil
		case err != nil:
			return fmt.Errorf("storage: value log GC: %w", err)
		}
	}
}

// InMemory reports whether the index lives only in RAM for this session.
func (ix *Index) InMemory() bool { return ix.gen.Load().inMemory }

// Notice is a user-facing sentence when the index is not the usual persistent
// one (in memory because another process holds it, or rebuilt); otherwise "".
func (ix *Index) Notice() string {
	if n := ix.notice.Load(); n != nil {
		return *n
	}
	return ""
}

func (ix *Index) setNotice(n string) { ix.notice.Store(&n) }

// Dir is the index directory, "" for an in-memory index.
func (ix *Index) Dir() string {
	if ix.InMemory() {
		return ""
	}
	return ix.dir
}

// Close flushes and closes the database. It waits for an open Batch to finish.
// Closing twice is harmless.
func (ix *Index) Close() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	if !ix.InMemory() {
		ix.touchDescriptor(ix.root, nil)
	}
	ix.sealMu.Lock()
	defer ix.sealMu.Unlock()
	g := ix.gen.Load()
	err := g.retire()
	if g.readOnly {
		ix.releaseLock()
	}
	g.succeed()
	return err
}

// slogLogger routes badger's log lines to slog.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Errorf(f string, a ...any)   { s.l.Error(strings.TrimSpace(fmt.Sprintf(f, a...))) }
func (s slogLogger) Warningf(f string, a ...any) { s.l.Warn(strings.TrimSpace(fmt.Sprintf(f, a...))) }
func (s slogLogger) Infof(f string, a ...any)    { s.l.Info(strings.TrimSpace(fmt.Sprintf(f, a...))) }
func (s slogLogger) Debugf(f string, a ...any)   { s.l.Debug(strings.TrimSpace(fmt.Sprintf(f, a...))) }
