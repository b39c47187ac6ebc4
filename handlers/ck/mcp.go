package ck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/search"
)

// NewMCPService returns the service of `kast mcp`: tool paths must lie
// under one of roots, each an existing directory.
func NewMCPService(h *host.Host, roots []string) (*Service, error) {
	svc := &Service{Engine: h.Search, Version: h.Version}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("root %s is not a directory", r)
		}
		svc.Roots = append(svc.Roots, abs)
	}
	return svc, nil
}

// NewMCPServer registers the ck tools on an MCP server (the official Go SDK).
// Tool failures that are the caller's (bad arguments, cursor, path) are
// JSON-RPC errors, as in ck.
func NewMCPServer(svc *Service) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "kast code search (ck-compatible)", Version: svc.Version},
		&mcp.ServerOptions{Instructions: "Code search over the workspace: regex_search for exact patterns, lexical_search for keywords, semantic_search and hybrid_search for descriptions. Results page with next_cursor; indexing happens on first use and is reported apart from search time."})
	for _, t := range Tools() {
		name := t.Name
		srv.AddTool(&mcp.Tool{Name: name, Description: t.Description, InputSchema: t.InputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var progress Progress
				if token := req.Params.GetProgressToken(); token != nil {
					progress = func(p search.Progress) {
						if p.Stage == "scan" {
							return
						}
						_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
							Message: p.Stage, Progress: float64(p.Done), Total: float64(p.Total)})
					}
				}
				res, err := svc.Call(ctx, name, req.Params.Arguments, progress)
				if err != nil {
					e := ErrorOf(err)
					return nil, &jsonrpc.Error{Code: int64(e.Code), Message: e.Message}
				}
				structured, _ := json.Marshal(res.JSON)
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: res.Text}, &mcp.TextContent{Text: string(structured)}},
					StructuredContent: json.RawMessage(structured),
				}, nil
			})
	}
	return srv
}
