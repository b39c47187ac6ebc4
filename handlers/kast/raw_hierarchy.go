package kast

import (
	"context"
	"slices"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/hierarchy"
)

// raw/call-hierarchy and raw/type-hierarchy: the trees are built by
// analysis/hierarchy; here they are decoded, bounded with Kast's defaults
// and described as Kast nodes.

// --- raw/call-hierarchy

type callHierarchyQuery struct {
	positional
	Direction          *string `json:"direction"`
	Depth              *int    `json:"depth"`
	MaxTotalCalls      *int    `json:"maxTotalCalls"`
	MaxChildrenPerNode *int    `json:"maxChildrenPerNode"`
	TimeoutMillis      *int64  `json:"timeoutMillis"`
}

func (q *callHierarchyQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.Direction == nil {
		return validation("Missing required field: direction", nil)
	}
	if *q.Direction != "INCOMING" && *q.Direction != "OUTGOING" {
		return validation("direction must be INCOMING or OUTGOING", map[string]string{"direction": *q.Direction})
	}
	if q.Depth != nil && *q.Depth < 0 {
		return validation("depth must not be negative", nil)
	}
	for name, v := range map[string]*int{"maxTotalCalls": q.MaxTotalCalls, "maxChildrenPerNode": q.MaxChildrenPerNode} {
		if v != nil {
			if err := positive(name, *v); err != nil {
				return err
			}
		}
	}
	return nil
}

type callNode struct {
	Symbol     kastSymbol    `json:"symbol"`
	CallSite   *kastLocation `json:"callSite,omitempty"`
	Truncation *truncation   `json:"truncation,omitempty"`
	Children   []*callNode   `json:"children"`
	// ambiguous: the call site may bind to another overload. The raw
	// CallNode schema has no room for it; symbol/callers' edges say it.
	ambiguous bool
}

type truncation struct {
	Reason  string  `json:"reason"`
	Details *string `json:"details,omitempty"`
}

type callStats struct {
	TotalNodes                int  `json:"totalNodes"`
	TotalEdges                int  `json:"totalEdges"`
	TruncatedNodes            int  `json:"truncatedNodes"`
	MaxDepthReached           int  `json:"maxDepthReached"`
	TimeoutReached            bool `json:"timeoutReached"`
	MaxTotalCallsReached      bool `json:"maxTotalCallsReached"`
	MaxChildrenPerNodeReached bool `json:"maxChildrenPerNodeReached"`
	FilesVisited              int  `json:"filesVisited"`
}

type callHierarchyResult struct {
	Root          *callNode `json:"root"`
	Stats         callStats `json:"stats"`
	SchemaVersion int       `json:"schemaVersion"`
}

func (k *Service) callHierarchy(ctx context.Context, q *callHierarchyQuery) (callHierarchyResult, error) {
	r, def, _, _, err := k.at(ctx, q.Position)
	if err != nil {
		return callHierarchyResult{}, err
	}
	dir := hierarchy.Incoming
	if *q.Direction == "OUTGOING" {
		dir = hierarchy.Outgoing
	}
	b := hierarchy.CallBounds{Depth: valueOr(q.Depth, 3), MaxTotalCalls: valueOr(q.MaxTotalCalls, 256), MaxChildrenPerNode: valueOr(q.MaxChildrenPerNode, 64)}
	if q.TimeoutMillis != nil {
		b.Deadline = time.Now().Add(time.Duration(*q.TimeoutMillis) * time.Millisecond)
	}
	tree, err := hierarchy.Calls(ctx, r.snap, def, dir, b)
	if err != nil {
		return callHierarchyResult{}, err
	}
	s := tree.Stats
	stats := callStats{TotalNodes: s.Nodes, TotalEdges: s.Edges, TruncatedNodes: s.TruncatedNodes, MaxDepthReached: s.MaxDepth,
		TimeoutReached: s.TimeoutReached, MaxTotalCallsReached: s.MaxTotalCallsReached,
		MaxChildrenPerNodeReached: s.MaxChildrenPerNodeReached, FilesVisited: s.FilesVisited}
	return callHierarchyResult{r.callNode(tree.Root), stats, kastSchemaVersion}, nil
}

