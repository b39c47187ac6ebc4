// Package project finds the workspace root a command works on: the nearest
// folder, from where the user stands or from the file they name, that holds
// a project marker. Every CLI command that takes a workspace asks it, so they
// all agree on the root (and so share one index).
package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Markers are the files and folders whose presence makes a folder a project
// root, in the order they are reported when a folder holds several.
var Markers = []string{
	".git", "go.work", "go.mod", "settings.gradle.kts", "settings.gradle", "pom.xml",
	"package.json", "pyproject.toml", "Cargo.toml", "Gemfile",
}

// NoProjectError says that start lies in no project and is too broad a
// folder (the home folder, the filesystem root or a temp root) to be
// indexed as one.
type NoProjectError struct {
	Start string // the absolute folder the search started from
	Why   string // "the home folder", "the filesystem root", ...
}

func (e *NoProjectError) Error() string {
	return fmt.Sprintf("%s is not inside a project (no %s in it or above) and is %s, too broad to index; "+
		"run kast inside a project or pass --root DIR", e.Start, strings.Join(Markers, ", "), e.Why)
}

// FindRoot returns the nearest folder at or above start (a file's own folder
// when start is a file) that holds one of Markers, and that marker. Markers
// in the home folder, the filesystem root and temp roots are ignored: a
// stray ~/package.json must not make the whole home folder one project.
//
// Outside any project, start's folder itself is the root, with marker "",
// unless it is one of those broad folders (or an ancestor of the home
// folder): then err is a *NoProjectError telling the user to pass --root.
func FindRoot(start string) (root, marker string, err error) {
	return Find(start, "")
}

// Find is FindRoot for a command run in the folder cwd about start (a file
// or folder the user named, or cwd itself). Outside any project the root is
// cwd when start lies inside it, so that naming a file in a subfolder does
// not make the subfolder a workspace of its own; else start's folder. A root
// that is too broad is refused as FindRoot says, but one broad cwd falls
// back to start's folder when that is narrower.
func Find(start, cwd string) (root, marker string, err error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", "", err
	}
	if !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if broad(d) == "" {
			for _, m := range Markers {
				if _, err := os.Stat(filepath.Join(d, m)); err == nil {
					return d, m, nil
				}
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if cwd != "" {
		if cwd, err = filepath.Abs(cwd); err != nil {
			return "", "", err
		}
		if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && broad(cwd) == "" {
			return cwd, "", nil
		}
	}
	if why := broad(abs); why != "" {
		return "", "", &NoProjectError{Start: abs, Why: why}
	}
	return abs, "", nil
}

// broad says why dir is too broad to be a workspace, or "" when it is not.
func broad(dir string) string {
	dir = canonical(dir)
	if filepath.Dir(dir) == dir {
		return "the filesystem root"
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		home = canonical(home)
		if dir == home {
			return "the home folder"
		}
		if rel, err := filepath.Rel(dir, home); err == nil && !strings.HasPrefix(rel, "..") {
			return "a folder above the home folder"
		}
	}
	for _, t := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if dir == canonical(t) {
			return "a temp root"
		}
	}
	return ""
}

// canonical is an absolute, clean path with symlinks resolved where they
// can be (macOS's /tmp is a link to /private/tmp).
func canonical(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}
