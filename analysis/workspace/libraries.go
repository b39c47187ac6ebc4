package workspace

import (
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis/libraries"
)

// Libraries in a session: read-only indexes (Options.Library) that answer
// queries beside the workspace roots but are never edited.

// AddLibrary adds a library's index (opened with Options.Library): its
// definitions answer queries, but it is no workspace root.
func (s *Session) AddLibrary(lib *Workspace) { s.AddRoot(lib) }

// Libraries lists the session's libraries.
func (s *Session) Libraries() []*Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Workspace
	for _, w := range s.roots {
		if w.Lib != nil {
			out = append(out, w)
		}
	}
	return out
}

// InLibrary names the library holding path, or "".
func (s *Snapshot) InLibrary(path string) string {
	if w := owner(s.roots, path); w != nil && w.Lib != nil {
		return w.Lib.String()
	}
	return ""
}

// LibraryDirs lists the folders of the snapshot's libraries: read-only
// sources a client may open and ask about.
func (s *Snapshot) LibraryDirs() []string {
	var out []string
	for _, w := range s.roots {
		if w.Lib != nil && !w.Lib.Linked() {
			out = append(out, w.Root)
		}
	}
	return out
}

// GoPackageDirs maps a Go import path to the folders that hold its package,
// by the module paths of the workspace roots' go.mod files and of the
// libraries; ok is false when none of them serves the import path.
func (s *Snapshot) GoPackageDirs(importPath string) (dirs []string, ok bool) {
	for _, w := range s.roots {
		var dir string
		switch {
		case w.Lib != nil:
			dir = w.Lib.PackageDir(importPath)
		case w.modulePath == "":
		case w.modulePath == "std":
			// The workspace is GOROOT/src, which serves "fmt" as the
			// standard library does (no second copy of it is indexed).
			dir = libraries.StdPackageDir(w.Root, importPath)
		case importPath == w.modulePath:
			dir = w.Root
		case strings.HasPrefix(importPath, w.modulePath+"/"):
			dir = filepath.Join(w.Root, filepath.FromSlash(importPath[len(w.modulePath)+1:]))
		}
		if dir != "" {
			dirs = append(dirs, dir)
		}
	}
	return dirs, len(dirs) > 0
}

// NodeModuleFiles maps an import of a node package (or a subpath of it) to
// the files its entry points name: the package's own declarations, else
// those of its @types package, else its JavaScript.
func (s *Snapshot) NodeModuleFiles(specifier string) ([]string, bool) {
	name, sub := libraries.NodePackageName(specifier)
	if name == "" {
		return nil, false
	}
	known := false
	var js []string
	for _, pkg := range []string{name, libraries.TypesPackage(name)} {
		for _, w := range s.roots {
			if w.Lib == nil || w.Lib.Lang != "node" || w.Lib.Module != pkg {
				continue
			}
			known = true
			files := w.Lib.NodeEntryFiles(sub)
			if w.Lib.HasDeclarations() && len(files) > 0 {
				return files, true
			}
			js = append(js, files...)
		}
	}
	return js, known
}
