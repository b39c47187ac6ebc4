package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/analysis/search/ck"
)

func newMCPCmd(g *globalFlags) *cobra.Command {
	var roots []string
	var embed embedFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve ck-compatible code search tools over MCP on stdio",
		Long: `Serve the ck tools (semantic_search, lexical_search, regex_search, hybrid_search,
index_status, reindex, health_check) over the Model Context Protocol on stdin/stdout.
Tool paths must lie under a --root (default: the current directory, plus the
colon-separated KAST_MCP_ALLOWED_ROOTS or CK_MCP_ALLOWED_ROOTS).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			if len(roots) == 0 {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				roots = []string{wd}
			}
			for _, env := range []string{"KAST_MCP_ALLOWED_ROOTS", "CK_MCP_ALLOWED_ROOTS"} {
				for r := range strings.SplitSeq(os.Getenv(env), ":") {
					if r != "" {
						roots = append(roots, r)
					}
				}
			}
			h, err := newHost(cmd.Context(), logger, &embed)
			if err != nil {
				return err
			}
			defer h.Close()
			svc, err := newCKService(roots, h.Search)
			if err != nil {
				return err
			}
			return newMCPServer(svc).Run(cmd.Context(), &mcp.StdioTransport{})
		},
	}
	cmd.Flags().StringSliceVar(&roots, "root", nil, "workspace root the tools may search (repeatable)")
	embed.register(cmd)
	return cmd
}

func newCKService(roots []string, engine func(string) (*search.Engine, error)) (*ck.Service, error) {
	svc := &ck.Service{Engine: engine, Version: kastVersion()}
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

// newMCPServer registers the ck tools. Tool failures that are the caller's
// (bad arguments, cursor, path) are JSON-RPC errors, as in ck.
func newMCPServer(svc *ck.Service) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: ck.ServerName, Title: "kast code search (ck-compatible)", Version: kastVersion()},
		&mcp.ServerOptions{Instructions: "Code search over the workspace: regex_search for exact patterns, lexical_search for keywords, semantic_search and hybrid_search for descriptions. Results page with next_cursor; indexing happens on first use and is reported apart from search time."})
	for _, t := range ck.Tools() {
		name := t.Name
		srv.AddTool(&mcp.Tool{Name: name, Description: t.Description, InputSchema: t.InputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var progress ck.Progress
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
					e := ck.ErrorOf(err)
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
