package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/indexer"
	"github.com/kast-dev/kast/storage/scan"
)

func newIndexCmd(g *globalFlags) *cobra.Command {
	var asJSON, inMemory, references, noLibraries bool
	var rootFlag, scipFile string
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Index a workspace (default: the project around the current folder) and print what was indexed",
		Long: `Index the workspace around DIR (default: the current folder): the nearest folder
with .git, go.mod, package.json or another project marker, unless --root names it.
Scan it (honouring .gitignore and skipping vendor, build and dependency folders,
binary and oversized files), extract definitions and references from every changed file
in parallel, and store them in the workspace's index under $XDG_CACHE_HOME/kast.
A second run only re-reads files whose size or modification time changed.
With --references it then resolves every reference and stores where each
definition is used, as the language server does in the background, so that
reference queries read them at once.
With --scip FILE it also resolves every reference and writes the workspace as
a SCIP index to FILE, for a code host's precise navigation (see the README).

Then the libraries the workspace depends on (the Go standard library and the
modules of the build list, read from the module cache without network access)
are indexed, each version once into an index every workspace shares.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			defer startAutoPrune(logger)()
			start := "."
			if len(args) == 1 {
				start = args[0]
				if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
					return fmt.Errorf("%s is not a directory", start)
				}
			}
			root, err := workspaceRoot(rootFlag, start)
			if err != nil {
				return err
			}
			ws, err := workspace.Open(root, workspace.Options{InMemory: inMemory, Logger: logger})
			if err != nil {
				return err
			}
			defer ws.Close()
			if n := ws.Notice(); n != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "kast:", n)
			}
			startedInMemory := ws.Index.InMemory()
			bar := newBar(cmd.ErrOrStderr())
			totals, skipped, err := ws.Refresh(cmd.Context(), func(p indexer.Progress) {
				if bar != nil {
					bar.ChangeMax64(p.TotalBytes)
					_ = bar.Set64(p.DoneBytes)
				}
			})
			if bar != nil {
				_ = bar.Finish()
			}
			if err != nil {
				return err
			}
			// A disk that filled during the run left the index in memory:
			// nothing was saved, which is this command's job.
			if ws.Index.SpaceFallback() && !startedInMemory {
				return fmt.Errorf("%s; nothing was saved", ws.Notice())
			}
			if references || scipFile != "" {
				if err := resolveReferences(cmd, ws); err != nil {
					return err
				}
			}
			if scipFile != "" {
				if err := writeSCIP(cmd, ws, scipFile); err != nil {
					return err
				}
			}
			// Libraries are shared, on-disk indexes: an in-memory run leaves them be.
			var libs *librariesReport
			if !noLibraries && !inMemory && os.Getenv("KAST_LIBRARIES") != "off" {
				rep := indexLibraries(cmd.Context(), ws.Root, cmd.ErrOrStderr(), workspace.Options{Logger: logger})
				libs = &rep
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					report
					Libraries *librariesReport `json:"libraries,omitempty"`
				}{indexReport(ws.Root, totals, skipped), libs})
			}
			printIndexSummary(out, ws.Root, totals, skipped)
			if libs != nil {
				printLibraries(out, *libs)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&rootFlag, "root", "", "workspace root (default: the nearest folder around DIR with a project marker)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().BoolVar(&inMemory, "in-memory", false, "index in memory only, leaving the on-disk index alone")
	cmd.Flags().BoolVar(&references, "references", false, "also resolve and store every reference (see above)")
	cmd.Flags().StringVar(&scipFile, "scip", "", "also write the workspace as a SCIP index to this file")
	cmd.Flags().BoolVar(&noLibraries, "no-libraries", false, "leave out the libraries the workspace depends on (Go: the standard library, go.mod's modules in the module cache)")
	return cmd
}

// newBar returns a byte progress bar on w when w is a terminal, else nil:
// redirected output (CI logs, scripts) gets only the summary.
func newBar(w io.Writer) *progressbar.ProgressBar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("indexing"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

type report struct {
	Root      string         `json:"root"`
	Files     int            `json:"files"`
	Lines     int            `json:"lines"`
	Bytes     int64          `json:"bytes"`
	Defs      int            `json:"definitions"`
	Refs      int            `json:"references"`
	Extracted int            `json:"parsed"`
	Reused    int            `json:"reused"`
	Unchanged int            `json:"unchanged"`
	Removed   int            `json:"removed"`
	Skipped   map[string]int `json:"skipped"`
	Elapsed   float64        `json:"elapsedSeconds"`
	MBps      float64        `json:"mbPerSecond"`
}

func indexReport(root string, t indexer.Totals, s scan.Skipped) report {
	return report{
		Root: root, Files: t.Files, Lines: t.Lines, Bytes: t.Bytes, Defs: t.Defs, Refs: t.Refs,
		Extracted: t.Extracted, Reused: t.Reused, Unchanged: t.Unchanged + t.Touched, Removed: t.Removed,
		Skipped: map[string]int{
			"tooLarge": s.TooLarge, "binary": s.Binary + t.Skipped.Binary,
			"unreadable": s.Unreadable + t.Skipped.Unreadable, "malformed": t.Skipped.Malformed,
		},
		Elapsed: t.Elapsed.Seconds(),
		MBps:    mbPerSecond(t.ReadBytes, t.Elapsed),
	}
}

func mbPerSecond(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}

func printIndexSummary(w io.Writer, root string, t indexer.Totals, s scan.Skipped) {
	r := indexReport(root, t, s)
	fmt.Fprintf(w, "indexed %s\n", display(root))
	fmt.Fprintf(w, "  files       %d (%d parsed, %d reused, %d unchanged, %d removed)\n", r.Files, r.Extracted, r.Reused, r.Unchanged, r.Removed)
	fmt.Fprintf(w, "  lines       %d\n", r.Lines)
	fmt.Fprintf(w, "  bytes       %d\n", r.Bytes)
	fmt.Fprintf(w, "  definitions %d\n", r.Defs)
	fmt.Fprintf(w, "  references  %d\n", r.Refs)
	// Throughput only when files were read for their content: re-sniffing
	// skipped binaries is no measure of it.
	if t.ReadBytes > 0 && t.Extracted+t.Reused > 0 {
		fmt.Fprintf(w, "  elapsed     %s (%.1f MB/s)\n", humanDuration(t.Elapsed), r.MBps)
	} else {
		fmt.Fprintf(w, "  elapsed     %s\n", humanDuration(t.Elapsed))
	}
	if n := r.Skipped["tooLarge"] + r.Skipped["binary"] + r.Skipped["unreadable"] + r.Skipped["malformed"]; n > 0 {
		fmt.Fprintf(w, "  skipped     %d (too large %d, binary %d, unreadable %d, malformed %d)\n", n,
			r.Skipped["tooLarge"], r.Skipped["binary"], r.Skipped["unreadable"], r.Skipped["malformed"])
	}
}

// resolveReferences brings the stored uses up to date on every core, with a
// progress bar, and says how long it took on stderr.
func resolveReferences(cmd *cobra.Command, ws *workspace.Workspace) error {
	start := time.Now()
	bar := newBar(cmd.ErrOrStderr())
	n, err := ws.ResolveUses(cmd.Context(), runtime.GOMAXPROCS(0), func(done, total int) {
		if bar != nil {
			bar.ChangeMax(total)
			_ = bar.Set(done)
		}
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "kast: references resolved in %d files in %s\n", n, humanDuration(time.Since(start)))
	return nil
}
