// Package lsp is the standard Language Server Protocol projection: thin
// handlers that take the request's snapshot of open documents, call one
// engine function (analysis/workspace, analysis/complete, …) and convert the
// answer to LSP types. Its methods table is methods.go.
package lsp

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// LSP answers the standard Language Server Protocol methods of its table;
// any other answers -32601. One LSP serves every connection of a server;
// each connection has its session.
type LSP struct {
	pool *host.Host

	mu       sync.Mutex
	sessions map[*server.Conn]*session
	open     sync.WaitGroup // sessions of connections not yet closed
}

// New returns the standard LSP handler over the process's host, which every
// connection and family shares, so one root has one index.
func New(h *host.Host) *LSP {
	return &LSP{pool: h, sessions: map[*server.Conn]*session{}}
}

// WaitSessions waits until every connection's session has closed.
func (l *LSP) WaitSessions() { l.open.Wait() }

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
	s := l.session(ctx)
	s.pending = roots
	s.applyInitializationOptions(params.InitializationOptions)
	// Until initialized opens them, these roots' libraries are unsettled.
	s.mu.Lock()
	s.libsPending += len(roots)
	s.mu.Unlock()
	return &protocol.InitializeResult{Capabilities: l.capabilities()}, nil
}

// Initialized opens the workspace roots and indexes them in the background.
func (l *LSP) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s := l.session(ctx)
	for _, root := range s.pending {
		s.addRoot(root)
	}
	s.mu.Lock()
	s.libsPending -= len(s.pending)
	s.mu.Unlock()
	s.pending = nil
	return nil
}

// Shutdown stops background work; the connection's end releases the rest.
func (l *LSP) Shutdown(ctx context.Context) error {
	l.session(ctx).stop()
	return nil
}

// DidOpen records the document's text, and puts its folder first in the
// first index and it first in the reference pass.
func (l *LSP) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	item := params.TextDocument
	documents(server.ConnOf(ctx)).Open(document.New(string(item.URI), string(item.LanguageID), item.Version, []byte(item.Text)))
	s := l.session(ctx)
	// What the editor shows is indexed and resolved first.
	if ws := s.engine.Owner(uriPath(item.URI)); ws != nil && ws.Lib == nil {
		l.pool.Prioritize(ws.Root, []string{uriPath(item.URI)})
	}
	s.diagnoseAfter(string(item.URI), openedDiagnosticDelay)
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
	if _, err := documents(conn).Change(string(params.TextDocument.URI), params.TextDocument.Version, changes, encoding(conn)); err != nil {
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
	return documents(server.ConnOf(ctx)).Close(string(params.TextDocument.URI))
}

// DidSave reindexes the saved file from disk and checks it again with its
// language's toolchain.
func (l *LSP) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	s := l.session(ctx)
	s.reindex(uriPath(params.TextDocument.URI), false)
	s.diagnose(string(params.TextDocument.URI))
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

// initializationOptions are kast's settings an editor may send with
// initialize; any other field is another tool's and is ignored.
type initializationOptions struct {
	References struct {
		// IncludeLibraries: references and incoming calls list the uses
		// inside library sources too, after the workspace's.
		IncludeLibraries bool `json:"includeLibraries"`
	} `json:"references"`
}

// applyInitializationOptions takes kast's settings from initialize's
// initializationOptions; ones it cannot read are reported and left at
// their defaults, as an editor's settings for another server may be there.
func (s *session) applyInitializationOptions(raw []byte) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var opts initializationOptions
	if err := json.Unmarshal(raw, &opts); err != nil {
		s.logf(protocol.MessageTypeWarning, "initializationOptions ignored: %v", err)
		return
	}
	s.engine.IncludeLibraryReferences(opts.References.IncludeLibraries)
}
