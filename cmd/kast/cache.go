package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/storage"
)

func newCacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "List, prune and clear kast's index folders",
		Long: `kast keeps one index folder per workspace under $XDG_CACHE_HOME/kast (or
~/.cache/kast), and one per library version under its libs/ folder, shared by
every workspace; each has a kast-index.json saying which folder it indexes.
Indexes of workspaces that no longer exist are removed automatically once they
have been unused for 30 days, and the least recently used go when the cache
grows beyond KAST_CACHE_LIMIT (default 5GB; 0 turns the bound off).`,
	}
	cmd.AddCommand(newCacheListCmd(), newCachePruneCmd(), newCacheClearCmd())
	return cmd
}

// cacheEntryJSON is one index folder as `kast cache list --json` prints it.
type cacheEntryJSON struct {
	Dir         string         `json:"dir"`
	Root        string         `json:"root,omitempty"`
	RootMissing bool           `json:"rootMissing,omitempty"`
	Bytes       int64          `json:"bytes"`
	LastUsed    time.Time      `json:"lastUsed"`
	HeldBy      int            `json:"heldByPid,omitempty"`
	Library     bool           `json:"library,omitempty"`
	Languages   map[string]int `json:"languages,omitempty"`
}

func newCacheListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List index folders: workspace, size, last use, and whether a running kast holds it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cacheRoot, err := storage.CacheRoot()
			if err != nil {
				return err
			}
			entries, err := storage.ListCache(cacheRoot)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				list := make([]cacheEntryJSON, 0, len(entries))
				for _, e := range entries {
					j := cacheEntryJSON{Dir: e.Dir, Root: e.Root(), RootMissing: e.RootMissing(), Bytes: e.Size, LastUsed: e.LastUsed, HeldBy: e.HeldBy, Library: e.Library}
					if e.Descriptor != nil {
						j.Languages = e.Descriptor.Languages
					}
					list = append(list, j)
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			printCacheEntries(out, entries, time.Now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printCacheEntries(out io.Writer, entries []storage.CacheEntry, now time.Time) {
	var total int64
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE\tSIZE\tLAST USED\tIN USE\tLANGUAGES")
	for _, e := range entries {
		total += e.Size
		root := e.Root()
		switch {
		case root == "":
			root = "(unknown, written by an older kast) " + e.Dir
		case e.RootMissing():
			root += " (gone)"
		}
		if e.Library {
			root += " (library)"
		}
		held := "-"
		if e.HeldBy != 0 {
			held = "pid " + strconv.Itoa(e.HeldBy)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", root, humanBytes(e.Size), ago(now.Sub(e.LastUsed)), held, descriptorLanguages(e.Descriptor))
	}
	tw.Flush()
	fmt.Fprintf(out, "%d indexes, %s\n", len(entries), humanBytes(total))
}

func descriptorLanguages(d *storage.Descriptor) string {
	if d == nil || len(d.Languages) == 0 {
		return "-"
	}
	var parts []string
	for l, n := range d.Languages {
		parts = append(parts, fmt.Sprintf("%s %d", l, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func newCachePruneCmd() *cobra.Command {
	var olderThan, maxSize string
	var missingRoots, dryRun bool
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove index folders of deleted workspaces, unused ones, or the oldest beyond a size",
		Long: `Remove the index folders matching every rule given: --older-than (unused for
that long) and --missing-roots (the workspace folder no longer exists); then,
with --max-size, the least recently used until the cache fits. Without flags it
removes indexes of workspaces that no longer exist and were unused for 30 days.
An index a running kast holds is never removed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules := storage.PruneRules{MissingRoots: missingRoots, DryRun: dryRun}
			var err error
			if olderThan != "" {
				if rules.OlderThan, err = parseAge(olderThan); err != nil {
					return err
				}
			}
			if maxSize != "" {
				if rules.MaxBytes, err = parseBytes(maxSize); err != nil {
					return err
				}
			}
			if rules.OlderThan == 0 && !rules.MissingRoots && rules.MaxBytes == 0 {
				rules.OlderThan, rules.MissingRoots = storage.AutoPruneAge, true
			}
			cacheRoot, err := storage.CacheRoot()
			if err != nil {
				return err
			}
			removed, err := storage.Prune(cacheRoot, rules, time.Now())
			verb := "removed"
			if dryRun {
				verb = "would remove"
			}
			var freed int64
			for _, e := range removed {
				freed += e.Size
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s (%s)\n", verb, cmp.Or(e.Root(), e.Dir), humanBytes(e.Size))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %d indexes, %s\n", verb, len(removed), humanBytes(freed))
			return err
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "only indexes unused for this long (30d, 12h, 90m)")
	cmd.Flags().BoolVar(&missingRoots, "missing-roots", false, "only indexes whose workspace folder no longer exists")
	cmd.Flags().StringVar(&maxSize, "max-size", "", "then remove the least recently used until the cache fits (5GB, 500MB)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed, remove nothing")
	return cmd
}

func newCacheClearCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "clear [ROOT]",
		Short: "Remove the index of one workspace (or --all)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return errors.New("name one workspace folder, or pass --all")
			}
			cacheRoot, err := storage.CacheRoot()
			if err != nil {
				return err
			}
			entries, err := storage.ListCache(cacheRoot)
			if err != nil {
				return err
			}
			if !all {
				entries, err = entriesOf(entries, args[0])
				if err != nil {
					return err
				}
			}
			var errs []error
			for _, e := range entries {
				if err := storage.RemoveEntry(e); err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s (%s)\n", cmp.Or(e.Root(), e.Dir), humanBytes(e.Size))
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "remove every index not in use")
	return cmd
}

// entriesOf finds the index of the workspace at root, by its folder name
// (derived from the root) or by the root its descriptor names.
func entriesOf(entries []storage.CacheEntry, root string) ([]storage.CacheEntry, error) {
	dir, err := storage.DefaultDir(root)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(root)
	for _, e := range entries {
		if e.Dir == dir || e.Root() == abs {
			return []storage.CacheEntry{e}, nil
		}
	}
	return nil, fmt.Errorf("kast has no index of %s (see kast cache list)", root)
}

// startAutoPrune applies the cache's automatic rules (at most once a day) in
// the background of a command that opens an index. A short command waits for
// it before it returns; a server does not hold up its exit for it (a removal
// cut short is finished by the next prune).
func startAutoPrune(logger *slog.Logger) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		autoPruneCache(logger)
	}()
	return func() { <-done }
}

func autoPruneCache(logger *slog.Logger) {
	cacheRoot, err := storage.CacheRoot()
	if err != nil {
		return
	}
	limit := int64(storage.DefaultCacheLimit)
	if v := os.Getenv("KAST_CACHE_LIMIT"); v != "" {
		if limit, err = parseBytes(v); err != nil {
			logger.Warn("KAST_CACHE_LIMIT is not a size; using the default", "value", v, "default", humanBytes(storage.DefaultCacheLimit))
			limit = storage.DefaultCacheLimit
		}
	}
	removed, err := storage.AutoPrune(cacheRoot, limit, time.Now())
	for _, e := range removed {
		logger.Info("removed an old index", "workspace", cmp.Or(e.Root(), e.Dir), "size", humanBytes(e.Size))
	}
	if err != nil {
		logger.Warn("pruning the index cache", "err", err)
	}
}

// parseAge reads durations with a day unit too: 30d, 12h, 90m.
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not an age (30d, 12h, 90m)", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age (30d, 12h, 90m)", s)
	}
	return d, nil
}

// parseBytes reads sizes like 5GB, 500MB, 1.5G or a plain byte count.
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}} {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size (5GB, 500MB)", s)
	}
	return int64(n * mult), nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ago prints how long ago something was, coarsely, as a listing wants.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}
