// Package handlers connects the protocols to the engines: thin handlers that
// validate input, take the request's snapshot and delegate. No analysis logic
// lives here.
package handlers

import (
	"context"
	"log/slog"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/server"
)

// LSP answers the standard Language Server Protocol methods. Methods it does
// not override answer -32601 through the embedded UnimplementedServer. One
// LSP serves every connection of a server; each connection has its session.
type LSP struct {
	protocol.UnimplementedServer
	pool *workspaces

	mu       sync.Mutex
	sessions map[*server.Conn]*session
	open     sync.WaitGroup // sessions of connections not yet closed
}

// processWorkspaces is the pool every connection of the process shares (the
// language server and the agent's code tools), so one root has one index.
var processWorkspaces = newWorkspaces(slog.Default())

// NewLSP returns the standard LSP handler.
func NewLSP() *LSP { return newLSP(processWorkspaces) }

// waitSessions waits until every connection's session has closed.
func (l *LSP) waitSessions() { l.open.Wait() }

func newLSP(pool *workspaces) *LSP {
	return &LSP{pool: pool, sessions: map[*server.Conn]*session{}}
}

// Initialize advertises what kast serves and records the workspace roots;
// the transport adds the position encoding and each protocol family's
// experimental capabilities.
func (l *LSP) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	var roots []string
	folders, _ := params.WorkspaceFolders.Get()
	for _, f := range folders {
		roots = append(roots, uriPath(f.URI))
	}
	if len(roots) == 0 && params.RootURI != nil {
		roots = append(roots, uriPath(*params.RootURI))
	}
	l.session(ctx).pending = roots
	return &protocol.InitializeResult{Capabilities: capabilities()}, nil
}

// Initialized opens the workspace roots and indexes them in the background.
func (l *LSP) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s := l.session(ctx)
	for _, root := range s.pending {
		s.addRoot(root)
	}
	s.pending = nil
	return nil
}

// Shutdown stops background work; the connection's end releases the rest.
func (l *LSP) Shutdown(ctx context.Context) error {
	l.session(ctx).stop()
	return nil
}

// DidOpen records the document's text.
func (l *LSP) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	item := params.TextDocument
	server.ConnOf(ctx).Documents().Open(document.New(string(item.URI), string(item.LanguageID), item.Version, []byte(item.Text)))
	l.session(ctx).diagnose(string(item.URI))
	return nil
}

// DidChange applies incremental or whole-document changes in order.
func (l *LSP) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	conn := server.ConnOf(ctx)
	changes := make([]document.Change, 0, len(params.ContentChanges))
	for _, ev := range params.ContentChanges {
		switch ev := ev.(type) {
		case *protocol.TextDocumentContentChangePartial:
			r := document.Range{
				Start: document.Position{Line: int(ev.Range.Start.Line), Character: int(ev.Range.Start.Character)},
				End:   document.Position{Line: int(ev.Range.End.Line), Character: int(ev.Range.End.Character)},
			}
			changes = append(changes, document.Change{Range: &r, Text: ev.Text})
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, document.Change{Text: ev.Text})
		}
	}
	if _, err := conn.Documents().Change(string(params.TextDocument.URI), params.TextDocument.Version, changes, conn.Encoding()); err != nil {
		return err
	}
	l.session(ctx).diagnose(string(params.TextDocument.URI))
	return nil
}

// DidClose forgets the document; the index's version of the file shows
// through again.
func (l *LSP) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s := l.session(ctx)
	s.engine.Forget(uriPath(params.TextDocument.URI))
	s.clearDiagnostics(string(params.TextDocument.URI))
	return server.ConnOf(ctx).Documents().Close(string(params.TextDocument.URI))
}

// DidSave reindexes the saved file from disk.
func (l *LSP) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	l.session(ctx).reindex(uriPath(params.TextDocument.URI), false)
	return nil
}

// DidChangeWatchedFiles reindexes files changed on disk and drops deleted ones.
func (l *LSP) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	s := l.session(ctx)
	for _, ev := range params.Changes {
		s.reindex(uriPath(ev.URI), ev.Type == protocol.FileChangeTypeDeleted)
	}
	return nil
}

// DidChangeWorkspaceFolders adds and removes roots.
func (l *LSP) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	s := l.session(ctx)
	for _, f := range params.Event.Removed {
		s.removeRoot(uriPath(f.URI))
	}
	for _, f := range params.Event.Added {
		s.addRoot(uriPath(f.URI))
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
