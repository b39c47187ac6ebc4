// Package hierarchy builds bounded trees over a snapshot's call and type
// graphs: who calls a definition or what it calls, level by level, and the
// types above and below a type. A tree is bounded in depth, in size and per
// node; a definition already on the path from the root is reported as a
// cycle and not expanded again, so recursion and inheritance loops in broken
// code end a branch instead of repeating it until a bound runs out.
//
// The trees hold definition ids and call-site spans; describing them for a
// protocol is the caller's business.
package hierarchy

import (
	"github.com/kast-dev/kast/analysis/navigate"
)

// Snapshot is what the trees are read from: a workspace view with one
// resolver (a *workspace.Snapshot).
type Snapshot = navigate.Snapshot

// Truncation says why a node's children are incomplete, or that the node
// repeats a definition on its path and was not expanded.
type Truncation uint8

const (
	NotTruncated Truncation = iota
	// Cycle: the node's definition is already on the path from the root.
	Cycle
	// MaxTotalCalls: the call tree's edge budget ran out while listing the
	// node's children.
	MaxTotalCalls
	// MaxChildrenPerNode: the node has more children than one node may list.
	MaxChildrenPerNode
	// Timeout: the deadline passed while listing the node's children.
	Timeout
	// MaxResults: the type tree's node budget ran out while listing the
	// node's children.
	MaxResults
)

func (t Truncation) String() string {
	switch t {
	case NotTruncated:
		return "none"
	case Cycle:
		return "cycle"
	case MaxTotalCalls:
		return "max total calls"
	case MaxChildrenPerNode:
		return "max children per node"
	case Timeout:
		return "timeout"
	case MaxResults:
		return "max results"
	}
	return "unknown"
}
