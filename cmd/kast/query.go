package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/workspace"
)

// errNoResults makes `kast query` exit 1 when nothing was found, like grep,
// so scripts can branch on it.
var errNoResults = errors.New("no results")

type queryFlags struct {
	root   string
	asJSON bool
	limit  int
}

func newQueryCmd(g *globalFlags, exit *int) *cobra.Command {
	var q queryFlags
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Ask the index about definitions, references, symbols and outlines (for scripts and debugging)",
		Long: `Query the workspace index. The index is brought up to date first (only changed
files are re-read). Positions are FILE:LINE:COL with a 1-based line and a 1-based
UTF-8 byte column, as compilers print them. Exit status 1 means nothing was found.`,
	}
	cmd.PersistentFlags().StringVar(&q.root, "root", ".", "workspace root")
	cmd.PersistentFlags().BoolVar(&q.asJSON, "json", false, "print JSON")
	run := func(f func(ws *workspace.Workspace, out io.Writer, args []string) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			ws, err := workspace.Open(q.root, workspace.Options{Logger: logger})
			if err != nil {
				return err
			}
			defer ws.Close()
			if n := ws.Notice(); n != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "kast:", n)
			}
			if _, _, err := ws.Refresh(cmd.Context(), nil); err != nil {
				return err
			}
			err = f(ws, cmd.OutOrStdout(), args)
			if errors.Is(err, errNoResults) {
				*exit = 1
				return nil
			}
			return err
		}
	}
	cmd.AddCommand(
		&cobra.Command{Use: "def FILE:LINE:COL", Short: "Where the name at a position is defined", Args: cobra.ExactArgs(1),
			RunE: run(func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return queryDef(ws, out, args[0], q)
			})},
		&cobra.Command{Use: "refs FILE:LINE:COL", Short: "References of the definition at or named at a position", Args: cobra.ExactArgs(1),
			RunE: run(func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return queryRefs(ws, out, args[0], q)
			})},
		&cobra.Command{Use: "symbols PATTERN", Short: "Workspace symbols matching a fuzzy pattern, best first", Args: cobra.ExactArgs(1),
			RunE: run(func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return querySymbols(ws, out, args[0], q)
			})},
		&cobra.Command{Use: "outline FILE", Short: "The declarations of a file, nested", Args: cobra.ExactArgs(1),
			RunE: run(func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return queryOutline(ws, out, args[0], q)
			})},
	)
	cmd.PersistentFlags().IntVar(&q.limit, "limit", 50, "maximum number of symbols")
	return cmd
}

func printLocations(out io.Writer, root string, locs []workspace.Location, err error, asJSON bool) error {
	if err != nil {
		return err
	}
	if asJSON {
		if locs == nil {
			locs = []workspace.Location{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(locs); err != nil {
			return err
		}
	} else {
		io.WriteString(out, workspace.Format(root, locs))
	}
	if len(locs) == 0 {
		return errNoResults
	}
	return nil
}

// position parses FILE:LINE:COL.
func position(arg string) (path string, line, col int, err error) {
	parts := strings.Split(arg, ":")
	if len(parts) < 3 {
		return "", 0, 0, fmt.Errorf("%q: want FILE:LINE:COL", arg)
	}
	line, err1 := strconv.Atoi(parts[len(parts)-2])
	col, err2 := strconv.Atoi(parts[len(parts)-1])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return "", 0, 0, fmt.Errorf("%q: LINE and COL must be positive numbers", arg)
	}
	path, err = filepath.Abs(strings.Join(parts[:len(parts)-2], ":"))
	return path, line, col, err
}

func queryDef(ws *workspace.Workspace, out io.Writer, arg string, q queryFlags) error {
	path, line, col, err := position(arg)
	if err != nil {
		return err
	}
	locs, err := ws.Definition(path, line, col)
	return printLocations(out, ws.Root, locs, err, q.asJSON)
}

func queryRefs(ws *workspace.Workspace, out io.Writer, arg string, q queryFlags) error {
	path, line, col, err := position(arg)
	if err != nil {
		return err
	}
	locs, err := ws.References(path, line, col)
	return printLocations(out, ws.Root, locs, err, q.asJSON)
}

func querySymbols(ws *workspace.Workspace, out io.Writer, pattern string, q queryFlags) error {
	locs, err := ws.Symbols(pattern, q.limit)
	return printLocations(out, ws.Root, locs, err, q.asJSON)
}

func queryOutline(ws *workspace.Workspace, out io.Writer, file string, q queryFlags) error {
	path, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	locs, err := ws.Outline(path)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return printLocations(out, ws.Root, locs, nil, q.asJSON)
}
