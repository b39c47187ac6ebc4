package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"runtime"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/imports"
	"github.com/kast-dev/kast/analysis/modules"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/server"
)

// maxWorkspaceSymbols bounds a workspace/symbol answer.
const maxWorkspaceSymbols = 100

// Symbols answers workspace/symbol: fuzzy matches over every root and the
// open documents, best first.
func (l *LSP) Symbols(ctx context.Context, p *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	r := l.request(ctx)
	type hit struct {
		sym   workspace.Symbol
		score int
	}
	var hits []hit
	// The name tables describe each match: no file is decoded.
	for _, d := range r.snap.SymbolsMatching(p.Query, true, maxWorkspaceSymbols*4) {
		if d.Kind.IsSymbol() {
			hits = append(hits, hit{d, analysis.FuzzyScore(p.Query, d.Name)})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.sym.Name, b.sym.Name)) })
	out := protocol.WorkspaceSymbolSlice{}
	// Only the answer's locations are converted: one in a line with wide
	// characters reads its file.
	for _, h := range hits[:min(len(hits), maxWorkspaceSymbols)] {
		d := h.sym
		loc := r.loc(d.ID.Path, d.NameSpan)
		s := protocol.WorkspaceSymbol{BaseSymbolInformation: protocol.BaseSymbolInformation{Name: d.Name, Kind: symbolKind(d.Kind)}, Location: &loc}
		if d.Container != "" {
			s.ContainerName = ptr(d.Container)
		}
		out = append(out, s)
	}
	return out, nil
}

// CodeAction answers textDocument/codeAction: organize imports, when the
// file's imports are not in order.
func (l *LSP) CodeAction(ctx context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	out := []protocol.CommandOrCodeAction{}
	if len(p.Context.Only) > 0 && !slices.ContainsFunc(p.Context.Only, func(k protocol.CodeActionKind) bool {
		return k == protocol.CodeActionKindSource || k == protocol.CodeActionKindSourceOrganizeImports
	}) {
		return out, nil
	}
	r := l.request(ctx)
	path, f, d, err := r.file(p.TextDocument.URI)
	if err != nil {
		return empty(out, err)
	}
	edits := imports.Organize(f, d.Text)
	if len(edits) == 0 {
		return out, nil
	}
	var text []protocol.TextEdit
	for _, e := range edits {
		text = append(text, protocol.TextEdit{Range: r.between(path, e.Start, e.End), NewText: e.NewText})
	}
	kind := protocol.CodeActionKindSourceOrganizeImports
	return append(out, &protocol.CodeAction{
		Title: "Organize imports", Kind: &kind,
		Edit: &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{p.TextDocument.URI: text}},
	}), nil
}

// ExecuteCommand runs kast's own commands.
func (l *LSP) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	s := l.session(ctx)
	switch p.Command {
	case cmdReindex:
		// Wait for the first indexing, then catch up with the disk.
		if err := s.waitIndexed(ctx); err != nil {
			return nil, err
		}
		// Then resolve references as the background pass would, so that
		// what follows answers from the stored uses.
		files, resolved := 0, 0
		for _, w := range s.engine.Roots() {
			totals, err := l.pool.Refresh(ctx, w.Root, nil)
			if err != nil {
				return nil, err
			}
			files += totals.Files
			n, err := l.pool.ResolveUses(ctx, w.Root, runtime.GOMAXPROCS(0), nil) // asked for: every core
			if err != nil {
				return nil, err
			}
			resolved += n
		}
		return json.Marshal(map[string]int{"files": files, "resolved": resolved})
	case cmdStatus:
		type root struct {
			Path   string `json:"path"`
			Index  string `json:"index"` // the index folder, or "in memory"
			Files  int    `json:"files"` // indexed
			Notice string `json:"notice,omitempty"`
			// References says whether reference queries read stored uses
			// ("stored") or resolve every candidate until the background
			// pass catches up ("resolving").
			References string `json:"references"`
			// BuildProblems lists what could not be read of the Gradle or
			// Maven build (syntax errors, missing includes, cycles): the
			// module model leaves those parts out and resolution falls
			// back to name matching there.
			BuildProblems []string `json:"buildProblems,omitempty"`
		}
		roots := []root{}
		for _, w := range s.engine.Roots() {
			refs := "resolving"
			if w.UsesHold() {
				refs = "stored"
			}
			files, _ := w.Index.Files()
			roots = append(roots, root{w.Root, indexPlace(w), len(files), w.Notice(), refs, modules.Load(w.Root).Problems})
		}
		status := map[string]any{"roots": roots}
		if s.l.pool.Libraries {
			status["libraries"] = s.libraryStatus()
		}
		return json.Marshal(status)
	}
	return nil, server.Errorf(jsonrpc2.InvalidParams, server.CodeInvalidParams, "unknown command %q; kast runs %s and %s", p.Command, cmdReindex, cmdStatus)
}

// indexPlace says where a root's index lives.
func indexPlace(w *workspace.Workspace) string {
	if dir := w.Index.Dir(); dir != "" {
		return dir
	}
	return "in memory"
}
