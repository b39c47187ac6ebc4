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

// RefHit is one reference to a name. Its span, qualifier and scope are in
// Facts(Path).Refs[Index]: a reference posting holds only what selects
// references without the file's facts, which keeps the largest table of the
// index small (see encodeRefPosting).
type RefHit struct {
	Path  string
	Lang  string
	Index int // into Facts(Path).Refs
	Name  string
	Role  analysis.Role
	// Hint is what Options.RefHints said of the reference; Imports are the
	// file's Go import paths (shared: not to be modified), which hints
	// may point into.
	Hint    uint64
	Imports []string
	// Span is where the reference is, when its hint has HintSpan set
	// (Spanned); otherwise it is in the file's facts.
	Span    analysis.Span
	Spanned bool
}

// HintSpan is the bit of a reference's hint (Options.RefHints) that stores
// its span in the posting too: a query that settles such references from
// their postings alone (resolve's settled selectors) needs only where they
// are, and reading thousands of files' facts for that was most of its
// time (unsafe.Pointer: eleven thousand references in a thousand files).
const HintSpan = 1 << 31

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

// encodeRefPosting stores each reference as the gap from the previous one's
// index, its role and its hint (Options.RefHints; zero, one byte, for most
// references of other languages): a few bytes a reference instead of the
// sixteen a span, qualifier and enclosing definition took. Readers resolve
// the references they keep through the file's facts; the hint lets a
// query set many aside first. References are the bulk of what a cold
// index writes.
func encodeRefPosting(e *encoder, f *analysis.FileFacts, idx []int, hints []uint64) {
	e.uvarint(uint64(len(idx)))
	prev, prevStart, prevLine := 0, 0, 0
	for _, i := range idx {
		e.uvarint(uint64(i - prev))
		e.byte(byte(f.Refs[i].Role))
		hint := uint64(0)
		if i < len(hints) {
			hint = hints[i]
		}
		e.uvarint(hint)
		if hint&HintSpan != 0 {
			prevStart, prevLine = encodePostingSpan(e, f.Refs[i].Span, prevStart, prevLine)
		}
		prev = i
	}
}

// encodePostingSpan writes a span as a posting holds it: its start and
// line as changes from the previous one written, and the rest in a byte
// or two for a name on one line (its end column is its start's plus its
// length).
func encodePostingSpan(e *encoder, s analysis.Span, prevStart, prevLine int) (int, int) {
	e.varint(int64(s.Start - prevStart))
	e.uvarint(uint64(s.End - s.Start))
	e.varint(int64(s.StartPoint.Line - prevLine))
	e.uvarint(uint64(s.StartPoint.Col))
	if s.EndPoint.Line == s.StartPoint.Line && s.EndPoint.Col-s.StartPoint.Col == s.End-s.Start {
		e.byte(0)
	} else {
		e.byte(1)
		e.varint(int64(s.EndPoint.Line - s.StartPoint.Line))
		e.varint(int64(s.EndPoint.Col))
	}
	return s.Start, s.StartPoint.Line
}

func decodePostingSpan(d *decoder, prevStart, prevLine int) analysis.Span {
	var s analysis.Span
	s.Start = prevStart + d.int()
	s.End = s.Start + int(d.uvarint())
	s.StartPoint = analysis.Point{Line: prevLine + d.int(), Col: int(d.uvarint())}
	if d.byte() == 0 {
		s.EndPoint = analysis.Point{Line: s.StartPoint.Line, Col: s.StartPoint.Col + s.End - s.Start}
	} else {
		s.EndPoint = analysis.Point{Line: s.StartPoint.Line + d.int(), Col: d.int()}
	}
	return s
}

func decodeRefPosting(v []byte, name string, file fileRow, out []RefHit) ([]RefHit, error) {
	d := &decoder{buf: v}
	i, prevStart, prevLine := 0, 0, 0
	for n := d.count(); n > 0 && d.err == nil; n-- {
		i += int(d.uvarint())
		hit := RefHit{Path: file.path, Lang: file.lang, Name: name, Index: i, Role: analysis.Role(d.byte()),
			Hint: d.uvarint(), Imports: file.imports}
		if hit.Hint&HintSpan != 0 {
			hit.Span, hit.Spanned = decodePostingSpan(d, prevStart, prevLine), true
			prevStart, prevLine = hit.Span.Start, hit.Span.StartPoint.Line
		}
		out = append(out, hit)
	}
	return out, d.err
}

// callsTo appends the calls of callee in facts: the call sites behind the
// call references of one reference posting.
func callsTo(facts *analysis.FileFacts, callee string, file fileRow, out []CallHit) []CallHit {
	for i, c := range facts.Calls {
		if c.Callee != callee {
			continue
		}
		hit := CallHit{Path: file.path, Lang: file.lang, Index: i, Callee: callee, Site: c.Site, Caller: analysis.None}
		if d := def(facts, c.Caller); d != nil {
			hit.Caller, hit.CallerName, hit.CallerKind, hit.CallerSpan = c.Caller, d.Name, d.Kind, d.NameSpan
		}
		out = append(out, hit)
	}
	return out
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
//
// What only its own file can mean (Options.FileLocal: what a function body
// declares, and the references bound to it) stays out of the name tables; the
// resolver looks for it there. In the Go standard library that is a quarter
// of the posting rows (950k → 706k).
func (ix *Index) postingTables(f *analysis.FileFacts) []postingTable {
	bodyDefs, bodyRefs := make([]bool, len(f.Defs)), make([]bool, len(f.Refs))
	if ix.fileLocal != nil {
		bodyDefs, bodyRefs = ix.fileLocal(f)
	}
	return []postingTable{
		{tagSub, len(f.Supertypes), func(i int) string {
			if def(f, f.Supertypes[i].Def) != nil {
				return f.Supertypes[i].Name
			}
			return ""
		}},
		{tagDef, len(f.Defs), func(i int) string {
			if bodyDefs[i] {
				return ""
			}
			return f.Defs[i].Name
		}},
		{tagRef, len(f.Refs), func(i int) string {
			if bodyRefs[i] {
				return ""
			}
			return f.Refs[i].Name
		}},
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
	tagSuper: encodeEdgePosting,
	tagSub:   encodeEdgePosting,
}
