package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/kast-dev/kast/analysis"
)

// The file row: what the index knows of one file, and the content hash
// naming its extraction blob.

// HashContent is the content hash FileFacts.Hash must carry: lowercase hex SHA-256.
func HashContent(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

func parseHash(s string) (contentHash, error) {
	var h contentHash
	if len(s) != 2*hashLen {
		return h, fmt.Errorf("storage: content hash %q is not hex SHA-256", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("storage: content hash %q: %w", s, err)
	}
	return h, nil
}

// FileState is what the index knows about one file.
type FileState struct {
	Path    string
	Lang    string
	Package string // FileFacts.Package
	Size    int64
	ModTime time.Time
	Hash    string // lowercase hex SHA-256 of the indexed content
	Lines   int
	Defs    int
	Refs    int
	ASCII   bool // FileFacts.ASCII
	// WideLines are FileFacts.WideLines.
	WideLines []int32
	Imports   []string // a Go file's import paths
	// Receivers are the receiver types of a Go file's methods, as written
	// ("*Value"), each once: a type's methods are found without decoding
	// every file of its package.
	Receivers []string
	// Incomplete marks a file whose last write was interrupted (the process
	// died mid-batch): its rows may be partial and it must be reindexed.
	Incomplete bool
}

// fileRow is the stored form of FileState.
type fileRow struct {
	path, lang, pkg   string
	size, mtime       int64
	hash              contentHash
	lines, defs, refs int
	incomplete, ascii bool
	// imports are a Go file's import paths: queries find which files
	// import a package from the file table, without decoding facts.
	imports []string
	// receivers are a Go file's method receiver types (FileState.Receivers).
	receivers []string
	wide      []int32 // FileFacts.WideLines
}

func (r fileRow) encode() []byte {
	e := &encoder{}
	e.str(r.path)
	e.str(r.lang)
	e.str(r.pkg)
	e.varint(r.size)
	e.varint(r.mtime)
	e.buf = append(e.buf, r.hash[:]...)
	e.varint(int64(r.lines))
	e.varint(int64(r.defs))
	e.varint(int64(r.refs))
	e.bool(r.incomplete)
	e.bool(r.ascii)
	e.uvarint(uint64(len(r.imports)))
	for _, p := range r.imports {
		e.str(p)
	}
	e.uvarint(uint64(len(r.receivers)))
	for _, t := range r.receivers {
		e.str(t)
	}
	e.int32s(r.wide)
	return e.buf
}

func decodeFileRow(v []byte) (fileRow, error) {
	d := &decoder{buf: v}
	r := fileRow{path: d.str(), lang: d.str(), pkg: d.str(), size: d.varint(), mtime: d.varint()}
	copy(r.hash[:], d.bytes(hashLen))
	r.lines, r.defs, r.refs, r.incomplete, r.ascii = d.int(), d.int(), d.int(), d.bool(), d.bool()
	r.imports = d.strs()
	r.receivers = d.strs()
	r.wide = d.int32s()
	return r, d.err
}

// hashHex is the row's content hash as FileState.Hash spells it.
func (r fileRow) hashHex() string { return hex.EncodeToString(r.hash[:]) }

func (r fileRow) state() FileState {
	s := FileState{Path: r.path, Lang: r.lang, Package: r.pkg, Size: r.size, Hash: r.hashHex(),
		Lines: r.lines, Defs: r.defs, Refs: r.refs, ASCII: r.ascii, Incomplete: r.incomplete, Imports: r.imports, Receivers: r.receivers,
		WideLines: r.wide}
	if r.mtime != 0 {
		s.ModTime = time.Unix(0, r.mtime)
	}
	return s
}

// goImports lists the import paths of a Go file, nil for other languages.
func goImports(f *analysis.FileFacts) []string {
	if f.Lang != "go" {
		return nil
	}
	var out []string
	for _, imp := range f.Imports {
		out = append(out, imp.Path)
	}
	return out
}

// goReceivers lists the receiver types of a Go file's methods, each once,
// nil for other languages.
func goReceivers(f *analysis.FileFacts) []string {
	if f.Lang != "go" {
		return nil
	}
	var out []string
	for _, d := range f.Defs {
		if d.Container == analysis.None && d.Receiver != "" && !slices.Contains(out, d.Receiver) {
			out = append(out, d.Receiver)
		}
	}
	return out
}

// blobID names one stored extraction result.
type blobID struct {
	hash contentHash
	lang string
}
