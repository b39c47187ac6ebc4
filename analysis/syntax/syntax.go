// Package syntax is the only place that touches github.com/smacker/go-tree-sitter.
// It owns parser pools and trees and hands out Node values that keep their
// tree private, so no tree-sitter type leaks into the rest of kast.
//
// kast parses through tree-sitter's C API directly, with parsers of its own;
// it uses the binding for the grammars, for their symbol and field names,
// and for ParseOnly, the floor a pure go-tree-sitter parse sets.
//
// After a parse the whole tree is copied into a flat Go array in one cgo
// call: walking it then costs no cgo calls and none of the binding's per-node
// Go allocations. A Tree's nodes are immutable, so Nodes may be read from
// several goroutines; parsing and editing a Tree must not be concurrent.
package syntax

// #include "flat.h"
import "C"

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/kast-dev/kast/analysis"
)

// Language is a tree-sitter grammar with bounded pools of parsers.
type Language struct {
	ID string

	// symbolNames caches node type names by symbol: the binding's Type()
	// allocates a Go string on every call.
	symbolNames []string
	fieldIDs    map[string]uint16
	fieldCache  fieldCache
	// ignoredMissing lists MISSING node types that are not real errors, such as
	// Kotlin's _automatic_semicolon.
	ignoredMissing map[string]bool
	parsers        *pool[*parser]
	// rewrite, when set, gives the text to parse in place of a file's: it
	// changes whitespace only, so every node's bytes stay where they were
	// and node texts and points come from the file's own text.
	rewrite func([]byte) []byte
	// floor holds the binding's parsers, for ParseOnly alone.
	floor *pool[*sitter.Parser]
}

// NewLanguage wraps a grammar. ignoredMissing names MISSING node types that
// Errors must not report.
func NewLanguage(id string, grammar *sitter.Language, ignoredMissing ...string) *Language {
	cLang := cLanguage(grammar)
	l := &Language{
		ID:             id,
		ignoredMissing: map[string]bool{},
		parsers:        newPool(func() *parser { return newParser(cLang) }, (*parser).close),
		floor: newPool(func() *sitter.Parser {
			p := sitter.NewParser()
			p.SetLanguage(grammar)
			return p
		}, (*sitter.Parser).Close),
	}
	// Our parsers have no finalizers: free the pooled ones with the Language.
	runtime.AddCleanup(l, (*pool[*parser]).drain, l.parsers)
	for _, t := range ignoredMissing {
		l.ignoredMissing[t] = true
	}
	count := grammar.SymbolCount()
	l.symbolNames = make([]string, count)
	for s := range count {
		l.symbolNames[s] = grammar.SymbolName(sitter.Symbol(s))
	}
	l.fieldIDs = map[string]uint16{}
	// Field ids run from 1 up to the grammar's field count.
	for id := 1; ; id++ {
		name := grammar.FieldName(id)
		if name == "" {
			break
		}
		l.fieldIDs[name] = uint16(id)
	}
	return l
}

// Parse parses src from scratch. The caller must Close the tree.
func (l *Language) Parse(ctx context.Context, src []byte) (*Tree, error) {
	return l.parse(ctx, nil, src)
}

// SetRewrite makes the parser read rewrite(src) in place of src, for a
// grammar that misreads some layouts; rewrite may only change whitespace,
// and an answer of another length is ignored.
func (l *Language) SetRewrite(rewrite func([]byte) []byte) { l.rewrite = rewrite }

// ParseOnly parses src through go-tree-sitter and frees the tree without
// reading it: the binding's parse alone, the floor kastbench measures
// indexing against.
func (l *Language) ParseOnly(ctx context.Context, src []byte) error {
	p := l.floor.get()
	t, err := p.ParseCtx(ctx, nil, src)
	if err != nil {
		p.Reset()
		l.floor.put(p)
		return fmt.Errorf("parse %s: %w", l.ID, err)
	}
	l.floor.put(p)
	t.Close()
	return nil
}

