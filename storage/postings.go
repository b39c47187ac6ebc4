package storage

import (
	"github.com/kast-dev/kast/analysis"
)

// DefHit is one definition found by name, with enough to navigate to it and
// show it without reparsing.
type DefHit struct {
	Path      string
	Lang      string
	Index     int // into Facts(Path).Defs
	Name      string
	Kind      analysis.Kind
	NameSpan  analysis.Span
	FullSpan  analysis.Span
	Container string // the enclosing definition's name, "" at top level
}

// RefHit is one reference to a name.
type RefHit struct {
	Path      string
	Lang      string
	Index     int // into Facts(Path).Refs
	Name      string
	Span      analysis.Span
	Role      analysis.Role
	Qualifier string
	Enclosing int32 // index into Facts(Path).Defs, or analysis.None
}

// CallHit is one call site of a callee name, with the calling definition.
type CallHit struct {
	Path       string
	Lang       string
	Index      int // into Facts(Path).Calls
	Callee     string
	Site       analysis.Span
	Caller     int32 // index into Facts(Path).Defs, or analysis.None at top level
	CallerName string
	CallerKind analysis.Kind
	CallerSpan analysis.Span // the caller's name span
}

// TypeEdge is one "Sub extends/implements Super" edge as written in Sub's file.
type TypeEdge struct {
	Path      string
	Lang      string
	Index     int // into Facts(Path).Supertypes
	Sub       string
	SubIndex  int32 // index into Facts(Path).Defs
	SubKind   analysis.Kind
	SubSpan   analysis.Span // the subtype's name span
	Super     string
	SuperSpan analysis.Span // where the supertype is named
}

// def returns facts.Defs[i], or nil when i is None or out of range, so a buggy
// extractor cannot make the index panic.
func def(f *analysis.FileFacts, i int32) *analysis.Def {
	if i < 0 || int(i) >= len(f.Defs) {
		return nil
	}
	return &f.Defs[i]
}

func encodeDefPosting(e *encoder, f *analysis.FileFacts, idx []int) {
	e.uvarint(uint64(len(idx)))
	for _, i := range idx {
		d := &f.Defs[i]
		e.varint(int64(i))
		e.byte(byte(d.Kind))
		e.span(d.NameSpan)
		e.span(d.FullSpan)
		container := ""
		if c := def(f, d.Container); c != nil {
			container = c.Name
		}
		e.str(container)
	}
}

func decodeDefPosting(v []byte, name string, file fileRow, out []DefHit) ([]DefHit, error) {
	d := &decoder{buf: v}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		out = append(out, DefHit{Path: file.path, Lang: file.lang, Name: name,
			Index: d.int(), Kind: analysis.Kind(d.byte()), NameSpan: d.span(), FullSpan: d.span(),
			Container: d.str()})
	}
	return out, d.err
}

func encodeRefPosting(e *encoder, f *analysis.FileFacts, idx []int) {
	e.uvarint(uint64(len(idx)))
	for _, i := range idx {
		r := &f.Refs[i]
		e.varint(int64(i))
		e.byte(byte(r.Role))
		e.span(r.Span)
		e.str(r.Qualifier)
		e.varint(int64(r.Enclosing))
	}
}

func decodeRefPosting(v []byte, name string, file fileRow, out []RefHit) ([]RefHit, error) {
	d := &decoder{buf: v}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		out = append(out, RefHit{Path: file.path, Lang: file.lang, Name: name,
			Index: d.int(), Role: analysis.Role(d.byte()), Span: d.span(), Qualifier: d.str(),
			Enclosing: d.int32()})
	}
	return out, d.err
}

func encodeCallPosting(e *encoder, f *analysis.FileFacts, idx []int) {
	e.uvarint(uint64(len(idx)))
	for _, i := range idx {
		c := &f.Calls[i]
		e.varint(int64(i))
		e.span(c.Site)
		caller := analysis.Def{}
		callerIndex := analysis.None
		if d := def(f, c.Caller); d != nil {
			caller, callerIndex = *d, c.Caller
		}
		e.varint(int64(callerIndex))
		e.str(caller.Name)
		e.byte(byte(caller.Kind))
		e.span(caller.NameSpan)
	}
}

func decodeCallPosting(v []byte, callee string, file fileRow, out []CallHit) ([]CallHit, error) {
	d := &decoder{buf: v}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		out = append(out, CallHit{Path: file.path, Lang: file.lang, Callee: callee,
			Index: d.int(), Site: d.span(), Caller: d.int32(), CallerName: d.str(),
			CallerKind: analysis.Kind(d.byte()), CallerSpan: d.span()})
	}
	return out, d.err
}

// encodeEdgePosting serves both edge tables; idx holds Supertypes indices whose
// Def is valid.
func encodeEdgePosting(e *encoder, f *analysis.FileFacts, idx []int) {
	e.uvarint(uint64(len(idx)))
	for _, i := range idx {
		s := &f.Supertypes[i]
		sub := def(f, s.Def)
		e.varint(int64(i))
		e.str(sub.Name)
		e.varint(int64(s.Def))
		e.byte(byte(sub.Kind))
		e.span(sub.NameSpan)
		e.str(s.Name)
		e.span(s.Span)
	}
}

func decodeEdgePosting(v []byte, file fileRow, out []TypeEdge) ([]TypeEdge, error) {
	d := &decoder{buf: v}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		out = append(out, TypeEdge{Path: file.path, Lang: file.lang,
			Index: d.int(), Sub: d.str(), SubIndex: d.int32(), SubKind: analysis.Kind(d.byte()),
			SubSpan: d.span(), Super: d.str(), SuperSpan: d.span()})
	}
	return out, d.err
}

// postingTable says which of a file's entries one posting table holds, and
// under which name: name(i) is the key name of entry i, "" to leave it out.
type postingTable struct {
	tag  byte
	n    int
	name func(i int) string
}

// postingTables lists the tables in tag order, so rows built table by table
// and name id by name id come out sorted by key.
func postingTables(f *analysis.FileFacts) []postingTable {
	return []postingTable{
		{tagSub, len(f.Supertypes), func(i int) string {
			if def(f, f.Supertypes[i].Def) != nil {
				return f.Supertypes[i].Name
			}
			return ""
		}},
		{tagCall, len(f.Calls), func(i int) string { return f.Calls[i].Callee }},
		{tagDef, len(f.Defs), func(i int) string { return f.Defs[i].Name }},
		{tagRef, len(f.Refs), func(i int) string { return f.Refs[i].Name }},
		{tagSuper, len(f.Supertypes), func(i int) string {
			if sub := def(f, f.Supertypes[i].Def); sub != nil {
				return sub.Name
			}
			return ""
		}},
	}
}

var postingEncoders = map[byte]func(*encoder, *analysis.FileFacts, []int){
	tagDef:   encodeDefPosting,
	tagRef:   encodeRefPosting,
	tagCall:  encodeCallPosting,
	tagSuper: encodeEdgePosting,
	tagSub:   encodeEdgePosting,
}
