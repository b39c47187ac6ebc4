package extract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Walker turns a file's syntax tree into facts through the builder.
type Walker func(b *Builder, root syntax.Node)

// Run parses src, walks it and drops the tree.
func Run(ctx context.Context, lang *syntax.Language, walk Walker, path string, src []byte) (*analysis.FileFacts, error) {
	tree, err := lang.Parse(ctx, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	return FromTree(tree, walk, path), nil
}

// FromTree walks an already parsed tree, for callers that keep trees for
// incremental reparsing. The tree stays owned by the caller.
func FromTree(tree *syntax.Tree, walk Walker, path string) *analysis.FileFacts {
	b := New(tree, path)
	walk(b, tree.Root())
	facts := b.Finish()
	src := tree.Source()
	sum := sha256.Sum256(src)
	facts.Hash = hex.EncodeToString(sum[:])
	facts.Size = len(src)
	facts.ASCII = analysis.IsASCII(src)
	if !facts.ASCII {
		facts.WideLines = analysis.WideLines(src)
	}
	facts.Lines = bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		facts.Lines++
	}
	return facts
}