// Reparse applies edits to old (which is modified in place and stays owned by
// the caller) and parses newSrc reusing old's unchanged subtrees. The caller
// must Close both trees.
func (l *Language) Reparse(ctx context.Context, old *Tree, newSrc []byte, edits ...Edit) (*Tree, error) {
	if old.tree == nil {
		return nil, fmt.Errorf("parse %s: reparse of a closed tree", l.ID)
	}
	for _, e := range edits {
		edit(old.tree, e)
	}
	return l.parse(ctx, old.tree, newSrc)
}

func (l *Language) parse(ctx context.Context, old *C.TSTree, src []byte) (*Tree, error) {
	// A context cancelled already fails at once rather than racing the parse.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s: %w", l.ID, err)
	}
	parsed := src
	if l.rewrite != nil {
		if r := l.rewrite(src); len(r) == len(src) {
			parsed = r
		}
	}
	p := l.parsers.get()
	t := p.parse(ctx, old, parsed)
	if t == nil {
		// A cancelled parse would be resumed by the next call on this parser.
		C.ts_parser_reset(p.c)
		noLanguage := C.ts_parser_language(p.c) == nil
		l.parsers.put(p)
		switch err := ctx.Err(); {
		case err != nil:
			return nil, fmt.Errorf("parse %s: %w", l.ID, err)
		case noLanguage:
			return nil, fmt.Errorf("parse %s: the grammar's version is incompatible with tree-sitter", l.ID)
		default:
			return nil, fmt.Errorf("parse %s: tree-sitter returned no tree", l.ID)
		}
	}
	l.parsers.put(p)
	nodes, err := flatten(t)
	if err != nil {
		C.ts_tree_delete(t)
		return nil, err
	}
	return &Tree{tree: t, nodes: nodes, src: src, text: string(src), lang: l, lines: lineStarts(src)}, nil
}

// Edit describes one text change: the range [Start, OldEnd) of the text
// before the change became [Start, NewEnd). Successive edits each refer to
// the text left by the previous one, as LSP content changes do. Points use
// UTF-8 byte columns.
type Edit struct {
	Start, OldEnd, NewEnd                int
	StartPoint, OldEndPoint, NewEndPoint analysis.Point
}

// Tree is a parsed file. Close it when done; nothing relies on finalizers.
type Tree struct {
	tree  *C.TSTree  // kept for incremental reparsing; nil once closed
	nodes []flatNode // preorder; nodes[0] is the root
	src   []byte
	// text is src as one string: node texts are substrings of it, which
	// saves an allocation per name but keeps the text alive while they are.
	text string
	lang *Language
	// lines holds the byte offset of each line start: points are computed
	// from it, so nodes need not carry them.
	lines []int
	// lastLine is the line of the last span's start, where the next
	// span's search begins.
	lastLine atomic.Int32
}

// Close frees the tree. Closing it again does nothing.
func (t *Tree) Close() {
	if t.tree == nil {
		return
	}
	release(t.tree, t.nodes)
	t.tree, t.nodes = nil, nil
	if len(t.src) >= trimAfter {
		trimHeap()
	}
}

// NodeCount is the number of nodes in the tree, named and anonymous.
func (t *Tree) NodeCount() int { return len(t.nodes) }

// Source returns the text the tree was parsed from.
func (t *Tree) Source() []byte { return t.src }

// Language returns the tree's language.
func (t *Tree) Language() *Language { return t.lang }

// Root returns the root node.
func (t *Tree) Root() Node { return Node{t: t, i: 0} }

// Span converts a byte range of the source to a Span.
func (t *Tree) Span(start, end int) analysis.Span {
	// Extractors ask for spans in about source order, and most spans are
	// short: searching onward from the line of the last span's start, and
	// from the start's line for the end, beats a binary search over the
	// whole file, whose first steps all miss the cache.
	sl := lineFrom(t.lines, int(t.lastLine.Load()), start)
	t.lastLine.Store(int32(sl))
	el := lineFrom(t.lines, sl, end)
	return analysis.Span{Start: start, End: end,
		StartPoint: analysis.Point{Line: sl, Col: start - t.lines[sl]},
		EndPoint:   analysis.Point{Line: el, Col: end - t.lines[el]}}
}

