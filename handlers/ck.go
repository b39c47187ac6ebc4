package handlers

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/analysis/search/ck"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/server"
)

// ckSearch serves the ck tools as `ck/<tool>` requests. Paths are confined to
// the workspace roots the process has open (the editor's folders); the
// result is the tool's JSON object, as MCP's structuredContent.
type ckSearch struct {
	pool    *workspaces
	mu      sync.Mutex // guards engines
	engines map[*workspace.Workspace]*search.Engine
	svc     *ck.Service
}

// processSearch holds the search engines of the process's open workspaces,
// shared by the ck tools and Kast's raw/workspace-search.
var processSearch = newCKSearch(processWorkspaces)

func newCKSearch(pool *workspaces) *ckSearch {
	c := &ckSearch{pool: pool, engines: map[*workspace.Workspace]*search.Engine{}}
	c.svc = &ck.Service{RootsFunc: c.roots, Engine: c.engine, Version: kastVersion()}
	return c
}

func registerCK(reg *server.Registry, c *ckSearch) {
	for _, t := range ck.Tools() {
		name := t.Name
		class := server.Concurrent
		if name == "reindex" {
			class = server.Exclusive
		}
		server.Handle(reg, "ck/"+name, class, func(ctx context.Context, args json.RawMessage) (map[string]any, error) {
			return c.call(ctx, name, args)
		})
	}
}

func (c *ckSearch) roots() []string {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	var roots []string
	for r := range c.pool.open {
		roots = append(roots, r)
	}
	slices.Sort(roots)
	return roots
}

func (c *ckSearch) call(ctx context.Context, tool string, args json.RawMessage) (map[string]any, error) {
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

// engine returns the search engine over the open workspace at root; a
// reopened index gets a new engine.
func (c *ckSearch) engine(root string) (*search.Engine, error) {
	ws, err := c.pool.acquire(root)
	if err != nil {
		return nil, err
	}
	defer c.pool.release(root)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.engines[ws]; e != nil {
		return e, nil
	}
	e, err := search.Open(ws.Root, ws.Index, search.Options{})
	if err != nil {
		return nil, err
	}
	c.engines[ws] = e
	return e, nil
}
