package tools

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/lang"
	kresolve "github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/analysis/workspace"
)

// The editor's text: files a session read or wrote through the client
// (ClientFiles) may differ from the disk (unsaved buffers, edits the editor
// has not saved). The code tools answer from that text for those files,
// the index shadowed by it as the language server's open documents shadow
// it, so the model's next question sees its own edit.

// EditorTexts are the texts of one session's files as the editor has them.
type EditorTexts struct {
	mu    sync.Mutex
	texts map[string][]byte // by absolute path
}

// Set records path's text in the editor.
func (e *EditorTexts) Set(path string, text []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.texts == nil {
		e.texts = map[string][]byte{}
	}
	e.texts[path] = text
}

// docs are the texts as open documents of a snapshot.
func (e *EditorTexts) docs() []workspace.Doc {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]workspace.Doc, 0, len(e.texts))
	for p, t := range e.texts {
		out = append(out, workspace.Doc{Path: p, Version: 1, Text: t})
	}
	return out
}

// overlay is a copy of the texts for the searches; nil without texts.
func (e *EditorTexts) overlay() search.Overlay {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.texts) == 0 {
		return nil
	}
	out := make(search.Overlay, len(e.texts))
	for p, t := range e.texts {
		out[p] = t
	}
	return out
}

func (e *EditorTexts) text(path string) ([]byte, bool) {
	if e == nil {
		return nil, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.texts[path]
	return t, ok
}

// withOpenDocuments adds the documents the process's language-server
// connections have open (host.OpenTexts) under the session's own editor
// texts, which win: with `kast lsp`, every projection's code tools see the
// editor's unsaved buffers as the language server does.
func withOpenDocuments(ctx context.Context, open map[string][]byte) context.Context {
	if len(open) == 0 {
		return ctx
	}
	merged := &EditorTexts{texts: open}
	if e := editorTextsOf(ctx); e != nil {
		e.mu.Lock()
		for p, t := range e.texts {
			merged.texts[p] = t
		}
		e.mu.Unlock()
	}
	return withEditorTexts(ctx, merged)
}

// within keeps the texts of files under one of roots.
func (e *EditorTexts) within(roots []string) []workspace.Doc {
	if e == nil {
		return nil
	}
	var out []workspace.Doc
	for _, d := range e.docs() {
		for _, r := range roots {
			if within(r, d.Path) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

type editorTextsKey struct{}

// withEditorTexts hands the texts to the code tools a call runs.
func withEditorTexts(ctx context.Context, e *EditorTexts) context.Context {
	return context.WithValue(ctx, editorTextsKey{}, e)
}

func editorTextsOf(ctx context.Context) *EditorTexts {
	e, _ := ctx.Value(editorTextsKey{}).(*EditorTexts)
	return e
}

// fileFacts are a file's facts from the editor's text, or nil when the
// editor has none for it.
func fileFactsFromEditor(ctx context.Context, path string) ([]workspace.Location, []workspace.Location, bool, error) {
	src, ok := editorTextsOf(ctx).text(path)
	if !ok {
		return nil, nil, false, nil
	}
	facts, err := lang.Extract(ctx, path, src)
	if err != nil {
		return nil, nil, true, err
	}
	var outline, diags []workspace.Location
	for _, it := range facts.Outline() {
		d := facts.Defs[it.Def]
		outline = append(outline, workspace.Location{Path: path, Line: d.NameSpan.StartPoint.Line + 1, Col: d.NameSpan.StartPoint.Col + 1,
			Name: d.Name, Kind: d.Kind.String(), Depth: it.Depth})
	}
	for _, e := range facts.Errors {
		diags = append(diags, workspace.Location{Path: path, Line: e.Span.StartPoint.Line + 1, Col: e.Span.StartPoint.Col + 1, Message: e.Message})
	}
	return outline, diags, true, nil
}

// editorResolver is a resolver over ws's index shadowed by the editor's
// texts, and the byte offset of line:col in path's text as the editor has
// it; nil when the editor has no texts for the session.
func editorResolver(ctx context.Context, ws *workspace.Workspace, path string, line, col int) (*kresolve.Resolver, int, error) {
	e := editorTextsOf(ctx)
	docs := []workspace.Doc(nil)
	if e != nil {
		docs = e.docs()
	}
	if len(docs) == 0 {
		return nil, 0, nil
	}
	s := workspace.NewSession()
	s.AddRoot(ws)
	off, err := editorOffset(e, path, line, col)
	if err != nil {
		return nil, 0, err
	}
	return s.Snapshot(docs).Resolver(), off, nil
}

// editorOffset is the byte offset of 1-based line:col in path's text as
// the editor has it, else as the disk has it.
func editorOffset(e *EditorTexts, path string, line, col int) (int, error) {
	src, ok := e.text(path)
	if !ok {
		return workspace.Offset(path, line, col)
	}
	if line < 1 || col < 1 {
		return 0, fmt.Errorf("line and column are 1-based, got %d:%d", line, col)
	}
	off, err := document.New("", "", 0, src).Offset(document.Position{Line: line - 1, Character: col - 1}, document.UTF8)
	if errors.Is(err, document.ErrPosition) {
		return 0, fmt.Errorf("%w: line %d is past the editor's text of %s", document.ErrPosition, line, path)
	}
	return off, err
}
