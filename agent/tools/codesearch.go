package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/rename"
	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/analysis/workspace"
)

// CodeSearch is the optional half of the code-intelligence tools: a rename
// preview (the edits, never applied) and the regex and hybrid searches of
// `kast search`. A CodeIntel that implements it offers them too.
type CodeSearch interface {
	RenamePreview(ctx context.Context, root, path string, line, column int, newName string) (string, error)
	RegexSearch(ctx context.Context, roots []string, q RegexArgs) (string, error)
	HybridSearch(ctx context.Context, roots []string, query string, topK int) (string, error)
}

// RegexArgs are regex_search's arguments.
type RegexArgs struct {
	Pattern    string `json:"pattern"`
	IgnoreCase bool   `json:"ignore_case"`
	Glob       string `json:"glob"`
}

// Search tool names.
const (
	WorkspaceSymbols = "workspace_symbols"
	RenamePreview    = "rename_preview"
	RegexSearch      = "regex_search"
	HybridSearch     = "hybrid_search"
)

// maxSearchLines bounds the lines a search answer lists.
const maxSearchLines = 200

func searchTools(cs CodeSearch) []tool {
	renameParams := object(map[string]any{
		"path":     str("File path, relative to the workspace root."),
		"line":     integer("1-based line."),
		"column":   integer("1-based column."),
		"new_name": str("The new name."),
	}, "path", "line", "column", "new_name")
	regexParams := object(map[string]any{
		"pattern":     str("RE2 regular expression, matched per line."),
		"ignore_case": map[string]any{"type": "boolean", "description": "Match case-insensitively."},
		"glob":        str("Only files whose relative path or base name matches this glob, such as *.go."),
	}, "pattern")
	hybridParams := object(map[string]any{
		"query": str("What to look for, in words or code."),
		"top_k": integer("How many results, default 10, at most 50."),
	}, "query")
	return []tool{
		{agent.ToolSpec{Name: RenamePreview, Description: "Preview renaming the symbol at a position: the edits to every confident use, not applied.", Parameters: renameParams},
			func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
				var p struct {
					position
					NewName string `json:"new_name"`
				}
				if err := decode(raw, &p); err != nil {
					return errorf("%v", err)
				}
				abs, _, err := resolve(env, p.Path, confine.Read)
				if err != nil {
					return errorf("%v", err)
				}
				return textResult(cs.RenamePreview(ctx, rootOf(env, abs), abs, p.Line, p.Column, p.NewName))
			}},
		{agent.ToolSpec{Name: RegexSearch, Description: "Search the files of the workspace and the session's further roots for a regular expression, as grep does (gitignored files skipped).", Parameters: regexParams},
			func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
				var p RegexArgs
				if err := decode(raw, &p); err != nil {
					return errorf("%v", err)
				}
				if p.Pattern == "" {
					return errorf("pattern is required")
				}
				return textResult(cs.RegexSearch(ctx, roots(env), p))
			}},
		{agent.ToolSpec{Name: HybridSearch, Description: "Search the code of the workspace and the session's further roots by meaning and keywords together; answers ranked code sections.", Parameters: hybridParams},
			func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
				var p struct {
					Query string `json:"query"`
					TopK  int    `json:"top_k"`
				}
				if err := decode(raw, &p); err != nil {
					return errorf("%v", err)
				}
				if strings.TrimSpace(p.Query) == "" {
					return errorf("query is required")
				}
				return textResult(cs.HybridSearch(ctx, roots(env), p.Query, min(max(p.TopK, 0), 50)))
			}},
	}
}

