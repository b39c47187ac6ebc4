package tools

import (
	"context"
	"slices"

	"github.com/kast-dev/kast/analysis"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Index serves the code-intelligence tools (CodeIntel) from the process's
// indexes, the ones the editor navigates with, as compiler-style text lines
// the model can act on.
type Index struct{ Host *host.Host }

// maxSymbols bounds a workspace-symbol answer so it fits the tool output cap.
const maxSymbols = 100

// open adds the editors' open documents to ctx's editor texts.
func (c Index) open(ctx context.Context) context.Context {
	if c.Host == nil {
		return ctx
	}
	return withOpenDocuments(ctx, c.Host.OpenTexts())
}

func (c Index) query(ctx context.Context, root string, q func(context.Context, *workspace.Workspace) ([]workspace.Location, error)) (string, error) {
	ctx = c.open(ctx)
	ws, err := c.Host.Fresh(ctx, root)
	if err != nil {
		return "", err
	}
	locs, err := q(ctx, ws)
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return "No results.", nil
	}
	return workspace.Format(root, locs), nil
}

func (c Index) Resolve(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ctx context.Context, ws *workspace.Workspace) ([]workspace.Location, error) {
		r, off, err := editorResolver(ctx, ws, path, line, column)
		if r == nil && err == nil {
			return ws.Definition(path, line, column)
		}
		if err != nil {
			return nil, err
		}
		var out []workspace.Location
		for _, c := range r.DefinitionAt(path, off) {
			out = append(out, workspace.Location{Path: c.Def.Path, Line: c.NameSpan.StartPoint.Line + 1, Col: c.NameSpan.StartPoint.Col + 1,
				Name: c.Name, Kind: c.Kind.String(), Confidence: c.Confidence, Uncertain: c.Uncertain, Via: string(c.Via)})
		}
		return out, nil
	})
}

func (c Index) References(ctx context.Context, root, path string, line, column int) (string, error) {
	return c.query(ctx, root, func(ctx context.Context, ws *workspace.Workspace) ([]workspace.Location, error) {
		r, off, err := editorResolver(ctx, ws, path, line, column)
		if r == nil && err == nil {
			return ws.References(path, line, column)
		}
		if err != nil {
			return nil, err
		}
		cands := r.DefinitionAt(path, off)
		if len(cands) == 0 || cands[0].Uncertain {
			return nil, nil
		}
		var out []workspace.Location
		for _, ref := range r.References(cands[0].Def) {
			out = append(out, workspace.Location{Path: ref.Ref.Path, Line: ref.Span.StartPoint.Line + 1, Col: ref.Span.StartPoint.Col + 1,
				Role: workspace.RoleName(ref.Role), Confidence: ref.Confidence, Uncertain: ref.Uncertain})
		}
		return out, nil
	})
}

func (c Index) Outline(ctx context.Context, root, path string) (string, error) {
	return c.query(ctx, root, func(ctx context.Context, ws *workspace.Workspace) ([]workspace.Location, error) {
		if outline, _, ok, err := fileFactsFromEditor(ctx, path); ok {
			return outline, err
		}
		return ws.Outline(path)
	})
}

// WorkspaceSymbols searches the declarations of every root's index, the
// editor's texts shadowing their files, best fuzzy matches first.
func (c Index) WorkspaceSymbols(ctx context.Context, roots []string, query string) (string, error) {
	ctx = c.open(ctx)
	sess := workspace.NewSession()
	for _, root := range roots {
		ws, err := c.Host.Fresh(ctx, root)
		if err != nil {
			return "", err
		}
		sess.AddRoot(ws)
	}
	syms := slices.DeleteFunc(sess.Snapshot(editorTextsOf(ctx).within(roots)).SymbolsMatching(query, true, 4*maxSymbols),
		func(s workspace.Symbol) bool { return !s.Kind.IsSymbol() })
	if len(syms) == 0 {
		return "No results.", nil
	}
	slices.SortStableFunc(syms, func(a, b workspace.Symbol) int {
		return analysis.FuzzyScore(query, b.Name) - analysis.FuzzyScore(query, a.Name)
	})
	locs := make([]workspace.Location, 0, min(len(syms), maxSymbols))
	for _, s := range syms[:min(len(syms), maxSymbols)] {
		locs = append(locs, workspace.Location{Path: s.ID.Path, Line: s.NameSpan.StartPoint.Line + 1, Col: s.NameSpan.StartPoint.Col + 1,
			Name: s.Name, Kind: s.Kind.String(), Container: s.Container})
	}
	return workspace.Format(roots[0], locs), nil
}

func (c Index) Diagnostics(ctx context.Context, root, path string) (string, error) {
	ctx = c.open(ctx)
	ws, err := c.Host.Fresh(ctx, root)
	if err != nil {
		return "", err
	}
	_, locs, fromEditor, err := fileFactsFromEditor(ctx, path)
	if !fromEditor {
		locs, err = ws.Diagnostics(path)
	}
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return "No syntax errors.", nil
	}
	return workspace.Format(root, locs), nil
}
