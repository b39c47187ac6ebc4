// Package javascript extracts facts from JavaScript (and JSX) sources.
package javascript

import (
	"context"

	"github.com/smacker/go-tree-sitter/javascript"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/internal/ecma"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Syntax is the JavaScript grammar, which includes JSX.
var Syntax = syntax.NewLanguage("javascript", javascript.GetLanguage())

// Extensions are the file extensions of JavaScript sources.
var Extensions = []string{".js", ".jsx", ".mjs", ".cjs"}

// Walk records the facts of a JavaScript tree.
func Walk(b *extract.Builder, root syntax.Node) { ecma.Walk(b, root) }

// Extract parses src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}