// RenamePreview lists the edits a rename would make, one per line.
func (c Index) RenamePreview(ctx context.Context, root, path string, line, column int, newName string) (string, error) {
	ctx = c.open(ctx)
	ws, err := c.Host.Fresh(ctx, root)
	if err != nil {
		return "", err
	}
	texts := editorTextsOf(ctx)
	offset, err := editorOffset(texts, path, line, column)
	if err != nil {
		return "", err
	}
	var docs []workspace.Doc
	if texts != nil {
		docs = texts.docs()
	}
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	edits, err := rename.Rename(sess.Snapshot(docs), path, offset, newName)
	var re *rename.Error
	if errors.As(err, &re) {
		return re.Msg, nil
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d edit(s), not applied:\n", len(edits))
	for _, e := range edits {
		fmt.Fprintf(&b, "%s:%d:%d: %q → %q\n", relTo(root, e.Path), e.Span.StartPoint.Line+1, e.Span.StartPoint.Col+1,
			spanText(texts, e.Path, e.Span.Start, e.Span.End), e.NewText)
	}
	return b.String(), nil
}

// RegexSearch answers grep-style lines, path:line: text, from every root's
// files, the editor's texts in place of the disk's.
func (c Index) RegexSearch(ctx context.Context, roots []string, q RegexArgs) (string, error) {
	ctx = c.open(ctx)
	scope := search.Scope{}
	if q.Glob != "" {
		scope.Include = []string{q.Glob}
	}
	overlay := editorTextsOf(ctx).overlay()
	var lines []search.LineMatch
	for _, root := range roots {
		eng, err := c.engine(ctx, root)
		if err != nil {
			return "", err
		}
		res, err := eng.Regex(ctx, search.RegexQuery{Pattern: q.Pattern, IgnoreCase: q.IgnoreCase, Scope: scope, Overlay: overlay})
		if err != nil {
			return "", err
		}
		lines = append(lines, res.Lines...)
	}
	if len(lines) == 0 {
		return "No matches.", nil
	}
	var b strings.Builder
	for i, l := range lines {
		if i == maxSearchLines {
			fmt.Fprintf(&b, "… and %d more matching lines\n", len(lines)-i)
			break
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", relTo(roots[0], l.Path), l.Line, strings.TrimRight(l.Text, "\r\n"))
	}
	return b.String(), nil
}

// HybridSearch answers ranked sections, path:start-end (score) and the
// section's first lines, the best of every root's, the editor's texts in
// place of the disk's. Fusion scores are reciprocal ranks, so the roots'
// rankings interleave fairly.
func (c Index) HybridSearch(ctx context.Context, roots []string, query string, topK int) (string, error) {
	ctx = c.open(ctx)
	overlay := editorTextsOf(ctx).overlay()
	var hits []search.Hit
	for _, root := range roots {
		eng, err := c.engine(ctx, root)
		if err != nil {
			return "", err
		}
		hs, err := eng.Hybrid(ctx, search.RankedQuery{Query: query, TopK: topK, Overlay: overlay})
		if err != nil {
			return "", err
		}
		hits = append(hits, hs...)
	}
	if len(hits) == 0 {
		return "No results.", nil
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if topK <= 0 {
		topK = 10
	}
	var b strings.Builder
	for _, h := range hits[:min(topK, len(hits))] {
		fmt.Fprintf(&b, "%s:%d-%d (score %.3f)\n", relTo(roots[0], h.Path), h.Chunk.StartLine, h.Chunk.EndLine, h.Score)
		lines := strings.SplitN(h.Text, "\n", 9)
		if len(lines) > 8 {
			lines[8] = "…"
		}
		for _, l := range lines {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String(), nil
}

// engine is the root's search engine, brought up to date with the files
// (an incremental refresh: only changed files are read again).
func (c Index) engine(ctx context.Context, root string) (*search.Engine, error) {
	if _, err := c.Host.Fresh(ctx, root); err != nil {
		return nil, err
	}
	eng, err := c.Host.Search(root)
	if err != nil {
		return nil, err
	}
	if _, err := eng.Refresh(ctx, false, nil); err != nil {
		return nil, err
	}
	return eng, nil
}

func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// spanText is the text a rename edit replaces: the editor's, else the
// file's on disk.
func spanText(texts *EditorTexts, path string, start, end int) string {
	src, ok := texts.text(path)
	if !ok {
		var err error
		if src, err = os.ReadFile(path); err != nil {
			return ""
		}
	}
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	return string(src[start:end])
}
