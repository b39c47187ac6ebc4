package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/workspace"
)

// errNoResults makes `kast query` exit 1 when nothing was found, like grep,
// so scripts can branch on it.
var errNoResults = errors.New("no results")

type queryFlags struct {
	root      string
	asJSON    bool
	limit     int
	uncertain bool
}

func newQueryCmd(g *globalFlags, exit *int) *cobra.Command {
	var q queryFlags
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Ask the index about definitions, references, symbols and outlines (for scripts and debugging)",
		Long: `Query the workspace index. The index is brought up to date first (only changed
files are re-read). Positions are FILE:LINE:COL with a 1-based line and a 1-based
UTF-8 byte column, as compilers print them. The workspace is the nearest folder
around FILE (or the current folder) with .git, go.mod, package.json or another
project marker, unless --root names it. Paths are printed relative to the current
folder, as grep does; --json prints absolute paths. Exit status 1 means nothing
was found.`,
	}
	cmd.PersistentFlags().StringVar(&q.root, "root", "", "workspace root (default: the nearest folder with a project marker)")
	cmd.PersistentFlags().BoolVar(&q.asJSON, "json", false, "print JSON")
	// run opens the workspace around the file a subcommand names (FILE or
	// FILE:LINE:COL as kind says), or around the current folder.
	run := func(kind argKind, f func(ws *workspace.Workspace, out io.Writer, args []string) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			from := "."
			if kind != noFile {
				name := args[0]
				if kind == positionArg {
					name = file(name)
				}
				// Say at once, before any indexing, that kast cannot
				// answer for a file of no language it knows.
				if _, ok := lang.ForPath(name); !ok {
					return notSource(name)
				}
				from = existingFolder(name)
			}
			root, err := workspaceRoot(q.root, from)
			if err != nil {
				return err
			}
			ws, err := workspace.Open(root, workspace.Options{Logger: logger})
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
	defCmd := &cobra.Command{Use: "def FILE:LINE:COL", Short: "Where the name at a position is defined (as the language server answers)", Args: cobra.ExactArgs(1),
		RunE: run(positionArg, func(ws *workspace.Workspace, out io.Writer, args []string) error {
			return queryDef(ws, out, args[0], q)
		})}
	defCmd.Flags().BoolVar(&q.uncertain, "uncertain", false, "also print guesses below the confidence threshold, marked uncertain")
	cmd.AddCommand(
		defCmd,
		&cobra.Command{Use: "refs FILE:LINE:COL", Short: "References of the definition at or named at a position", Args: cobra.ExactArgs(1),
			RunE: run(positionArg, func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return queryRefs(ws, out, args[0], q)
			})},
		&cobra.Command{Use: "symbols PATTERN", Short: "Workspace symbols matching a fuzzy pattern, best first", Args: cobra.ExactArgs(1),
			RunE: run(noFile, func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return querySymbols(ws, out, args[0], q)
			})},
		&cobra.Command{Use: "outline FILE", Short: "The declarations of a file, nested", Args: cobra.ExactArgs(1),
			RunE: run(fileArg, func(ws *workspace.Workspace, out io.Writer, args []string) error {
				return queryOutline(ws, out, args[0], q)
			})},
	)
	cmd.PersistentFlags().IntVar(&q.limit, "limit", 50, "maximum number of symbols")
	return cmd
}

// argKind says what a query subcommand's argument is.
type argKind int

const (
	noFile      argKind = iota // a pattern
	fileArg                    // FILE
	positionArg                // FILE:LINE:COL
)

// existingFolder is the folder of the file name, or the nearest existing
// folder above it (a missing file is then reported by the subcommand).
func existingFolder(name string) string {
	d, err := filepath.Abs(name)
	if err != nil {
		return "."
	}
	for {
		if fi, err := os.Stat(d); err == nil {
			if fi.IsDir() {
				return d
			}
			return filepath.Dir(d)
		}
		if filepath.Dir(d) == d {
			return "."
		}
		d = filepath.Dir(d)
	}
}

func printLocations(out io.Writer, locs []workspace.Location, asJSON bool) error {
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
		io.WriteString(out, formatLocations(locs))
	}
	if len(locs) == 0 {
		return errNoResults
	}
	return nil
}

// file is the FILE of FILE:LINE:COL as typed.
func file(arg string) string {
	parts := strings.Split(arg, ":")
	return strings.Join(parts[:max(len(parts)-2, 1)], ":")
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
	if err := indexedSource(ws, path, file(arg)); err != nil {
		return err
	}
	// The language server's answer: its libraries (those indexed already)
	// and no guesses unless asked.
	session := workspace.NewSession()
	session.AddRoot(ws)
	for _, lib := range indexedLibraries(context.Background(), ws.Root) {
		defer lib.Close()
		session.AddLibrary(lib)
	}
	locs, err := session.Snapshot(nil).Definition(path, line, col, q.uncertain)
	if err != nil {
		return fmt.Errorf("%s: %w", arg, err)
	}
	return printLocations(out, locs, q.asJSON)
}

func queryRefs(ws *workspace.Workspace, out io.Writer, arg string, q queryFlags) error {
	path, line, col, err := position(arg)
	if err != nil {
		return err
	}
	if err := indexedSource(ws, path, file(arg)); err != nil {
		return err
	}
	locs, err := ws.References(path, line, col)
	if err != nil {
		return fmt.Errorf("%s: %w", arg, err)
	}
	return printLocations(out, locs, q.asJSON)
}

func querySymbols(ws *workspace.Workspace, out io.Writer, pattern string, q queryFlags) error {
	locs, err := ws.Symbols(pattern, q.limit)
	if err != nil {
		return err
	}
	return printLocations(out, locs, q.asJSON)
}

func queryOutline(ws *workspace.Workspace, out io.Writer, file string, q queryFlags) error {
	path, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if err := indexedSource(ws, path, file); err != nil {
		return err
	}
	locs, err := ws.Outline(path)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return printLocations(out, locs, q.asJSON)
}
