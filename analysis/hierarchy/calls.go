package hierarchy

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Direction is which way a call tree goes from its root.
type Direction uint8

const (
	// Incoming: a node's children are the definitions that call it.
	Incoming Direction = iota
	// Outgoing: a node's children are the definitions it calls.
	Outgoing
)

// CallBounds bound a call tree. They are taken literally: a zero
// MaxTotalCalls allows no edge at all.
type CallBounds struct {
	Depth              int       // levels expanded below the root
	MaxTotalCalls      int       // edges (call sites) in the whole tree
	MaxChildrenPerNode int       // children listed under one node
	Deadline           time.Time // when listing stops; zero for none
}

// CallNode is one definition of a call tree, reached through one call site:
// a definition called from two places is two nodes.
type CallNode struct {
	// Def is the calling or called definition. A call at the top level of
	// a file has Def.Index analysis.None: the file itself, never expanded.
	Def resolve.DefID
	// Site is the call that links the node to its parent (in the caller's
	// body, whichever the direction); nil at the root.
	Site       *navigate.Loc
	Truncation Truncation
	Children   []*CallNode
}

// CallStats sum up a call tree and the bounds it ran into.
type CallStats struct {
	Nodes, Edges   int
	TruncatedNodes int
	// MaxDepth is the deepest level a node was expanded at (the root is 0).
	MaxDepth                  int
	TimeoutReached            bool
	MaxTotalCallsReached      bool
	MaxChildrenPerNodeReached bool
	// FilesVisited counts the files of the expanded nodes and of the sites.
	FilesVisited int
}

// CallTree is a bounded call tree and its stats.
type CallTree struct {
	Root  *CallNode
	Stats CallStats
}

// Calls expands the call tree of root, depth first: one child per call
// site, children in site order (file, then offset). Only confident calls
// count. A definition already on the path from the root is a leaf marked
// Cycle (a self-recursive function's child is itself, marked so). When a
// bound stops the listing of a node's children, the node says which. A
// cancelled ctx stops the expansion with its error.
func Calls(ctx context.Context, s Snapshot, root resolve.DefID, dir Direction, b CallBounds) (*CallTree, error) {
	w := &callWalk{ctx: ctx, s: s, dir: dir, b: b, files: map[string]bool{}, onPath: map[resolve.DefID]bool{root: true}}
	t := &CallTree{Root: &CallNode{Def: root}}
	w.stats.Nodes = 1
	if err := w.expand(t.Root, 0); err != nil {
		return nil, err
	}
	w.stats.FilesVisited = len(w.files)
	t.Stats = w.stats
	return t, nil
}

type callWalk struct {
	ctx    context.Context
	s      Snapshot
	dir    Direction
	b      CallBounds
	stats  CallStats
	files  map[string]bool
	onPath map[resolve.DefID]bool // the definitions from the root to the node being expanded
}

// callEdge is one call: the definition at the other end and the site.
type callEdge struct {
	def  resolve.DefID
	site navigate.Loc
}

// edges lists def's confident calls one level out, in site order.
func (w *callWalk) edges(def resolve.DefID) []callEdge {
	var out []callEdge
	if w.dir == Incoming {
		for _, c := range w.s.Resolver().Callers(def) {
			if !c.Uncertain {
				out = append(out, callEdge{c.Caller, navigate.Loc{Path: c.Site.Path, Span: c.Span, Ambiguous: c.Ambiguous}})
			}
		}
	} else {
		for _, c := range w.s.Resolver().Callees(def) {
			if len(c.Targets) > 0 && !c.Targets[0].Uncertain {
				out = append(out, callEdge{c.Targets[0].Def, navigate.Loc{Path: c.Site.Path, Span: c.Span}})
			}
		}
	}
	slices.SortFunc(out, func(a, b callEdge) int {
		return cmp.Or(cmp.Compare(a.site.Path, b.site.Path), cmp.Compare(a.site.Span.Start, b.site.Span.Start),
			cmp.Compare(a.site.Span.End, b.site.Span.End), cmp.Compare(a.def.Path, b.def.Path), cmp.Compare(a.def.Index, b.def.Index))
	})
	return out
}

func (w *callWalk) expand(n *CallNode, level int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.files[n.Def.Path] = true
	w.stats.MaxDepth = max(w.stats.MaxDepth, level)
	if level >= w.b.Depth || n.Def.Index == analysis.None {
		return nil
	}
	edges := w.edges(n.Def)
	if len(edges) > w.b.MaxChildrenPerNode {
		edges = edges[:max(w.b.MaxChildrenPerNode, 0)]
		w.stats.MaxChildrenPerNodeReached = true
		w.truncate(n, MaxChildrenPerNode)
	}
	for _, e := range edges {
		if !w.b.Deadline.IsZero() && time.Now().After(w.b.Deadline) {
			w.stats.TimeoutReached = true
			w.truncate(n, Timeout)
			return nil
		}
		if w.stats.Edges >= w.b.MaxTotalCalls {
			w.stats.MaxTotalCallsReached = true
			w.truncate(n, MaxTotalCalls)
			return nil
		}
		site := e.site
		child := &CallNode{Def: e.def, Site: &site}
		n.Children = append(n.Children, child)
		w.stats.Edges++
		w.stats.Nodes++
		w.files[site.Path] = true
		if w.onPath[e.def] {
			w.truncate(child, Cycle)
			continue
		}
		w.onPath[e.def] = true
		err := w.expand(child, level+1)
		delete(w.onPath, e.def)
		if err != nil {
			return err
		}
	}
	return nil
}

// truncate marks n with the first reason its listing stopped.
func (w *callWalk) truncate(n *CallNode, why Truncation) {
	if n.Truncation == NotTruncated {
		n.Truncation = why
		w.stats.TruncatedNodes++
	}
}
