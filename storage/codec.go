package storage

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/kast-dev/kast/analysis"
)

// Values are varint-packed binary rather than gob+zstd or JSON. FileFacts is a
// flat, fixed shape, so a hand-written layout is several times smaller than gob
// (which repeats type descriptors per stream and encodes through reflection),
// decodes without reflection on the hot path of every query, and needs no second
// compression layer for posting rows because badger already Snappy-compresses
// each SST block. Extraction blobs live in the value log, which badger stores
// raw, so encodeFacts compresses them with S2 itself (see there).
// The price is that a new FileFacts field must be added here and schemaVersion
// bumped; TestBlobRoundTripCoversEveryField fails until that is done.

var errCorrupt = errors.New("storage: corrupt value")

type encoder struct{ buf []byte }

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) varint(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }
func (e *encoder) byte(b byte)      { e.buf = append(e.buf, b) }
func (e *encoder) bool(b bool) {
	if b {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// span stores the end relative to the start, so a one-line name costs about
// six bytes instead of ten. Zigzag varints keep any value, even the negative
// ones a buggy extractor might produce, intact.
func (e *encoder) span(s analysis.Span) {
	e.varint(int64(s.Start))
	e.varint(int64(s.End - s.Start))
	e.varint(int64(s.StartPoint.Line))
	e.varint(int64(s.StartPoint.Col))
	e.varint(int64(s.EndPoint.Line - s.StartPoint.Line))
	e.varint(int64(s.EndPoint.Col))
}

// decoder reads what encoder wrote. The first malformed field sets err and every
// later read returns a zero value, so callers check err once at the end.
type decoder struct {
	buf []byte
	err error
	// names, when set, makes one string of each distinct name a blob
	// repeats (err, x, Errorf): fewer allocations to decode and to keep.
	names map[string]string
}

func (d *decoder) fail() { d.err, d.buf = errCorrupt, nil }

func (d *decoder) uvarint() uint64 {
	if len(d.buf) > 0 && d.buf[0] < 0x80 {
		v := uint64(d.buf[0])
		d.buf = d.buf[1:]
		return v
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) varint() int64 {
	// Most are one byte (spans are small deltas): decoded inline.
	if len(d.buf) > 0 && d.buf[0] < 0x80 {
		u := uint64(d.buf[0])
		d.buf = d.buf[1:]
		return int64(u>>1) ^ -int64(u&1)
	}
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) int() int     { return int(d.varint()) }
func (d *decoder) int32() int32 { return int32(d.varint()) }

func (d *decoder) byte() byte {
	if len(d.buf) == 0 {
		d.fail()
		return 0
	}
	b := d.buf[0]
	d.buf = d.buf[1:]
	return b
}

func (d *decoder) bool() bool { return d.byte() != 0 }

func (d *decoder) bytes(n int) []byte {
	if n < 0 || n > len(d.buf) {
		d.fail()
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *decoder) str() string { return string(d.bytes(int(d.uvarint()))) }

// name is str for a string a blob repeats, made once per decoder.
func (d *decoder) name() string {
	b := d.bytes(int(d.uvarint()))
	if len(b) == 0 || d.names == nil {
		return string(b)
	}
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	d.names[s] = s
	return s
}

// count reads a slice length, rejecting lengths that cannot fit in the rest of
// the buffer so corrupt data cannot trigger a huge allocation.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.fail()
		return 0
	}
	return int(n)
}

// strs reads a counted list of strings; nil when empty.
func (d *decoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

// int32s and (*encoder).int32s code a short list of small numbers.
func (d *decoder) int32s() []int32 {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = d.int32()
	}
	return out
}

func (e *encoder) int32s(xs []int32) {
	e.uvarint(uint64(len(xs)))
	for _, x := range xs {
		e.varint(int64(x))
	}
}

func (d *decoder) span() analysis.Span {
	var s analysis.Span
	s.Start = d.int()
	s.End = s.Start + d.int()
	s.StartPoint = analysis.Point{Line: d.int(), Col: d.int()}
	s.EndPoint = analysis.Point{Line: s.StartPoint.Line + d.int(), Col: d.int()}
	return s
}

// encodeFacts encodes everything but Path and Hash, which come from the key and
// the file row: one blob serves every path with the same content. The result
// is S2-compressed: badger writes value-log entries raw, and S2 makes the Go
// standard library's blobs a third smaller (116 → 79 MB) for about 0.3 s of
// CPU, which cuts the bytes written and the memory-mapped log pages a cold
// index keeps resident. (S2's better mode and zstd shrink them further but
// cost two to four times the CPU, and more to decode on every query.)
func encodeFacts(f *analysis.FileFacts) []byte {
	b, _ := appendFacts(nil, f)
	return b
}

// appendFacts is encodeFacts with a scratch buffer for the uncompressed
// encoding, which a writer reuses from file to file; it returns the
// compressed blob and the scratch buffer to reuse.
func appendFacts(scratch []byte, f *analysis.FileFacts) (blob, reuse []byte) {
	e := &encoder{buf: scratch[:0]}
	e.str(f.Lang)
	e.str(f.Package)
	e.varint(int64(f.Size))
	e.varint(int64(f.Lines))
	e.bool(f.ASCII)
	e.uvarint(uint64(len(f.Defs)))
	for _, d := range f.Defs {
		e.def(d, true)
	}
	e.uvarint(uint64(len(f.Refs)))
	for _, r := range f.Refs {
		e.ref(r)
	}
	e.scopes(f.Scopes)
	e.imports(f.Imports)
	e.uvarint(uint64(len(f.Calls)))
	for _, c := range f.Calls {
		e.varint(int64(c.Caller))
		e.str(c.Callee)
		e.span(c.Site)
		e.varint(int64(c.Ref))
	}
	e.supertypes(f.Supertypes)
	e.uvarint(uint64(len(f.Errors)))
	for _, s := range f.Errors {
		e.span(s.Span)
		e.str(s.Message)
	}
	e.uvarint(uint64(len(f.Casts)))
	for _, c := range f.Casts {
		e.str(c.Name)
		e.str(c.Type)
		e.span(c.Span)
	}
	e.int32s(f.WideLines)
	return s2.Encode(nil, e.buf), e.buf
}

// maxBlobSize bounds a blob's decoded length so that a corrupt length header
// cannot make decodeFacts allocate gigabytes: real blobs are a few times the
// size of their file, and the scanner skips files above a few megabytes.
const maxBlobSize = 256 << 20

// decodeFacts is the inverse of encodeFacts. Empty slices decode as nil.
func decodeFacts(blob []byte) (*analysis.FileFacts, error) {
	return decodeFactsUpTo(blob, false)
}

// decodeFactsUpTo decodes a blob, stopping after the definitions when
// defsOnly is set: they come first, and the references after them are
// most of a file.
func decodeFactsUpTo(blob []byte, defsOnly bool) (*analysis.FileFacts, error) {
	return decodeFactsKeeping(blob, defsOnly, nil)
}

// decodeScratch holds buffers for decompressed blobs up to
// maxPooledDecode bytes (most files; a larger one is not kept).
var decodeScratch = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledDecode = 1 << 20

// decompress decodes blob, into a pooled buffer when it is small enough;
// release gives the buffer back, so callers copy out what they keep.
func decompress(blob []byte) (b []byte, release func(), err error) {
	n, err := s2.DecodedLen(blob)
	if err != nil || n > maxBlobSize {
		return nil, nil, errCorrupt
	}
	release = func() {}
	var dst []byte
	if n <= maxPooledDecode {
		scratch := decodeScratch.Get().(*[]byte)
		if cap(*scratch) < n {
			*scratch = make([]byte, n)
		}
		dst = (*scratch)[:n]
		release = func() { decodeScratch.Put(scratch) }
	}
	if b, err = s2.Decode(dst, blob); err != nil {
		release()
		return nil, nil, errCorrupt
	}
	return b, release, nil
}

// decodeFactsKeeping is decodeFactsUpTo building only the references keep
// asks for (all when keep is nil) and the inheritance references; the
// others stay zero at their indexes, the definitions lack their doc
// comments and the facts their call sites (what resolving the kept
// references reads).
func decodeFactsKeeping(blob []byte, defsOnly bool, keep func(i int) bool) (*analysis.FileFacts, error) {
	// Every string is copied out of the decoded bytes, so they can serve
	// the next blob: a cold query decodes thousands.
	b, release, err := decompress(blob)
	if err != nil {
		return nil, err
	}
	defer release()
	d := &decoder{buf: b, names: map[string]string{}}
	f := &analysis.FileFacts{Lang: d.str(), Package: d.str(), Size: d.int(), Lines: d.int(), ASCII: d.bool()}
	if n := d.count(); n > 0 {
		f.Defs = make([]analysis.Def, n)
		doc := docRead
		if keep != nil {
			doc = docSkipped
		}
		for i := range f.Defs {
			f.Defs[i] = d.def(doc)
		}
	}
	if defsOnly {
		if d.err != nil {
			return nil, d.err
		}
		return f, nil
	}
	if n := d.count(); n > 0 {
		f.Refs = make([]analysis.Ref, n)
		for i := range f.Refs {
			// A reference passed over is left as the zero the slice holds:
			// storing a zero Ref (its strings are pointers) costs write
			// barriers, and for thousands of references it was most of a
			// file's decoding.
			if keep == nil || keep(i) || !d.skipRef() {
				f.Refs[i] = d.ref()
			}
		}
	}
	f.Scopes = d.scopes()
	f.Imports = d.imports()
	if n := d.count(); n > 0 && keep != nil {
		// Resolving references reads no call site: they are passed over.
		for range n {
			d.skipVarints(1) // caller
			d.skip()         // callee
			d.skipVarints(7) // site, reference
		}
	} else if n > 0 {
		f.Calls = make([]analysis.Call, n)
		for i := range f.Calls {
			f.Calls[i] = analysis.Call{Caller: d.int32(), Callee: d.name(), Site: d.span(), Ref: d.int32()}
		}
	}
	f.Supertypes = d.supertypes()
	if n := d.count(); n > 0 {
		f.Errors = make([]analysis.SyntaxError, n)
		for i := range f.Errors {
			f.Errors[i] = analysis.SyntaxError{Span: d.span(), Message: d.str()}
		}
	}
	if n := d.count(); n > 0 {
		f.Casts = make([]analysis.Cast, n)
		for i := range f.Casts {
			f.Casts[i] = analysis.Cast{Name: d.str(), Type: d.str(), Span: d.span()}
		}
	}
	f.WideLines = d.int32s()
	if d.err == nil && len(d.buf) != 0 {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// The parts of a file's facts that its blob and its declarations table
// (decls.go) encode alike.

func (e *encoder) ref(r analysis.Ref) {
	e.str(r.Name)
	e.span(r.Span)
	e.byte(byte(r.Role))
	e.varint(int64(r.Scope))
	e.varint(int64(r.Enclosing))
	e.str(r.Qualifier)
	e.str(r.Args)
}

func (e *encoder) scopes(scopes []analysis.Scope) {
	e.uvarint(uint64(len(scopes)))
	for _, s := range scopes {
		e.span(s.Span)
		e.varint(int64(s.Parent))
		e.varint(int64(s.Def))
	}
}

func (e *encoder) imports(imports []analysis.Import) {
	e.uvarint(uint64(len(imports)))
	for _, im := range imports {
		e.str(im.Path)
		e.str(im.Name)
		e.str(im.Alias)
		e.bool(im.Wildcard)
		e.span(im.Span)
	}
}

func (e *encoder) supertypes(supertypes []analysis.Supertype) {
	e.uvarint(uint64(len(supertypes)))
	for _, s := range supertypes {
		e.varint(int64(s.Def))
		e.str(s.Name)
		e.span(s.Span)
	}
}

func (d *decoder) ref() analysis.Ref {
	return analysis.Ref{Name: d.name(), Span: d.span(), Role: analysis.Role(d.byte()),
		Scope: d.int32(), Enclosing: d.int32(), Qualifier: d.name(), Args: d.name()}
}

// skipRef passes over a reference and reports true, unless it is an
// inheritance one: then it leaves the reference to be read and reports
// false.
func (d *decoder) skipRef() bool {
	at := d.buf
	d.skip()         // name
	d.skipVarints(6) // span
	if role := analysis.Role(d.byte()); role&analysis.RoleInheritance != 0 {
		d.buf = at
		return false
	}
	d.skipVarints(2) // scope, enclosing
	d.skip()         // qualifier
	d.skip()         // arguments
	return true
}

// skipVarints passes over n varints: each ends at its first byte below
// 0x80.
func (d *decoder) skipVarints(n int) {
	b := d.buf
	for i := 0; i < len(b); i++ {
		if b[i] < 0x80 {
			if n--; n == 0 {
				d.buf = b[i+1:]
				return
			}
		}
	}
	if n > 0 {
		d.fail()
	}
}

// scopes, imports and supertypes decode empty lists as nil.
func (d *decoder) scopes() []analysis.Scope {
	n := d.count()
	if n == 0 {
		return nil
	}
	scopes := make([]analysis.Scope, n)
	for i := range scopes {
		scopes[i] = analysis.Scope{Span: d.span(), Parent: d.int32(), Def: d.int32()}
	}
	return scopes
}

func (d *decoder) imports() []analysis.Import {
	n := d.count()
	if n == 0 {
		return nil
	}
	imports := make([]analysis.Import, n)
	for i := range imports {
		imports[i] = analysis.Import{Path: d.str(), Name: d.str(), Alias: d.str(), Wildcard: d.bool(), Span: d.span()}
	}
	return imports
}

func (d *decoder) supertypes() []analysis.Supertype {
	n := d.count()
	if n == 0 {
		return nil
	}
	supertypes := make([]analysis.Supertype, n)
	for i := range supertypes {
		supertypes[i] = analysis.Supertype{Def: d.int32(), Name: d.str(), Span: d.span()}
	}
	return supertypes
}

// def encodes a definition, its doc comment only when withDoc: the
// declarations tables leave docs out.
func (e *encoder) def(d analysis.Def, withDoc bool) {
	e.str(d.Name)
	e.byte(byte(d.Kind))
	e.span(d.NameSpan)
	e.span(d.FullSpan)
	e.varint(int64(d.Container))
	e.varint(int64(d.Scope))
	e.str(d.Visibility)
	e.str(d.Signature)
	if withDoc {
		e.str(d.Doc)
	}
	e.str(d.TypeName)
	e.str(d.Receiver)
	e.str(d.Value)
}

// docField says what a definition's encoding holds of its doc comment, and
// what the decoder makes of it.
type docField int

const (
	docRead    docField = iota // held, and decoded
	docSkipped                 // held, and passed over
	docAbsent                  // not held (declarations tables)
)

// def is the inverse of encoder.def.
func (d *decoder) def(doc docField) analysis.Def {
	def := analysis.Def{
		Name: d.name(), Kind: analysis.Kind(d.byte()), NameSpan: d.span(), FullSpan: d.span(),
		Container: d.int32(), Scope: d.int32(), Visibility: d.name(), Signature: d.str(),
	}
	switch doc {
	case docRead:
		def.Doc = d.str()
	case docSkipped:
		d.skip()
	}
	def.TypeName, def.Receiver, def.Value = d.name(), d.name(), d.str()
	return def
}
