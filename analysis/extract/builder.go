// Package extract holds the bookkeeping every language walker shares: it
// collects definitions, references, scopes, imports, calls and supertypes
// into an analysis.FileFacts while the walker descends a syntax tree.
package extract

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Builder accumulates the facts of one file. Walkers open scopes and owner
// definitions as they descend so every def and ref records where it lives.
type Builder struct {
	Facts  *analysis.FileFacts
	tree   *syntax.Tree
	scopes []int32 // open scopes, innermost last
	owners []int32 // enclosing definitions, innermost last
}

// New starts the facts of a file with a file scope covering all of it.
func New(tree *syntax.Tree, path string) *Builder {
	// Size the fact slices from the tree: growing them by doubling was a
	// fifth of the garbage of a cold index. The ratios are those of the Go
	// standard library (about one reference per 6.6 nodes and one
	// definition, scope or call per 32), rounded so most files never grow.
	n := tree.NodeCount()
	f, _ := factsPool.Get().(*analysis.FileFacts)
	if f == nil {
		f = &analysis.FileFacts{}
	}
	*f = analysis.FileFacts{Path: path, Lang: tree.Language().ID,
		Defs:   slices.Grow(f.Defs[:0], n/28+1),
		Refs:   slices.Grow(f.Refs[:0], n/6+1),
		Scopes: slices.Grow(f.Scopes[:0], n/28+1),
		Calls:  slices.Grow(f.Calls[:0], n/28+1),
	}
	b := &Builder{Facts: f, tree: tree}
	b.Facts.Scopes = append(b.Facts.Scopes, analysis.Scope{Span: tree.Span(0, len(tree.Source())), Parent: analysis.None, Def: analysis.None})
	b.scopes = []int32{0}
	return b
}

// factsPool holds facts handed back with Release, for their slices.
var factsPool sync.Pool // of *analysis.FileFacts

// maxPooledRefs bounds the slices kept for reuse, so that one huge file does
// not pin its peak in the pool.
const maxPooledRefs = 1 << 16

// Release hands back facts that nothing references any more, as the indexer
// does once it has stored them: the next New reuses their slices. A cold
// index of the Go standard library allocated half a gigabyte for them.
func Release(f *analysis.FileFacts) {
	if f == nil || cap(f.Refs) > maxPooledRefs {
		return
	}
	// Cleared, so the pool keeps no file's text alive through names.
	clear(f.Defs)
	clear(f.Refs)
	clear(f.Scopes)
	clear(f.Calls)
	*f = analysis.FileFacts{Defs: f.Defs[:0], Refs: f.Refs[:0], Scopes: f.Scopes[:0], Calls: f.Calls[:0]}
	factsPool.Put(f)
}

// Finish records syntax errors and returns the facts.
func (b *Builder) Finish() *analysis.FileFacts {
	b.Facts.Errors = b.tree.Errors()
	return b.Facts
}

// Scope is the innermost open scope.
func (b *Builder) Scope() int32 { return b.scopes[len(b.scopes)-1] }

// Owner is the innermost enclosing definition, or analysis.None.
func (b *Builder) Owner() int32 {
	if len(b.owners) == 0 {
		return analysis.None
	}
	return b.owners[len(b.owners)-1]
}

// OwnerDef returns the innermost enclosing definition, or nil at top level.
func (b *Builder) OwnerDef() *analysis.Def {
	if o := b.Owner(); o != analysis.None {
		return &b.Facts.Defs[o]
	}
	return nil
}

// Def records a definition named by name and spanning full, in the current
// scope and owner. It returns the definition's index.
func (b *Builder) Def(kind analysis.Kind, name, full syntax.Node) int32 {
	return b.DefNamed(kind, name.Text(), name.Span(), full.Span())
}

// DefNamed records a definition whose name is not a single node, such as
// Kotlin's implicit lambda parameter `it`.
func (b *Builder) DefNamed(kind analysis.Kind, name string, nameSpan, full analysis.Span) int32 {
	b.Facts.Defs = append(b.Facts.Defs, analysis.Def{
		Name:      name,
		Kind:      kind,
		NameSpan:  nameSpan,
		FullSpan:  full,
		Container: b.Owner(),
		Scope:     b.Scope(),
	})
	return int32(len(b.Facts.Defs) - 1)
}

// D returns definition i for filling in optional fields.
func (b *Builder) D(i int32) *analysis.Def { return &b.Facts.Defs[i] }

// Span is the span of the file's bytes [start, end), with its points.
func (b *Builder) Span(start, end int) analysis.Span { return b.tree.Span(start, end) }