// Errors lists ERROR nodes and MISSING nodes other than the language's
// ignored ones.
func (t *Tree) Errors() []analysis.SyntaxError {
	var errs []analysis.SyntaxError
	var visit func(n Node)
	visit = func(n Node) {
		switch {
		case n.IsMissing():
			if !t.lang.ignoredMissing[n.Type()] {
				errs = append(errs, analysis.SyntaxError{Span: n.Span(), Message: "missing " + n.Type()})
			}
			return
		case n.IsError():
			errs = append(errs, analysis.SyntaxError{Span: n.Span(), Message: "syntax error"})
			return
		}
		for _, c := range n.Children() {
			if c.HasError() {
				visit(c)
			}
		}
	}
	if root := t.Root(); root.HasError() {
		visit(root)
	}
	return errs
}

// Node is a syntax node. The zero Node is invalid and every accessor on it
// returns a zero value, so field lookups chain without nil checks.
type Node struct {
	t *Tree
	i uint32
}

// Valid reports whether the node exists.
func (n Node) Valid() bool { return n.t != nil }

func (n Node) flat() *flatNode { return &n.t.nodes[n.i] }

// Type is the grammar's node type, "ERROR" for an error node.
func (n Node) Type() string {
	if n.t == nil {
		return ""
	}
	if s := int(n.flat().symbol); s < len(n.t.lang.symbolNames) {
		return n.t.lang.symbolNames[s]
	}
	return "ERROR" // ts_builtin_sym_error is the largest symbol
}

// Is reports whether the node's type is one of types.
func (n Node) Is(types ...string) bool {
	typ := n.Type()
	for _, t := range types {
		if typ == t {
			return true
		}
	}
	return false
}

// IsNamed reports whether the node is a named grammar rule rather than a token literal.
func (n Node) IsNamed() bool { return n.t != nil && n.flat().flags&flagNamed != 0 }

// IsMissing reports whether the parser inserted the node to recover from an error.
func (n Node) IsMissing() bool { return n.t != nil && n.flat().flags&flagMissing != 0 }

// IsError reports whether the node is an ERROR node.
func (n Node) IsError() bool { return n.t != nil && int(n.flat().symbol) >= len(n.t.lang.symbolNames) }

// HasError reports whether the node is or contains an error.
func (n Node) HasError() bool { return n.t != nil && n.flat().flags&flagHasError != 0 }

// Start is the node's first byte offset.
func (n Node) Start() int {
	if n.t == nil {
		return 0
	}
	return int(n.flat().start)
}

// End is the node's end byte offset (exclusive).
func (n Node) End() int {
	if n.t == nil {
		return 0
	}
	return int(n.flat().end)
}

// Same reports whether two nodes are the same node.
func (n Node) Same(o Node) bool { return n.t != nil && n == o }

// Text is the node's source text.
func (n Node) Text() string {
	if n.t == nil {
		return ""
	}
	return n.t.text[n.Start():n.End()]
}

// Span is the node's byte range and points.
func (n Node) Span() analysis.Span {
	if n.t == nil {
		return analysis.Span{}
	}
	return n.t.Span(n.Start(), n.End())
}

// Field returns the first child with the given field name.
func (n Node) Field(name string) Node {
	if n.t == nil {
		return Node{}
	}
	id := n.t.lang.fieldID(name)
	if id == 0 {
		return Node{}
	}
	for c := n.first(); c.Valid(); c = c.next() {
		if uint16(c.flat().field) == id {
			return c
		}
	}
	return Node{}
}

// Parent returns the parent node.
func (n Node) Parent() Node {
	if n.t == nil || n.i == 0 {
		return Node{}
	}
	return Node{t: n.t, i: uint32(n.flat().parent)}
}

// PrevSibling returns the previous sibling, named or not.
func (n Node) PrevSibling() Node {
	p := n.Parent()
	if !p.Valid() {
		return Node{}
	}
	prev := Node{}
	for c := p.first(); c.Valid() && c.i != n.i; c = c.next() {
		prev = c
	}
	return prev
}

func (n Node) first() Node {
	if n.flat().children == 0 {
		return Node{}
	}
	return Node{t: n.t, i: n.i + 1}
}

