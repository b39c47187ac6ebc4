// Package ck is the ck code-search projection (specs/ck-mcp-api.md): the ck
// tools over the host's search engines, served over MCP by `kast mcp`
// (mcp.go) and on kast's own connections as `ck/<tool>` requests (methods.go),
// where paths are confined to the workspace roots the process has open (the
// editor's folders) and the result is the tool's JSON object, as MCP's
// structuredContent. The wire itself (tool schemas, arguments, cursors,
// results) is service.go and tools.go; the search is analysis/search.
package ck

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// Search serves the ck tools over a host.
type Search struct {
	svc *Service
}

// New returns the ck projection over h's open roots and search engines.
func New(h *host.Host) *Search {
	return &Search{svc: &Service{RootsFunc: h.Roots, Engine: h.Search, Version: h.Version}}
}

// call runs one tool; a caller's mistake is -32602, anything else -32603,
// and a request the client cancelled is -32800 whatever the tool made of
// its cancelled context.
func (c *Search) call(ctx context.Context, tool string, args json.RawMessage) (map[string]any, error) {
	res, err := c.svc.Call(ctx, tool, args, nil)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return nil, server.ErrCancelled
		}
		e := ErrorOf(err)
		code := server.CodeInvalidParams
		if e.Code != CodeInvalidParams {
			code = server.CodeInternalError
		}
		return nil, server.Error(jsonrpc2.Code(e.Code), code, e.Message, nil)
	}
	return res.JSON, nil
}
