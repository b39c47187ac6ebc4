package hierarchy

import (
	"context"

	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// TypeDirection is which relations a type tree follows from its root.
type TypeDirection uint8

const (
	Supertypes TypeDirection = 1 << iota
	Subtypes
	Both = Supertypes | Subtypes
)

// TypeBounds bound a type tree, taken literally like CallBounds.
type TypeBounds struct {
	Depth      int // levels expanded below the root
	MaxResults int // nodes in the tree besides the root
}

// TypeNode is one type of a type tree.
type TypeNode struct {
	Def resolve.DefID
	// Supertype is set when the node is a supertype of its parent, unset
	// when it is a subtype (and at the root). Below the root, a branch keeps
	// the direction of its first step.
	Supertype  bool
	Truncation Truncation
	Children   []*TypeNode
}

// TypeStats sum up a type tree.
type TypeStats struct {
	Nodes int
	// MaxDepth is the deepest level a node was expanded at (the root is 0).
	MaxDepth int
	// Truncated is set when a cycle or the node budget cut the tree short.
	Truncated bool
}

// TypeTree is a bounded type tree and its stats.
type TypeTree struct {
	Root  *TypeNode
	Stats TypeStats
}

// Types expands the type tree of root, depth first: with Both, the root's
// supertypes come first, then its subtypes, in one list of children. Only
// confidently resolved relations count, in the resolver's order (supertypes
// as declared). A type already on the path from the root is a leaf marked
// Cycle. When the node budget runs out, the node being listed is marked
// MaxResults. A cancelled ctx stops the expansion with its error.
func Types(ctx context.Context, s Snapshot, root resolve.DefID, dir TypeDirection, b TypeBounds) (*TypeTree, error) {
	w := &typeWalk{ctx: ctx, s: s, b: b}
	t := &TypeTree{Root: &TypeNode{Def: root}}
	w.stats.Nodes = 1
	for _, up := range []bool{true, false} {
		if up && dir&Supertypes == 0 || !up && dir&Subtypes == 0 {
			continue
		}
		w.onPath = map[resolve.DefID]bool{root: true}
		if err := w.walk(t.Root, up, 0); err != nil {
			return nil, err
		}
	}
	t.Stats = w.stats
	return t, nil
}

type typeWalk struct {
	ctx    context.Context
	s      Snapshot
	b      TypeBounds
	stats  TypeStats
	onPath map[resolve.DefID]bool // the types from the root to the node being expanded
}

func (w *typeWalk) walk(n *TypeNode, up bool, level int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.stats.MaxDepth = max(w.stats.MaxDepth, level)
	if level >= w.b.Depth {
		return nil
	}
	next := navigate.Subtypes(w.s, n.Def)
	if up {
		next = navigate.Supertypes(w.s, n.Def)
	}
	for _, t := range next {
		if w.stats.Nodes-1 >= w.b.MaxResults {
			w.stats.Truncated = true
			n.Truncation = MaxResults
			return nil
		}
		child := &TypeNode{Def: t.Def, Supertype: up}
		n.Children = append(n.Children, child)
		w.stats.Nodes++
		if w.onPath[t.Def] {
			child.Truncation = Cycle
			w.stats.Truncated = true
			continue
		}
		w.onPath[t.Def] = true
		err := w.walk(child, up, level+1)
		delete(w.onPath, t.Def)
		if err != nil {
			return err
		}
	}
	return nil
}