func (n Node) next() Node {
	if next := n.flat().next; next != 0 {
		return Node{t: n.t, i: uint32(next)}
	}
	return Node{}
}

// Children returns all children, named and anonymous.
func (n Node) Children() []Node {
	if n.t == nil || n.flat().children == 0 {
		return nil
	}
	out := make([]Node, 0, n.flat().children)
	for c := n.first(); c.Valid(); c = c.next() {
		out = append(out, c)
	}
	return out
}

// NamedChildren returns the named children.
func (n Node) NamedChildren() []Node {
	if n.t == nil || n.flat().children == 0 {
		return nil
	}
	// This is the walkers' hottest call: count first so the result is one
	// allocation of the exact size, and index the flat array directly.
	nodes := n.t.nodes
	named := 0
	for i := n.i + 1; ; {
		c := &nodes[i]
		if c.flags&flagNamed != 0 {
			named++
		}
		if c.next == 0 {
			break
		}
		i = uint32(c.next)
	}
	if named == 0 {
		return nil
	}
	out := make([]Node, 0, named)
	for i := n.i + 1; ; {
		c := &nodes[i]
		if c.flags&flagNamed != 0 {
			out = append(out, Node{t: n.t, i: i})
		}
		if c.next == 0 {
			break
		}
		i = uint32(c.next)
	}
	return out
}

// FirstNamedChild returns the first named child, or an invalid Node. With
// NextNamedSibling it walks the named children without allocating.
func (n Node) FirstNamedChild() Node {
	if n.t == nil || n.flat().children == 0 {
		return Node{}
	}
	return n.t.namedFrom(n.i + 1)
}

// NextNamedSibling returns the next named sibling, or an invalid Node.
func (n Node) NextNamedSibling() Node {
	if n.t == nil {
		return Node{}
	}
	next := n.flat().next
	if next == 0 {
		return Node{}
	}
	return n.t.namedFrom(uint32(next))
}

// namedFrom returns node i or the first named sibling after it.
func (t *Tree) namedFrom(i uint32) Node {
	nodes := t.nodes
	for {
		c := &nodes[i]
		if c.flags&flagNamed != 0 {
			return Node{t: t, i: i}
		}
		if c.next == 0 {
			return Node{}
		}
		i = uint32(c.next)
	}
}

// Child returns the first child of one of the given types.
func (n Node) Child(types ...string) Node {
	if n.t == nil || n.flat().children == 0 {
		return Node{}
	}
	for c := n.first(); c.Valid(); c = c.next() {
		if c.Is(types...) {
			return c
		}
	}
	return Node{}
}

// ChildrenOf returns the children of the given types.
func (n Node) ChildrenOf(types ...string) []Node {
	if n.t == nil || n.flat().children == 0 {
		return nil
	}
	var out []Node
	for c := n.first(); c.Valid(); c = c.next() {
		if c.Is(types...) {
			out = append(out, c)
		}
	}
	return out
}

// String is the node's S-expression of named nodes, for debugging and tests.
func (n Node) String() string {
	if n.t == nil {
		return "<nil>"
	}
	var b strings.Builder
	var write func(n Node)
	write = func(n Node) {
		b.WriteString("(" + n.Type())
		for _, c := range n.NamedChildren() {
			b.WriteString(" ")
			write(c)
		}
		b.WriteString(")")
	}
	write(n)
	return b.String()
}

func lineStarts(src []byte) []int {
	// Count first, then jump from newline to newline: both run as SIMD
	// searches, where a loop over every byte cost a tenth of a second in a
	// cold index.
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// lineFrom returns the line holding offset: the last line starting at or
// before it. When line hint starts at or before offset, the search gallops
// onward from it; otherwise it searches the lines before hint.
func lineFrom(lines []int, hint, offset int) int {
	lo, hi := 0, min(max(hint, 0), len(lines)-1) // the answer is in [lo, hi)
	if lines[hi] <= offset {
		lo, hi = hi, len(lines)
		for step := 1; lo+step < len(lines); step *= 2 {
			if lines[lo+step] > offset {
				hi = lo + step
				break
			}
			lo += step
		}
	}
	// A hand-written search: sort.SearchInts calls a closure at every step.
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if lines[mid] <= offset {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
