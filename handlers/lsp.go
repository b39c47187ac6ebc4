// Package handlers connects the protocols to the engines: thin handlers that
// validate input, take the request's snapshot and delegate. No analysis logic
// lives here.
package handlers

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/server"
)

// LSP answers the standard Language Server Protocol methods. Methods it does
// not override answer -32601 through the embedded UnimplementedServer.
type LSP struct {
	protocol.UnimplementedServer
}

// NewLSP returns the standard LSP handler.
func NewLSP() *LSP { return &LSP{} }

// Initialize advertises what kast serves; the transport adds the position
// encoding and each protocol family's experimental capabilities.
func (*LSP) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	change := protocol.TextDocumentSyncKindIncremental
	openClose, save := true, protocol.SaveOptions{IncludeText: ptr(false)}
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &openClose, Change: &change, Save: &save},
		},
	}, nil
}

// Shutdown has nothing to release yet; the transport records the state.
func (*LSP) Shutdown(context.Context) error { return nil }

// DidOpen records the document's text.
func (*LSP) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	item := params.TextDocument
	server.ConnOf(ctx).Documents().Open(document.New(string(item.URI), string(item.LanguageID), item.Version, []byte(item.Text)))
	return nil
}

// DidChange applies incremental or whole-document changes in order.
func (*LSP) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
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
	_, err := conn.Documents().Change(string(params.TextDocument.URI), params.TextDocument.Version, changes, conn.Encoding())
	return err
}

// DidClose forgets the document.
func (*LSP) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	return server.ConnOf(ctx).Documents().Close(string(params.TextDocument.URI))
}

// DidSave needs nothing until the index watches saved files.
func (*LSP) DidSave(context.Context, *protocol.DidSaveTextDocumentParams) error { return nil }

func ptr[T any](v T) *T { return &v }
