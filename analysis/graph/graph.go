// Package graph is the workspace's reference graph: which named declaration
// each certain reference reaches, from which declaration, and the metrics
// Kast's database/metrics computes over it (fan-in, fan-out, dead code,
// impact, coupling between modules, name search, neighbourhoods) and the
// graph evidence of symbol/query.
//
// The edges are what Kast's symbol_references table holds: certain
// references to declarations an outline shows, from the declaration
// enclosing them. They come from the uses the workspace stores once a
// background pass has resolved every file, and from resolving the files
// that pass has not covered; building stops when its context is done.
package graph

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Edge kinds, as Kast's reference scanner classifies them.
const (
	EdgeImport      = "IMPORT"
	EdgeInheritance = "INHERITANCE"
	EdgeTypeRef     = "TYPE_REF"
	EdgeCall        = "CALL"
	EdgeUnknown     = "UNKNOWN"
)

// EdgeKind classifies a reference by its role: import > supertype entry >
// type reference > call.
func EdgeKind(role analysis.Role) string {
	switch {
	case role&analysis.RoleImport != 0:
		return EdgeImport
	case role&analysis.RoleInheritance != 0:
		return EdgeInheritance
	case role&analysis.RoleType != 0:
		return EdgeTypeRef
	case role&analysis.RoleCall != 0:
		return EdgeCall
	}
	return EdgeUnknown
}

// Edge is one certain reference to a named declaration.
type Edge struct {
	// From is the declaration enclosing the reference; its Index is
	// analysis.None for a reference at the top level of a file.
	From   resolve.DefID
	Offset int // of the reference in From.Path
	To     resolve.DefID
	Kind   string
}

// Graph is a snapshot's reference edges and named declarations. It is not
// safe for concurrent use.
type Graph struct {
	Root  string
	Edges []Edge          // ordered by source file, offset, then target
	Decls []resolve.DefID // declarations an outline shows, in file order
	// Files counts the files with facts, Total those in the snapshot.
	Files, Total int

	snap *workspace.Snapshot
	fqs  map[resolve.DefID]string
}

// Progress hears how far a build is: done of total units of work, a unit
// being a file read or a file resolved.
type Progress func(done, total int)

// Build reads the declarations of every file in snap and the edges between
// them; names are qualified relative to root. progress may be nil. It
// returns ctx's error as soon as it sees ctx done.
func Build(ctx context.Context, snap *workspace.Snapshot, root string, progress Progress) (*Graph, error) {
	g := &Graph{Root: root, snap: snap, fqs: map[resolve.DefID]string{}}
	if progress == nil {
		progress = func(int, int) {}
	}
	paths := snap.Files()
	g.Total = len(paths)
	named := map[resolve.DefID]bool{}
	for i, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f := snap.File(path); f != nil {
			g.Files++
			for _, it := range f.Outline() {
				id := resolve.DefID{Path: path, Index: it.Def}
				g.Decls = append(g.Decls, id)
				named[id] = true
			}
		}
		progress(i+1, len(paths))
	}
	// Uses of parameters and locals are not part of the graph, as in Kast's
	// index; nor are uncertain ones.
	err := snap.EachUse(ctx, func(done, total int) { progress(len(paths)+done, len(paths)+total) },
		func(def resolve.DefID, ref resolve.Reference) {
			if ref.Uncertain || !named[def] {
				return
			}
			enclosing := int32(analysis.None)
			if f := snap.File(ref.Ref.Path); f != nil && int(ref.Ref.Index) < len(f.Refs) {
				enclosing = f.Refs[ref.Ref.Index].Enclosing
			}
			g.Edges = append(g.Edges, Edge{resolve.DefID{Path: ref.Ref.Path, Index: enclosing}, ref.Span.Start, def, EdgeKind(ref.Role)})
		})
	if err != nil {
		return nil, err
	}
	// Stored uses come grouped by target: one order whatever the source.
	slices.SortFunc(g.Edges, func(a, b Edge) int {
		return cmp.Or(strings.Compare(a.From.Path, b.From.Path), cmp.Compare(a.Offset, b.Offset),
			strings.Compare(a.To.Path, b.To.Path), cmp.Compare(a.To.Index, b.To.Index))
	})
	return g, nil
}

// Def returns a declaration's file and definition; ok is false for top
// level (Index None) or a definition gone.
func (g *Graph) Def(id resolve.DefID) (*analysis.FileFacts, analysis.Def, bool) {
	f := g.snap.File(id.Path)
	if f == nil || id.Index < 0 || int(id.Index) >= len(f.Defs) {
		return nil, analysis.Def{}, false
	}
	return f, f.Defs[id.Index], true
}

// FQName is a declaration's fully qualified name, "" for top level.
func (g *Graph) FQName(id resolve.DefID) string {
	if fq, ok := g.fqs[id]; ok {
		return fq
	}
	fq := ""
	if f, _, ok := g.Def(id); ok {
		fq = naming.FQName(g.Root, f, id.Index)
	}
	g.fqs[id] = fq
	return fq
}

// Named lists the declarations whose simple or qualified name is name.
func (g *Graph) Named(name string) []resolve.DefID {
	var out []resolve.DefID
	for _, id := range g.Decls {
		if _, d, _ := g.Def(id); d.Name == name || g.FQName(id) == name {
			out = append(out, id)
		}
	}
	return out
}

// Confidence is how far a row can be trusted, in Kast's terms.
type Confidence struct {
	Level             string // HIGH, MEDIUM, LOW
	IndexCompleteness float64
	// SemanticBasis is LEXICAL: resolution here is syntactic (scopes and
	// imports, no compiler).
	SemanticBasis string
}

// Confidence is a row's confidence at level: the index is as complete as
// the share of files with facts.
func (g *Graph) Confidence(level string) Confidence {
	completeness := 1.0
	if g.Total > 0 {
		completeness = float64(g.Files) / float64(g.Total)
	}
	return Confidence{level, completeness, "LEXICAL"}
}

// canceller checks a context once every so many steps of a loop: often
// enough to stop promptly, rarely enough to cost nothing.
type canceller struct {
	ctx context.Context
	n   int
}

func (c *canceller) step() error {
	c.n++
	if c.n%1024 == 0 {
		return c.ctx.Err()
	}
	return nil
}

// Resolver is the resolver of the graph's snapshot.
func (g *Graph) Resolver() *resolve.Resolver { return g.snap.Resolver() }