// Within runs body inside a new scope spanning n, owned by owner (which may
// be analysis.None for a plain block). A non-None owner also becomes the
// enclosing definition of everything recorded in body.
func (b *Builder) Within(n syntax.Node, owner int32, body func()) {
	b.Facts.Scopes = append(b.Facts.Scopes, analysis.Scope{Span: n.Span(), Parent: b.Scope(), Def: owner})
	b.scopes = append(b.scopes, int32(len(b.Facts.Scopes)-1))
	if owner != analysis.None {
		b.owners = append(b.owners, owner)
	}
	body()
	if owner != analysis.None {
		b.owners = b.owners[:len(b.owners)-1]
	}
	b.scopes = b.scopes[:len(b.scopes)-1]
}

// Owned runs body with owner as the enclosing definition but no new scope,
// for initializers whose names belong to the surrounding scope.
func (b *Builder) Owned(owner int32, body func()) {
	b.owners = append(b.owners, owner)
	body()
	b.owners = b.owners[:len(b.owners)-1]
}

// Ref records a use of the name n.
func (b *Builder) Ref(n syntax.Node, role analysis.Role, qualifier string) int32 {
	if !n.Valid() || n.Start() == n.End() {
		return analysis.None
	}
	return b.RefNamed(n.Text(), n.Span(), role, qualifier)
}

// RefNamed records a use of a name that is not exactly a node's text.
func (b *Builder) RefNamed(name string, span analysis.Span, role analysis.Role, qualifier string) int32 {
	b.Facts.Refs = append(b.Facts.Refs, analysis.Ref{
		Name:      name,
		Span:      span,
		Role:      role,
		Scope:     b.Scope(),
		Enclosing: b.Owner(),
		Qualifier: qualifier,
	})
	return int32(len(b.Facts.Refs) - 1)
}

// Call records a call of the name n (a call reference plus a call edge from
// the enclosing definition).
func (b *Builder) Call(n syntax.Node, qualifier string) {
	ref := b.Ref(n, analysis.RoleCall, qualifier)
	if ref == analysis.None {
		return
	}
	b.Facts.Calls = append(b.Facts.Calls, analysis.Call{Caller: b.Owner(), Callee: n.Text(), Site: n.Span(), Ref: ref})
}

// Supertype records that def extends or implements the type named by n, and
// an inheritance reference to it.
func (b *Builder) Supertype(def int32, n syntax.Node, qualifier string) {
	if !n.Valid() {
		return
	}
	b.Ref(n, analysis.RoleInheritance, qualifier)
	b.Facts.Supertypes = append(b.Facts.Supertypes, analysis.Supertype{Def: def, Name: n.Text(), Span: n.Span()})
}

// Import records an import and, when name is valid, an import reference to
// imp.Name at name's span, qualified by the rest of the path.
func (b *Builder) Import(imp analysis.Import, name syntax.Node) {
	if name.Valid() && imp.Name != "" {
		qualifier := strings.TrimSuffix(imp.Path, imp.Name)
		b.RefNamed(imp.Name, name.Span(), analysis.RoleImport, strings.TrimRight(qualifier, "./:"))
	}
	b.Facts.Imports = append(b.Facts.Imports, imp)
}

// Doc returns the doc comment right above decl.
func (b *Builder) Doc(decl syntax.Node, style CommentStyle) string {
	return Doc(b.tree.Source(), decl.Start(), style)
}

// Qualifier is a receiver expression's text as a reference qualifier, with
// line breaks and indentation of chained calls removed.
func Qualifier(n syntax.Node) string { return QualifierText(n.Text()) }

// QualifierText is Qualifier of source text.
func QualifierText(text string) string {
	if !hasSpaceOrNonASCII(text) {
		return text // most qualifiers (x, pkg, a.b): nothing to remove
	}
	q := strings.Join(strings.Fields(text), " ")
	return dotSpaces.Replace(q)
}

// hasSpaceOrNonASCII reports whether s has an ASCII space or any non-ASCII
// byte (which may be a Unicode space strings.Fields splits at).
func hasSpaceOrNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ', c == '\t', c == '\n', c == '\r', c == '\v', c == '\f', c >= 0x80:
			return true
		}
	}
	return false
}

var dotSpaces = strings.NewReplacer(" .", ".", ". ", ".", " ?.", "?.")

// Header is the declaration text before its body, with runs of whitespace
// collapsed: the signature shown in hovers and outlines.
func Header(decl, body syntax.Node) string {
	text := decl.Text()
	if body.Valid() && body.Start() >= decl.Start() {
		text = text[:body.Start()-decl.Start()]
	}
	text = collapseSpace(text)
	text = strings.TrimRight(text, " {=:")
	const maxLen = 300
	if len(text) > maxLen {
		text = text[:maxLen] + "…"
	}
	return text
}

// collapseSpace is strings.Join(strings.Fields(s), " ") without allocating
// when s is already collapsed, as most one-line headers are.
func collapseSpace(s string) string {
	collapsed := true
	prevSpace := true // a leading space is not collapsed
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		space := unicode.IsSpace(r)
		if space && (prevSpace || r != ' ') {
			collapsed = false
			break
		}
		prevSpace = space
		i += size
	}
	if collapsed && !prevSpace || s == "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
