package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/document"
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
			ws, err := workspace.Open(q.root, workspace.Options{Version: kastVersion(), Logger: logger})
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

// location is one result line.
type location struct {
	Path       string  `json:"path"`
	Line       int     `json:"line"` // 1-based
	Col        int     `json:"col"`  // 1-based UTF-8 byte column
	Name       string  `json:"name,omitempty"`
	Kind       string  `json:"kind,omitempty"`
	Container  string  `json:"container,omitempty"`
	Role       string  `json:"role,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Uncertain  bool    `json:"uncertain,omitempty"`
	Via        string  `json:"via,omitempty"`
	Depth      int     `json:"depth,omitempty"`
}

func locAt(path string, s analysis.Span) location {
	return location{Path: path, Line: s.StartPoint.Line + 1, Col: s.StartPoint.Col + 1}
}

func printLocations(out io.Writer, root string, locs []location, asJSON bool) error {
	if asJSON {
		if locs == nil {
			locs = []location{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(locs); err != nil {
			return err
		}
	} else {
		for _, l := range locs {
			rel, err := filepath.Rel(root, l.Path)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = l.Path
			}
			var extra []string
			for _, s := range []string{l.Kind, l.Name, l.Role} {
				if s != "" {
					extra = append(extra, s)
				}
			}
			if l.Container != "" {
				extra = append(extra, "in "+l.Container)
			}
			if l.Via != "" {
				extra = append(extra, fmt.Sprintf("(%s, confidence %.2f)", l.Via, l.Confidence))
			}
			if l.Uncertain {
				extra = append(extra, "uncertain")
			}
			fmt.Fprintf(out, "%s%s:%d:%d: %s\n", strings.Repeat("  ", l.Depth), rel, l.Line, l.Col, strings.Join(extra, " "))
		}
	}
	if len(locs) == 0 {
		return errNoResults
	}
	return nil
}

// position parses FILE:LINE:COL into an absolute path and a byte offset.
func position(ws *workspace.Workspace, arg string) (string, int, error) {
	parts := strings.Split(arg, ":")
	if len(parts) < 3 {
		return "", 0, fmt.Errorf("%q: want FILE:LINE:COL", arg)
	}
	line, err1 := strconv.Atoi(parts[len(parts)-2])
	col, err2 := strconv.Atoi(parts[len(parts)-1])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return "", 0, fmt.Errorf("%q: LINE and COL must be positive numbers", arg)
	}
	path, err := filepath.Abs(strings.Join(parts[:len(parts)-2], ":"))
	if err != nil {
		return "", 0, err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", 0, err
	}
	offset, err := document.New("", "", 0, src).Offset(document.Position{Line: line - 1, Character: col - 1}, document.UTF8)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", arg, err)
	}
	return path, offset, nil
}

func queryDef(ws *workspace.Workspace, out io.Writer, arg string, q queryFlags) error {
	path, offset, err := position(ws, arg)
	if err != nil {
		return err
	}
	var locs []location
	for _, c := range ws.Resolver().DefinitionAt(path, offset) {
		l := locAt(c.Def.Path, c.NameSpan)
		l.Name, l.Kind, l.Confidence, l.Uncertain, l.Via = c.Name, c.Kind.String(), c.Confidence, c.Uncertain, string(c.Via)
		locs = append(locs, l)
	}
	return printLocations(out, ws.Root, locs, q.asJSON)
}

func queryRefs(ws *workspace.Workspace, out io.Writer, arg string, q queryFlags) error {
	path, offset, err := position(ws, arg)
	if err != nil {
		return err
	}
	r := ws.Resolver()
	cands := r.DefinitionAt(path, offset)
	if len(cands) == 0 || cands[0].Uncertain {
		return errNoResults // references of a guess would be guesses too
	}
	var locs []location
	for _, ref := range r.References(cands[0].Def) {
		l := locAt(ref.Ref.Path, ref.Span)
		l.Role, l.Confidence, l.Uncertain = roleName(ref.Role), ref.Confidence, ref.Uncertain
		locs = append(locs, l)
	}
	return printLocations(out, ws.Root, locs, q.asJSON)
}

func roleName(r analysis.Role) string {
	var names []string
	for _, x := range []struct {
		role analysis.Role
		name string
	}{{analysis.RoleCall, "call"}, {analysis.RoleRead, "read"}, {analysis.RoleWrite, "write"}, {analysis.RoleType, "type"},
		{analysis.RoleImport, "import"}, {analysis.RoleInheritance, "inheritance"}} {
		if r&x.role != 0 {
			names = append(names, x.name)
		}
	}
	return strings.Join(names, ",")
}

// symbolKind reports whether a definition is worth listing as a symbol:
// parameters, type parameters and lambdas are noise in a symbol search.
func symbolKind(k analysis.Kind) bool {
	return k != analysis.KindParameter && k != analysis.KindTypeParameter && k != analysis.KindLambda
}

func querySymbols(ws *workspace.Workspace, out io.Writer, pattern string, q queryFlags) error {
	hits, err := ws.Index.DefsFuzzy(pattern, q.limit*4)
	if err != nil {
		return err
	}
	var locs []location
	for _, h := range hits {
		if !symbolKind(h.Kind) || len(locs) == q.limit {
			continue
		}
		l := locAt(h.Path, h.NameSpan)
		l.Name, l.Kind, l.Container = h.Name, h.Kind.String(), h.Container
		locs = append(locs, l)
	}
	return printLocations(out, ws.Root, locs, q.asJSON)
}

func queryOutline(ws *workspace.Workspace, out io.Writer, file string, q queryFlags) error {
	path, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	facts, err := ws.Index.Facts(path)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var locs []location
	for _, i := range facts.Outline() {
		d := facts.Defs[i.Def]
		l := locAt(path, d.NameSpan)
		l.Name, l.Kind, l.Depth = d.Name, d.Kind.String(), i.Depth
		locs = append(locs, l)
	}
	return printLocations(out, ws.Root, locs, q.asJSON)
}
