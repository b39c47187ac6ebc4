package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/project"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/scan"
)

// workspaceRoot is the workspace a command works on: the --root flag when
// given (it must be a folder), else the nearest project around start (a
// file or folder the user named, or "." for where they stand). See
// project.FindRoot for what happens outside any project.
func workspaceRoot(flag, start string) (string, error) {
	if flag != "" {
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("--root %s is not a folder", flag)
		}
		return abs, nil
	}
	if start == "" {
		start = "."
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root, _, err := project.Find(start, wd)
	return root, err
}

// display prints a path relative to the working directory, as grep does for
// relative arguments ("../lib/x.go" from a sibling folder); human output
// uses it, JSON keeps absolute paths.
func display(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	r, err := filepath.Rel(wd, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// formatLocations prints locations as workspace.Format does, with paths
// relative to the working directory.
func formatLocations(locs []workspace.Location) string {
	shown := make([]workspace.Location, len(locs))
	for i, l := range locs {
		l.Path = display(l.Path)
		shown[i] = l
	}
	// Relative paths are left as they are by Format.
	return workspace.Format(".", shown)
}

// languageList names the languages kast indexes with their extensions.
func languageList() string {
	var parts []string
	for _, l := range lang.Languages {
		parts = append(parts, l.ID+" "+strings.Join(l.Extensions, " "))
	}
	return strings.Join(parts, ", ")
}

// notSource is the error for a file of no language kast knows.
func notSource(shown string) error {
	return fmt.Errorf("%s is not a source file kast indexes (languages: %s)", shown, languageList())
}

// indexedSource returns nil when path (shown as the user typed it) is a file
// the workspace's index holds, else an error saying plainly why not.
func indexedSource(ws *workspace.Workspace, path, shown string) error {
	l, ok := lang.ForPath(path)
	if !ok {
		return notSource(shown)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: no such file", shown)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a folder, not a source file", shown)
	}
	if rel, err := filepath.Rel(ws.Root, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the workspace %s (pass --root to choose another)", shown, display(ws.Root))
	}
	if _, held, err := ws.Index.File(path); err != nil {
		return err
	} else if !held {
		return fmt.Errorf("%s is a %s source file but kast does not index it: it is excluded (.gitignore, "+
			"or a vendor, build or dependency folder) or was skipped as binary or larger than %d MB", shown, l.ID, scan.DefaultMaxFileSize>>20)
	}
	return nil
}

// humanDuration prints sub-second durations in milliseconds ("0.4 ms",
// "12 ms"), longer ones in seconds to a tenth ("3.4 s"), minutes as Go does
// ("2m5s").
func humanDuration(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}
