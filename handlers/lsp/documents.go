package lsp

import (
	"context"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// openDocuments is a connection's open documents, kept as its server state
// so the dispatcher snapshots them in wire order (server.ConnState).
type openDocuments struct{ *document.Store }

func newOpenDocuments() server.ConnState { return openDocuments{document.NewStore()} }

// Snapshot implements server.ConnState.
func (d openDocuments) Snapshot() any { return d.Store.Snapshot() }

// documents returns the open documents of conn.
func documents(conn *server.Conn) *document.Store {
	return conn.State().(openDocuments).Store
}

// snapshotOf returns the open documents as they were when ctx's request
// arrived.
func snapshotOf(ctx context.Context) *document.Snapshot {
	s, _ := server.SnapshotOf(ctx).(*document.Snapshot)
	return s
}

// encoding is the connection's negotiated position encoding.
func encoding(conn *server.Conn) document.Encoding { return document.Encoding(conn.Encoding()) }

// openTexts is conn's open documents' current texts by path, which the
// connection lends the host's other users (the agent's code tools) so they
// see the editor's unsaved buffers too.
func openTexts(conn *server.Conn) host.OpenTexts {
	return func() map[string][]byte {
		d, ok := conn.State().(openDocuments)
		if !ok {
			return nil
		}
		snap := d.Store.Snapshot()
		out := map[string][]byte{}
		for _, u := range snap.URIs() {
			if path := uriPath(uri.URI(u)); path != "" {
				doc, _ := snap.Document(u)
				out[path] = doc.Text
			}
		}
		return out
	}
}
