// Package structure answers questions about one file's shape: its outline
// as a tree, the regions an editor can fold, and the nested ranges a
// selection grows through. Folding and selection reparse the file, since the
// index keeps no trees.
package structure

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/imports"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Symbol is one outline entry and the entries nested in it.
type Symbol struct {
	Def      int32 // index into the file's Defs
	Children []Symbol
}

// Symbols returns the file's outline as a tree, in source order.
func Symbols(f *analysis.FileFacts) []Symbol {
	var root []Symbol
	// path holds the indexes of the open entries from the root down; each
	// append walks it afresh, since appending may move a slice.
	var path, depths []int
	for _, it := range f.Outline() {
		for len(depths) > 0 && depths[len(depths)-1] >= it.Depth {
			depths, path = depths[:len(depths)-1], path[:len(path)-1]
		}
		level := &root
		for _, i := range path {
			level = &(*level)[i].Children
		}
		*level = append(*level, Symbol{Def: it.Def})
		path = append(path, len(*level)-1)
		depths = append(depths, it.Depth)
	}
	return root
}

// Fold is a foldable range of whole lines (0-based, inclusive).
type Fold struct {
	StartLine, EndLine int
	Kind               string // "comment", "imports" or "" for code
}

// Folds lists the file's foldable regions: bracketed and indented blocks,
// multi-line comments and runs of imports.
func Folds(ctx context.Context, path string, src []byte, f *analysis.FileFacts) ([]Fold, error) {
	tree, err := parse(ctx, path, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	byStart := map[int]Fold{}
	add := func(fd Fold) {
		if fd.EndLine <= fd.StartLine {
			return
		}
		if old, ok := byStart[fd.StartLine]; !ok || old.EndLine < fd.EndLine {
			byStart[fd.StartLine] = fd
		}
	}
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		s := n.Span()
		switch {
		case strings.Contains(n.Type(), "comment"):
			add(Fold{s.StartPoint.Line, lastLine(s), "comment"})
			return
		case isBlock(n):
			add(Fold{s.StartPoint.Line, lastLine(s) - closesOwnLine(n, src), ""})
		}
		for _, c := range n.Children() {
			visit(c)
		}
	}
	visit(tree.Root())
	if f != nil {
		if first, last, ok := imports.ImportLines(f, src); ok {
			add(Fold{first, last, "imports"})
		}
	}
	out := make([]Fold, 0, len(byStart))
	for _, fd := range byStart {
		out = append(out, fd)
	}
	slices.SortFunc(out, func(a, b Fold) int { return a.StartLine - b.StartLine })
	return out, nil
}

// isBlock reports whether a node is a bracketed list or an indented body.
func isBlock(n syntax.Node) bool {
	kids := n.Children()
	if len(kids) >= 2 {
		open, close := kids[0].Type(), kids[len(kids)-1].Type()
		if open == "{" && close == "}" || open == "(" && close == ")" || open == "[" && close == "]" {
			return true
		}
	}
	t := n.Type()
	return n.IsNamed() && (t == "block" || strings.HasSuffix(t, "_body") || t == "body_statement" || t == "do_block")
}

// closesOwnLine is 1 when the block's last line holds only its closing
// bracket, which stays visible when the block is folded.
func closesOwnLine(n syntax.Node, src []byte) int {
	end := n.End()
	if end == 0 || end > len(src) || !strings.ContainsAny(string(src[end-1]), "})]") {
		return 0
	}
	lineStart := strings.LastIndexByte(string(src[:end-1]), '\n') + 1
	if strings.TrimSpace(string(src[lineStart:end-1])) == "" {
		return 1
	}
	return 0
}

// lastLine is the line a span ends on, not counting an end at column 0.
func lastLine(s analysis.Span) int {
	if s.EndPoint.Col == 0 && s.EndPoint.Line > s.StartPoint.Line {
		return s.EndPoint.Line - 1
	}
	return s.EndPoint.Line
}

// SelectionRanges returns, for each offset, the spans of the syntax nodes
// around it, innermost first, each strictly larger than the one before.
func SelectionRanges(ctx context.Context, path string, src []byte, offsets []int) ([][]analysis.Span, error) {
	tree, err := parse(ctx, path, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	out := make([][]analysis.Span, len(offsets))
	for i, off := range offsets {
		var chain []syntax.Node
		for n := tree.Root(); n.Valid(); {
			chain = append(chain, n)
			next := syntax.Node{}
			for _, c := range n.Children() {
				if c.Start() <= off && off < c.End() || c.Start() == off && c.End() == off {
					next = c
					break
				}
			}
			n = next
		}
		var spans []analysis.Span
		for j := len(chain) - 1; j >= 0; j-- {
			s := chain[j].Span()
			if len(spans) == 0 || s.Start < spans[len(spans)-1].Start || s.End > spans[len(spans)-1].End {
				spans = append(spans, s)
			}
		}
		out[i] = spans
	}
	return out, nil
}

func parse(ctx context.Context, path string, src []byte) (*syntax.Tree, error) {
	l, ok := lang.ForPath(path)
	if !ok {
		return nil, fmt.Errorf("%s: unsupported language", path)
	}
	return l.Syntax.Parse(ctx, src)
}
