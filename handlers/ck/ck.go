// Package ck is the ck code-search projection on kast's own connections: the
// ck tools as `ck/<tool>` requests, over the host's search engines. Paths are
// confined to the workspace roots the process has open (the editor's
// folders); the result is the tool's JSON object, as MCP's
// structuredContent. Its methods table is methods.go.
package ck

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/search/ck"
	"github.com/kast-dev/kast/server"
)

// Search serves the ck tools over a host.
type Search struct {
	svc *ck.Service
}

// New returns the ck projection over h's open roots and search engines.
func New(h *host.Host) *Search {
	return &Search{svc: &ck.Service{RootsFunc: h.Roots, Engine: h.Search, Version: h.Version}}
}

// call runs one tool; a caller's mistake is -32602, anything else -32603.
func (c *Search) call(ctx context.Context, tool string, args json.RawMessage) (map[string]any, error) {
	res, err := c.svc.Call(ctx, tool, args, nil)
	if err != nil {
		e := ck.ErrorOf(err)
		code := server.CodeInvalidParams
		if e.Code != ck.CodeInvalidParams {
			code = server.CodeInternalError
		}
		return nil, server.Error(jsonrpc2.Code(e.Code), code, e.Message, nil)
	}
	return res.JSON, nil
}
