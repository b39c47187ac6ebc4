package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/rename"
	"github.com/kast-dev/kast/server"
)

// renameError turns a refusal into an error the editor shows the user.
func renameError(err error) error {
	var refused *rename.Error
	if errors.As(err, &refused) {
		return server.Errorf(jsonrpc2.InvalidRequest, "RENAME_REFUSED", "%s", refused.Msg)
	}
	return err
}

// PrepareRename answers textDocument/prepareRename.
func (l *LSP) PrepareRename(ctx context.Context, p *protocol.PrepareRenameParams) (protocol.PrepareRenameResult, error) {
	r := l.request(ctx)
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if errors.Is(err, errSkip) {
		return nil, renameError(&rename.Error{Msg: "cannot rename: kast does not know this file"})
	} else if err != nil {
		return nil, err
	}
	span, name, err := rename.Prepare(r.snap, path, off)
	if err != nil {
		return nil, renameError(err)
	}
	return &protocol.PrepareRenamePlaceholder{Range: r.rng(path, span), Placeholder: name}, nil
}

// Rename answers textDocument/rename with the edits for every file.
func (l *LSP) Rename(ctx context.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	r, err := l.requestWhole(ctx)
	if err != nil {
		return nil, err
	}
	path, off, err := r.at(p.TextDocument.URI, p.Position)
	if errors.Is(err, errSkip) {
		return nil, renameError(&rename.Error{Msg: "cannot rename: kast does not know this file"})
	} else if err != nil {
		return nil, err
	}
	edits, err := rename.Rename(r.snap, path, off, p.NewName)
	if err != nil {
		return nil, renameError(err)
	}
	changes := map[uri.URI][]protocol.TextEdit{}
	for _, e := range edits {
		u := uri.File(e.Path)
		changes[u] = append(changes[u], protocol.TextEdit{Range: r.rng(e.Path, e.Span), NewText: e.NewText})
	}
	return &protocol.WorkspaceEdit{Changes: changes}, nil
}
