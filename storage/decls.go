package storage

import (
	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// A reference pass resolves every file, and resolving one crosses into many
// others to read a declaration: a method's result type, a field, an import.
// Decoding those files' whole facts (their references are most of them) was
// 42% of the pass on the Go standard library. So beside each Go blob the
// index stores its declarations table: what the Go resolver reads of a file
// it crosses into, uncompressed (small rows sit in badger's compressed
// blocks), decoded without the references, calls and doc comments.
//
// The table keeps every definition at its index (a DefID indexes Defs),
// locals (two thirds of the standard library's definitions) as place
// holders, the scopes, imports and supertypes whole, and the inheritance
// references alone: an embedded type is resolved through the reference at
// its place.

// tagDecls keys a blob's declarations table, like tagBlob.
const tagDecls = 'K'

func declsKey(h contentHash, lang string) []byte {
	k := append([]byte{tagDecls}, h[:]...)
	return append(k, lang...)
}

// declsLangs are the languages whose blobs have a declarations table: those
// whose resolver reads nothing else of a file it crosses into. (The Python
// resolver reads decorators' references, the Kotlin one @file:JvmName.)
var declsLangs = map[string]bool{"go": true}

// appendDecls encodes f's declarations table into scratch.
func appendDecls(scratch []byte, f *analysis.FileFacts) []byte {
	e := &encoder{buf: scratch[:0]}
	e.str(f.Lang)
	e.str(f.Package)
	e.varint(int64(f.Size))
	e.varint(int64(f.Lines))
	e.bool(f.ASCII)
	e.uvarint(uint64(len(f.Defs)))
	for i, d := range f.Defs {
		if localDecl(f, i) {
			// Only its own file's resolution reads a local: a place
			// holder keeps the indexes and what DeclaredInBody walks.
			e.byte(declLocal)
			e.byte(byte(d.Kind))
			e.varint(int64(d.Container))
			e.varint(int64(d.Scope))
			continue
		}
		e.byte(declWhole)
		e.def(d, false)
	}
	e.scopes(f.Scopes)
	e.imports(f.Imports)
	e.supertypes(f.Supertypes)
	n := 0
	for _, r := range f.Refs {
		if r.Role&analysis.RoleInheritance != 0 {
			n++
		}
	}
	e.uvarint(uint64(n))
	for _, r := range f.Refs {
		if r.Role&analysis.RoleInheritance != 0 {
			e.ref(r)
		}
	}
	return e.buf
}

const (
	declWhole = iota // a definition stored whole, without its doc comment
	declLocal        // a place holder: kind, container and scope
)

// localDecl reports whether f's definition i is a local: declared inside a
// function, method or lambda body (resolve.DeclaredInBody), and neither a
// parameter nor a type parameter, which a signature's types may name.
func localDecl(f *analysis.FileFacts, i int) bool {
	switch f.Defs[i].Kind {
	case analysis.KindParameter, analysis.KindTypeParameter:
		return false
	}
	for c := f.Defs[i].Container; c >= 0 && int(c) < len(f.Defs); c = f.Defs[c].Container {
		switch f.Defs[c].Kind {
		case analysis.KindFunction, analysis.KindMethod, analysis.KindConstructor, analysis.KindLambda:
			return true
		}
	}
	return false
}

// decodeDecls is the inverse of appendDecls: facts whose Refs are the
// inheritance references alone, without calls, casts, errors or docs.
func decodeDecls(v []byte) (*analysis.FileFacts, error) {
	d := &decoder{buf: v, names: map[string]string{}}
	f := &analysis.FileFacts{Lang: d.str(), Package: d.str(), Size: d.int(), Lines: d.int(), ASCII: d.bool()}
	if n := d.count(); n > 0 {
		f.Defs = make([]analysis.Def, n)
		for i := range f.Defs {
			switch d.byte() {
			case declLocal:
				f.Defs[i] = analysis.Def{Kind: analysis.Kind(d.byte()), Container: d.int32(), Scope: d.int32()}
			case declWhole:
				f.Defs[i] = d.def(docAbsent)
			default:
				d.fail()
			}
		}
	}
	f.Scopes = d.scopes()
	f.Imports = d.imports()
	f.Supertypes = d.supertypes()
	if n := d.count(); n > 0 {
		f.Refs = make([]analysis.Ref, n)
		for i := range f.Refs {
			f.Refs[i] = d.ref()
		}
	}
	if d.err == nil && len(d.buf) != 0 {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// withRow runs fn, in one read, on the row of path when it is indexed.
func (ix *Index) withRow(path string, fn func(*badger.Txn, fileRow) error) error {
	gen := ix.rows.begin()
	return ix.view(func(txn *badger.Txn) error {
		id, ok, err := ix.rows.idOf(txn, gen, path)
		if err != nil || !ok {
			return err
		}
		row, err := ix.rows.row(txn, gen, id)
		if err != nil || row.path == "" {
			return err
		}
		return fn(txn, row)
	})
}

// putDecls writes blob's declarations table, if its language has one. An
// in-memory index skips a table above the largest value it accepts: Decls
// then reads the whole facts.
func (b *Batch) putDecls(blob blobID, facts *analysis.FileFacts) error {
	if !declsLangs[facts.Lang] {
		return nil
	}
	b.declsScratch = appendDecls(b.declsScratch, facts)
	if b.ix.current().big != nil && len(b.declsScratch) > inMemoryValueLimit {
		return nil
	}
	// The batch keeps the value until commit: a copy, not the scratch.
	return b.wb.Set(declsKey(blob.hash, blob.lang), append([]byte(nil), b.declsScratch...))
}

// Decls returns the declarations table of path's indexed content: facts
// holding its definitions (without doc comments), scopes, imports,
// supertypes and inheritance references (as Refs), and nothing else. For a
// language without a table, or content stored without one, it returns
// the whole facts, which hold all of that too.
func (ix *Index) Decls(path string) (*analysis.FileFacts, error) {
	var facts *analysis.FileFacts
	var found bool
	err := ix.withRow(path, func(txn *badger.Txn, row fileRow) error {
		if !declsLangs[row.lang] {
			return nil
		}
		return getValue(txn, declsKey(row.hash, row.lang), func(v []byte) (err error) {
			found = true
			facts, err = decodeDecls(v)
			if facts != nil {
				facts.Path, facts.Hash = path, row.state().Hash
			}
			return err
		})
	})
	if err != nil || found {
		return facts, err
	}
	return ix.Facts(path)
}