// callNode describes a call tree node; a caller that is no definition is
// the top level of its file.
func (r *kastRequest) callNode(n *hierarchy.CallNode) *callNode {
	sym, ok := r.symbol(n.Def, symbolOpts{})
	out := &callNode{Symbol: sym, Truncation: truncationOf(n.Truncation), Children: make([]*callNode, 0, len(n.Children))}
	if n.Site != nil {
		if !ok {
			out.Symbol = r.fileSymbol(n.Def.Path)
		}
		site := r.location(n.Site.Path, n.Site.Span)
		out.CallSite = &site
		out.ambiguous = n.Site.Ambiguous
	}
	for _, c := range n.Children {
		out.Children = append(out.Children, r.callNode(c))
	}
	return out
}

// fileSymbol stands for the top level of a file as a caller.
func (r *kastRequest) fileSymbol(path string) kastSymbol {
	return kastSymbol{FqName: path, Kind: "UNKNOWN", Location: r.location(path, analysis.Span{})}
}

// truncationReasons spell the engine's truncations as Kast's
// CallNodeTruncationReason and TypeHierarchyTruncationReason.
var truncationReasons = map[hierarchy.Truncation]string{
	hierarchy.Cycle:              "CYCLE",
	hierarchy.MaxTotalCalls:      "MAX_TOTAL_CALLS",
	hierarchy.MaxChildrenPerNode: "MAX_CHILDREN_PER_NODE",
	hierarchy.Timeout:            "TIMEOUT",
	hierarchy.MaxResults:         "MAX_RESULTS",
}

func truncationOf(t hierarchy.Truncation) *truncation {
	if t == hierarchy.NotTruncated {
		return nil
	}
	return &truncation{Reason: truncationReasons[t]}
}

// --- raw/type-hierarchy

type typeHierarchyQuery struct {
	positional
	Direction  *string `json:"direction"`
	Depth      *int    `json:"depth"`
	MaxResults *int    `json:"maxResults"`
}

func (q *typeHierarchyQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.Direction != nil && !slices.Contains([]string{"SUPERTYPES", "SUBTYPES", "BOTH"}, *q.Direction) {
		return validation("direction must be SUPERTYPES, SUBTYPES or BOTH", map[string]string{"direction": *q.Direction})
	}
	if q.Depth != nil && *q.Depth < 0 {
		return validation("depth must not be negative", nil)
	}
	if q.MaxResults != nil {
		return positive("maxResults", *q.MaxResults)
	}
	return nil
}

type typeNode struct {
	Symbol     kastSymbol  `json:"symbol"`
	Children   []*typeNode `json:"children"`
	Truncation *truncation `json:"truncation,omitempty"`
}

type typeStats struct {
	TotalNodes      int  `json:"totalNodes"`
	MaxDepthReached int  `json:"maxDepthReached"`
	Truncated       bool `json:"truncated"`
}

type typeHierarchyResult struct {
	Root          *typeNode `json:"root"`
	Stats         typeStats `json:"stats"`
	SchemaVersion int       `json:"schemaVersion"`
}

var typeDirections = map[string]hierarchy.TypeDirection{"SUPERTYPES": hierarchy.Supertypes, "SUBTYPES": hierarchy.Subtypes, "BOTH": hierarchy.Both}

func (k *Service) typeHierarchy(ctx context.Context, q *typeHierarchyQuery) (typeHierarchyResult, error) {
	r, def, _, _, err := k.at(ctx, q.Position)
	if err != nil {
		return typeHierarchyResult{}, err
	}
	dir := typeDirections[valueOr(q.Direction, "BOTH")]
	tree, err := hierarchy.Types(ctx, r.snap, def, dir, hierarchy.TypeBounds{Depth: valueOr(q.Depth, 3), MaxResults: valueOr(q.MaxResults, 256)})
	if err != nil {
		return typeHierarchyResult{}, err
	}
	stats := typeStats{TotalNodes: tree.Stats.Nodes, MaxDepthReached: tree.Stats.MaxDepth, Truncated: tree.Stats.Truncated}
	return typeHierarchyResult{r.typeNode(tree.Root), stats, kastSchemaVersion}, nil
}

func (r *kastRequest) typeNode(n *hierarchy.TypeNode) *typeNode {
	sym, _ := r.symbol(n.Def, symbolOpts{})
	out := &typeNode{Symbol: sym, Truncation: truncationOf(n.Truncation), Children: make([]*typeNode, 0, len(n.Children))}
	for _, c := range n.Children {
		out.Children = append(out.Children, r.typeNode(c))
	}
	return out
}
