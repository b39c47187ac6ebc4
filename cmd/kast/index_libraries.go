package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/kast-dev/kast/analysis/libraries"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/indexer"
	"github.com/kast-dev/kast/storage/scan"
)

// libraryReport is what `kast index` says of one library.
type libraryReport struct {
	Library string  `json:"library"`
	Dir     string  `json:"dir"`
	Files   int     `json:"files"`
	Reused  bool    `json:"reused"` // an earlier run built it whole
	Elapsed float64 `json:"elapsedSeconds"`
	// Skipped counts the library's files left out, by reason (tooLarge,
	// binary, unreadable, malformed), as kast.status does.
	Skipped map[string]int `json:"skipped,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// librariesReport is the libraries part of `kast index`'s output.
type librariesReport struct {
	Indexed []libraryReport  `json:"indexed"`
	Skipped []libraries.Skip `json:"skipped"`
}

// indexLibraries indexes the libraries the workspace at root depends on,
// each into its shared index (built once; a later run reuses it), with a
// progress bar per library on errOut when it is a terminal.
func indexLibraries(ctx context.Context, root string, errOut io.Writer, opts workspace.Options) librariesReport {
	found := libraries.Discover(ctx, root, libraries.Options{})
	rep := librariesReport{Indexed: []libraryReport{}, Skipped: found.Skipped}
	if rep.Skipped == nil {
		rep.Skipped = []libraries.Skip{}
	}
	for _, lib := range found.Libraries {
		if ctx.Err() != nil {
			break
		}
		rep.Indexed = append(rep.Indexed, indexLibrary(ctx, lib, errOut, opts))
	}
	return rep
}

func indexLibrary(ctx context.Context, lib libraries.Library, errOut io.Writer, opts workspace.Options) libraryReport {
	start := time.Now()
	r := libraryReport{Library: lib.String(), Dir: lib.Dir}
	opts.Library = &lib
	ws, err := workspace.Open(lib.Dir, opts)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer ws.Close()
	if ws.LibraryComplete() {
		files, _ := ws.Index.Files()
		r.Files, r.Reused = len(files), true
	} else {
		bar := newBar(errOut)
		if bar != nil {
			bar.Describe("indexing " + lib.String())
		}
		totals, skipped, err := ws.Refresh(ctx, func(p indexer.Progress) {
			if bar != nil {
				bar.ChangeMax64(p.TotalBytes)
				_ = bar.Set64(p.DoneBytes)
			}
		})
		if bar != nil {
			_ = bar.Finish()
		}
		r.Files, r.Skipped = totals.Files, skippedFiles(totals, skipped)
		if err != nil {
			r.Error = err.Error()
		}
	}
	r.Elapsed = time.Since(start).Seconds()
	return r
}

// skippedFiles counts a library's files left out, by reason.
func skippedFiles(t indexer.Totals, s scan.Skipped) map[string]int {
	out := map[string]int{}
	for k, v := range map[string]int{"tooLarge": s.TooLarge, "binary": s.Binary + t.Skipped.Binary,
		"unreadable": s.Unreadable + t.Skipped.Unreadable, "malformed": t.Skipped.Malformed} {
		if v > 0 {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func printLibraries(w io.Writer, rep librariesReport) {
	built, reused := 0, 0
	for _, l := range rep.Indexed {
		if l.Reused {
			reused++
		} else if l.Error == "" {
			built++
		}
	}
	fmt.Fprintf(w, "libraries     %d indexed (%d built, %d reused), %d skipped\n", len(rep.Indexed), built, reused, len(rep.Skipped))
	for _, l := range rep.Indexed {
		state := fmt.Sprintf("%d files in %s", l.Files, humanDuration(time.Duration(l.Elapsed*float64(time.Second))))
		if l.Reused {
			state = fmt.Sprintf("%d files, built before", l.Files)
		}
		for _, k := range slices.Sorted(maps.Keys(l.Skipped)) {
			state += fmt.Sprintf(", %d skipped (%s)", l.Skipped[k], k)
		}
		if l.Error != "" {
			state = "failed: " + l.Error
		}
		fmt.Fprintf(w, "  %-40s %s\n", l.Library, state)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "  %-40s skipped (%s): %s\n", s.Library, s.Reason, s.Detail)
	}
}

// indexedLibraries opens the libraries of the workspace at root whose
// shared indexes an earlier run built whole (kast index, an editor's
// server); the others are left for those to build. The caller closes them.
func indexedLibraries(ctx context.Context, root string) []*workspace.Workspace {
	var out []*workspace.Workspace
	for _, lib := range libraries.Discover(ctx, root, libraries.Options{}).Libraries {
		ws, err := workspace.Open(lib.Dir, workspace.Options{Library: &lib})
		if err != nil {
			continue
		}
		if !ws.LibraryComplete() {
			ws.Close()
			continue
		}
		out = append(out, ws)
	}
	return out
}
