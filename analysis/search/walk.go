package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/kast-dev/kast/storage/scan"
)

// Filter chooses the files a search walks, with ck's options. The zero
// value is the index's choice: .gitignore honoured, dotfiles included,
// storage/scan's default directory excludes.
type Filter struct {
	NoIgnore   bool     // .gitignore, .ignore and .git/info/exclude not honoured
	SkipHidden bool     // dotfiles and dot-directories left out
	Ckignore   bool     // .ckignore files honoured; ck's default patterns when the root has none
	Excludes   []string // directory names never entered; nil means storage/scan's
}

// CkDefaultExcludes are the directory names ck never enters unless told to.
var CkDefaultExcludes = []string{
	".cache", "__pycache__",
	".git", ".svn", ".hg",
	"target", "build", "dist", "node_modules", ".gradle", ".mvn", "bin", "obj",
	"venv", ".venv", "env", ".env", "virtualenv",
	".vscode", ".idea", ".eclipse",
	"tmp", "temp", ".tmp",
	".ck",
}

// CkFilter is ck's default file choice.
func CkFilter() Filter {
	return Filter{SkipHidden: true, Ckignore: true, Excludes: CkDefaultExcludes}
}

// DefaultCkignore is the .ckignore ck writes at a repository's root on first
// use: media, compiled objects, archives, databases and JSON/YAML config
// stay out of search. kast applies it when the root has no .ckignore rather
// than writing one into the user's tree.
const DefaultCkignore = `# .ckignore: files ck-style code search leaves out.
# gitignore syntax: globs, a trailing / for directories, ! to re-include.

# images
*.png
*.jpg
*.jpeg
*.gif
*.bmp
*.svg
*.ico
*.webp
*.tiff

# video
*.mp4
*.avi
*.mov
*.mkv
*.wmv
*.flv
*.webm

# audio
*.mp3
*.wav
*.flac
*.aac
*.ogg
*.m4a

# compiled objects and libraries
*.exe
*.dll
*.so
*.dylib
*.a
*.lib
*.obj
*.o

# archives
*.zip
*.tar
*.tar.gz
*.tgz
*.rar
*.7z
*.bz2
*.gz

# databases and columnar data
*.db
*.sqlite
*.sqlite3
*.parquet
*.arrow

# configuration formats
*.json
*.yaml
*.yml

# your own patterns below
`

// Listing is the files a search covers and the paths it passed over.
type Listing struct {
	Files   []string // absolute, in walk order
	Skipped []SkipError
}

// List walks the scope's paths (the whole root when none) with its filter.
// A file named in the scope is listed whatever the filter says, as grep
// does; symbolic links met while walking are not followed.
func (e *Engine) List(ctx context.Context, sc Scope) (Listing, error) {
	key := scopeKey(sc)
	if l, ok := e.fresh.listing(key); ok {
		l.Files, l.Skipped = slices.Clone(l.Files), slices.Clone(l.Skipped) // callers sort them
		return l, nil
	}
	var gen uint64
	if e.fresh != nil {
		gen = e.fresh.begin()
	}
	l, dirs, err := e.list(ctx, sc)
	if err == nil && e.fresh != nil && e.fresh.watch(dirs, gen) {
		e.fresh.keep(key, l, gen)
	}
	return l, err
}

// list walks; dirs are the folders it entered, and those of named files.
func (e *Engine) list(ctx context.Context, sc Scope) (Listing, []string, error) {
	var l Listing
	var named []string
	paths := sc.Paths
	if len(paths) == 0 {
		paths = []string{e.root}
	}
	w := &walker{ctx: ctx, e: e, f: sc.Filter, sc: sc, out: &l}
	if w.f.Excludes == nil {
		w.f.Excludes = scan.DefaultExcludes
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			l.Skipped = append(l.Skipped, SkipError{Path: p, Reason: statReason(err)})
			continue
		}
		if !fi.IsDir() {
			if reason := notRegular(fi.Mode()); reason != "" {
				l.Skipped = append(l.Skipped, SkipError{Path: p, Reason: reason})
			} else if rel := e.rel(p); e.inGlobs(sc, rel) {
				l.Files = append(l.Files, p)
			}
			named = append(named, filepath.Dir(p))
			continue
		}
		if err := w.walk(p, w.ancestors(p)); err != nil {
			return l, nil, err
		}
	}
	return l, append(w.dirs, named...), nil
}

