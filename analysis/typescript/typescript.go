// Package typescript extracts facts from TypeScript and TSX sources.
package typescript

import (
	"context"

	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/internal/ecma"
	"github.com/kast-dev/kast/analysis/syntax"
)

var (
	// Syntax is the TypeScript grammar.
	Syntax = syntax.NewLanguage("typescript", typescript.GetLanguage())
	// TSXSyntax is the TypeScript grammar with JSX.
	TSXSyntax = syntax.NewLanguage("tsx", tsx.GetLanguage())
)

var (
	// Extensions are the file extensions of TypeScript sources.
	Extensions = []string{".ts", ".mts", ".cts"}
	// TSXExtensions are the file extensions of TSX sources.
	TSXExtensions = []string{".tsx"}
)

// Walk records the facts of a TypeScript or TSX tree.
func Walk(b *extract.Builder, root syntax.Node) { ecma.Walk(b, root) }

// Extract parses TypeScript src and returns its facts.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, Syntax, Walk, path, src)
}

// ExtractTSX parses TSX src and returns its facts.
func ExtractTSX(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, TSXSyntax, Walk, path, src)
}
