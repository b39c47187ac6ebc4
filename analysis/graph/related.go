package graph

import (
	"context"
	"slices"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Path is an edge relating a declaration to an anchor, as evidence.
type Path struct {
	From, To     string // fully qualified names
	Kind         string
	SourceFile   string
	SourceOffset int
}

// Directions of Related.
const (
	Incoming = "INCOMING" // declarations referencing the anchor
	Outgoing = "OUTGOING" // declarations the anchor references
	Both     = "BOTH"
)

// RelatedOptions bounds Related.
type RelatedOptions struct {
	Depth     int      // edges from an anchor, 1 or 2
	Direction string   // Incoming, Outgoing or Both
	EdgeKinds []string // only these kinds; none means all
	MaxEdges  int      // paths kept per declaration
}

// Related maps each declaration within Depth edges of an anchor to the
// edges that connect it, at most MaxEdges each. Top-level code has no
// declaration and relates nothing.
func (g *Graph) Related(ctx context.Context, anchors []resolve.DefID, o RelatedOptions) (map[resolve.DefID][]Path, error) {
	out := map[resolve.DefID][]Path{}
	frontier := map[resolve.DefID]bool{}
	for _, a := range anchors {
		frontier[a] = true
	}
	c := canceller{ctx: ctx}
	for range min(max(o.Depth, 1), 2) {
		if len(frontier) == 0 {
			break
		}
		next := map[resolve.DefID]bool{}
		for _, e := range g.Edges {
			if err := c.step(); err != nil {
				return nil, err
			}
			if e.From.Index == analysis.None || len(o.EdgeKinds) > 0 && !slices.Contains(o.EdgeKinds, e.Kind) {
				continue
			}
			var other resolve.DefID
			switch {
			case frontier[e.To] && o.Direction != Outgoing:
				other = e.From // a caller of the anchor: incoming
			case frontier[e.From] && o.Direction != Incoming:
				other = e.To
			default:
				continue
			}
			if len(out[other]) < o.MaxEdges {
				out[other] = append(out[other], Path{From: g.FQName(e.From), To: g.FQName(e.To), Kind: e.Kind, SourceFile: e.From.Path, SourceOffset: e.Offset})
			}
			next[other] = true
		}
		frontier = next
	}
	return out, nil
}