func statReason(err error) string {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "a symbolic link loop"
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist (a dangling symbolic link?)"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

type walker struct {
	ctx  context.Context
	e    *Engine
	f    Filter
	sc   Scope
	out  *Listing
	dirs []string // entered, for watching
}

// ancestors loads the ignore files of the directories from the root down to
// dir's parent, and the root's git exclude file.
func (w *walker) ancestors(dir string) []*scan.IgnoreFile {
	var stack []*scan.IgnoreFile
	if !w.f.NoIgnore {
		if f, err := os.Open(filepath.Join(w.e.root, ".git", "info", "exclude")); err == nil {
			stack = append(stack, scan.ParseIgnore("", f))
			f.Close()
		}
	}
	rel := w.e.rel(dir)
	if rel == "." || strings.HasPrefix(rel, "../") {
		return stack
	}
	d := w.e.root
	stack = w.rules(d, "", stack)
	w.dirs = append(w.dirs, d) // their ignore files apply below
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		d = filepath.Join(d, parts[i])
		stack = w.rules(d, strings.Join(parts[:i+1], "/"), stack)
		w.dirs = append(w.dirs, d)
	}
	return stack
}

// rules adds the ignore files of directory abs (rel below the root).
func (w *walker) rules(abs, rel string, stack []*scan.IgnoreFile) []*scan.IgnoreFile {
	var names []string
	if !w.f.NoIgnore {
		names = append(names, ".gitignore", ".ignore")
	}
	if w.f.Ckignore {
		names = append(names, ".ckignore")
	}
	for _, n := range names {
		f, err := os.Open(filepath.Join(abs, n))
		if err != nil {
			if n == ".ckignore" && rel == "" {
				stack = append(stack[:len(stack):len(stack)], scan.ParseIgnore("", strings.NewReader(DefaultCkignore)))
			}
			continue
		}
		stack = append(stack[:len(stack):len(stack)], scan.ParseIgnore(rel, f))
		f.Close()
	}
	return stack
}

func (w *walker) walk(abs string, stack []*scan.IgnoreFile) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		w.out.Skipped = append(w.out.Skipped, SkipError{Path: abs, Reason: "unreadable directory: " + statReason(err)})
		return nil
	}
	w.dirs = append(w.dirs, abs)
	rel := w.e.rel(abs)
	base := rel
	if rel == "." || strings.HasPrefix(rel, "../") {
		base = ""
	}
	stack = w.rules(abs, base, stack)
	for _, ent := range entries {
		name := ent.Name()
		if w.f.SkipHidden && strings.HasPrefix(name, ".") {
			continue
		}
		child := filepath.Join(abs, name)
		childRel := name
		if base != "" {
			childRel = base + "/" + name
		}
		mode := ent.Type()
		switch {
		case mode&fs.ModeSymlink != 0:
			// Not followed (they may leave the workspace); a loop is said.
			if _, err := os.Stat(child); errors.Is(err, syscall.ELOOP) {
				w.out.Skipped = append(w.out.Skipped, SkipError{Path: child, Reason: "a symbolic link loop"})
			}
		case mode.IsDir():
			if slices.Contains(w.f.Excludes, name) || scan.Ignored(stack, childRel, true) {
				continue
			}
			if err := w.walk(child, stack); err != nil {
				return err
			}
		case mode.IsRegular():
			if !scan.Ignored(stack, childRel, false) && w.e.inGlobs(w.sc, childRel) {
				w.out.Files = append(w.out.Files, child)
			}
		default:
			if !scan.Ignored(stack, childRel, false) {
				w.out.Skipped = append(w.out.Skipped, SkipError{Path: child, Reason: notRegular(mode)})
			}
		}
	}
	return nil
}
