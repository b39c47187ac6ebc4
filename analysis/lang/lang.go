// Package lang maps file names to the languages kast understands and their
// extractors.
package lang

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/golang"
	"github.com/kast-dev/kast/analysis/java"
	"github.com/kast-dev/kast/analysis/javascript"
	"github.com/kast-dev/kast/analysis/kotlin"
	"github.com/kast-dev/kast/analysis/python"
	"github.com/kast-dev/kast/analysis/ruby"
	"github.com/kast-dev/kast/analysis/rust"
	"github.com/kast-dev/kast/analysis/syntax"
	"github.com/kast-dev/kast/analysis/typescript"
)

// Language is one supported language.
type Language struct {
	ID         string
	Extensions []string
	Syntax     *syntax.Language
	Walk       extract.Walker
}

// Languages lists every supported language.
var Languages = []*Language{
	{ID: "kotlin", Extensions: kotlin.Extensions, Syntax: kotlin.Syntax, Walk: kotlin.Walk},
	{ID: "go", Extensions: golang.Extensions, Syntax: golang.Syntax, Walk: golang.Walk},
	{ID: "python", Extensions: python.Extensions, Syntax: python.Syntax, Walk: python.Walk},
	{ID: "typescript", Extensions: typescript.Extensions, Syntax: typescript.Syntax, Walk: typescript.Walk},
	{ID: "tsx", Extensions: typescript.TSXExtensions, Syntax: typescript.TSXSyntax, Walk: typescript.Walk},
	{ID: "javascript", Extensions: javascript.Extensions, Syntax: javascript.Syntax, Walk: javascript.Walk},
	{ID: "java", Extensions: java.Extensions, Syntax: java.Syntax, Walk: java.Walk},
	{ID: "rust", Extensions: rust.Extensions, Syntax: rust.Syntax, Walk: rust.Walk},
	{ID: "ruby", Extensions: ruby.Extensions, Syntax: ruby.Syntax, Walk: ruby.Walk},
}

var byExt, byID = func() (map[string]*Language, map[string]*Language) {
	ext, id := map[string]*Language{}, map[string]*Language{}
	for _, l := range Languages {
		id[l.ID] = l
		for _, e := range l.Extensions {
			ext[e] = l
		}
	}
	return ext, id
}()

// ForPath returns the language of a file by its extension.
func ForPath(path string) (*Language, bool) {
	l, ok := byExt[strings.ToLower(filepath.Ext(path))]
	return l, ok
}

// ByID returns a language by its id ("kotlin", "go", "tsx", ...).
func ByID(id string) (*Language, bool) {
	l, ok := byID[id]
	return l, ok
}

// Extract parses src with the language of path and returns its facts,
// including Hash, Size and Lines.
func Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	l, ok := ForPath(path)
	if !ok {
		return nil, fmt.Errorf("%s: unsupported language", path)
	}
	return l.Extract(ctx, path, src)
}

// Extract parses src as this language and returns its facts.
func (l *Language) Extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	return extract.Run(ctx, l.Syntax, l.Walk, path, src)
}

// ExtractTree returns the facts of a tree the caller parsed (and keeps, for
// incremental reparsing with Syntax.Reparse).
func (l *Language) ExtractTree(tree *syntax.Tree, path string) *analysis.FileFacts {
	return extract.FromTree(tree, l.Walk, path)
}
