package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/handlers/ck"
)

func newMCPCmd(g *globalFlags) *cobra.Command {
	var roots []string
	var embed embedFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve ck-compatible code search tools over MCP on stdio",
		Long: `Serve the ck tools (semantic_search, lexical_search, regex_search, hybrid_search,
index_status, reindex, health_check) over the Model Context Protocol on stdin/stdout.
Tool paths must lie under a --root (default: the nearest folder around the current one with .git, go.mod,
package.json or another project marker; plus the
colon-separated KAST_MCP_ALLOWED_ROOTS or CK_MCP_ALLOWED_ROOTS).
A root shares the search index ` + "`kast search`" + ` uses for it. Indexing starts at once; a call
waits for it at most KAST_MCP_INDEX_WAIT (default 30s, 0 = no limit), then
ranked searches answer with the build's progress as a tool error to retry, and
regex_search scans the files directly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			if len(roots) == 0 {
				// The folder `kast search` would search from here, so both
				// use one index.
				root, err := searchRoot("", ".")
				if err != nil {
					return err
				}
				roots = []string{root}
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
			svc, err := ck.NewMCPService(h, roots)
			if err != nil {
				return err
			}
			// A root's index is the one `kast search` uses for that folder:
			// its project's, or an indexed folder's around it.
			svc.Engine = func(root string) (*search.Engine, error) {
				indexRoot, err := searchRoot("", root)
				if err != nil {
					return nil, err
				}
				return h.Search(indexRoot)
			}
			if v := os.Getenv("KAST_MCP_INDEX_WAIT"); v != "" {
				if svc.IndexWait, err = time.ParseDuration(v); err != nil {
					return fmt.Errorf("KAST_MCP_INDEX_WAIT: %w", err)
				}
			}
			svc.Warm()
			return ck.NewMCPServer(svc).Run(cmd.Context(), ck.StdioTransport(os.Stdin, os.Stdout, 0))
		},
	}
	cmd.Flags().StringSliceVar(&roots, "root", nil, "workspace root the tools may search (repeatable)")
	embed.register(cmd)
	return cmd
}
