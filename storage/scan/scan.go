// Package scan lists the source files of a workspace: it honours .gitignore
// files at every level and .git/info/exclude, skips dependency and build
// folders, and leaves out files that are too large or binary, counting why.
package scan

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultExcludes are directory names never entered, at any depth.
var DefaultExcludes = []string{
	".git", ".hg", ".svn", ".jj",
	"node_modules", "bower_components", "vendor",
	".gradle", ".idea", ".vscode", ".vs",
	"__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
	".next", ".nuxt", ".svelte-kit", ".terraform", ".bundle", ".cache",
}

// buildOutputs are directory names that hold a build tool's output when one
// of the tool's build files sits beside them. Elsewhere they may be source
// (Go's go/build package), so they are skipped only next to such a file.
var buildOutputs = map[string][]string{
	"build":  {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "package.json", "setup.py", "pyproject.toml", "CMakeLists.txt"},
	"target": {"pom.xml", "Cargo.toml", "build.sbt"},
	"out":    {"build.gradle", "build.gradle.kts", "package.json", "tsconfig.json"},
	"dist":   {"package.json", "setup.py", "pyproject.toml"},
}

// isBuildOutput reports whether dir, a child of a directory holding
// siblings, is a build tool's output directory.
func isBuildOutput(dir string, siblings []fs.DirEntry) bool {
	markers, ok := buildOutputs[dir]
	if !ok {
		return false
	}
	for _, e := range siblings {
		if !e.IsDir() && slices.Contains(markers, e.Name()) {
			return true
		}
	}
	return false
}

// DefaultMaxFileSize is the size above which a file is skipped: files that
// large are generated or data, and parsing them would dominate indexing.
const DefaultMaxFileSize = 2 << 20

// sniffLen is how much of a file is checked for NUL bytes.
const sniffLen = 8 << 10

// Options tunes Walk. The zero value applies the defaults.
type Options struct {
	MaxFileSize int64    // 0 means DefaultMaxFileSize
	Excludes    []string // directory names to skip; nil means DefaultExcludes
	// KeepBuildOutputs enters build/, dist/ and the like beside a build
	// file: in an installed library they are what the package ships.
	KeepBuildOutputs bool
	// Include, when set, selects files by path (e.g. known source extensions)
	// before they are opened; files it rejects are not counted as skipped.
	Include func(path string) bool
	// Unchanged, when set, reports files the caller already holds with this
	// size and modification time: they were text when it read them, so they
	// are listed without being opened again for the binary check.
	Unchanged func(path string, size int64, mtime time.Time) bool
	// CallerChecksBinary, when set, lists files without opening them: the
	// caller reads every listed file anyway and applies IsBinary to it.
	// Opening each file once more before any work can start held up the
	// start of a cold index by about half a second.
	CallerChecksBinary bool
}

// File is one source file found by Walk.
type File struct {
	Path    string // root joined with the file's relative path
	Size    int64
	ModTime time.Time
}

// Skipped counts files left out, by reason.
type Skipped struct {
	TooLarge   int
	Binary     int
	Unreadable int // includes unreadable directories
}

// Result is the outcome of Walk, with Files in walk order (depth first,
// directory entries sorted by name).
type Result struct {
	Files   []File
	Skipped Skipped
	// Dirs are the directories entered, the root first: what a watcher of
	// the tree watches.
	Dirs []string
}

// Walk lists the files below root.
func Walk(ctx context.Context, root string, opts Options) (Result, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Excludes == nil {
		opts.Excludes = DefaultExcludes
	}
	if info, err := os.Stat(root); err != nil {
		return Result{}, err
	} else if !info.IsDir() {
		return Result{}, &fs.PathError{Op: "scan", Path: root, Err: errors.New("not a directory")}
	}
	w := &walker{ctx: ctx, root: root, opts: opts}
	var stack []*IgnoreFile
	if f, err := os.Open(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		stack = append(stack, ParseIgnore("", f))
		f.Close()
	}
	if err := w.dir("", stack); err != nil {
		return w.result, err
	}
	return w.result, w.sniffAll()
}

type walker struct {
	ctx    context.Context
	root   string
	opts   Options
	result Result
	// unsniffed lists the indexes in result.Files still to be checked for
	// binary content.
	unsniffed []int
}

// sniffAll checks the listed files for binary content in parallel, then
// drops the binary and unreadable ones, keeping the walk order. Opening and
// reading thousands of files one after the other was most of a cold scan,
// during which nothing else of an indexing run can start.
func (w *walker) sniffAll() error {
	if len(w.unsniffed) == 0 {
		return nil
	}
	const (
		text = iota
		binary
		unreadable
	)
	verdict := make([]uint8, len(w.unsniffed))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(w.unsniffed)) {
		wg.Go(func() {
			buf := make([]byte, sniffLen)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(w.unsniffed) || w.ctx.Err() != nil {
					return
				}
				switch bin, err := isBinaryFile(w.result.Files[w.unsniffed[i]].Path, buf); {
				case err != nil:
					verdict[i] = unreadable
				case bin:
					verdict[i] = binary
				}
			}
		})
	}
	wg.Wait()
	if err := w.ctx.Err(); err != nil {
		return err
	}
	files := w.result.Files[:0]
	for i, f := range w.result.Files {
		// unsniffed is ascending, so the verdict of file i, if any, is next.
		if len(w.unsniffed) > 0 && w.unsniffed[0] == i {
			w.unsniffed = w.unsniffed[1:]
			v := verdict[0]
			verdict = verdict[1:]
			switch v {
			case binary:
				w.result.Skipped.Binary++
				continue
			case unreadable:
				w.result.Skipped.Unreadable++
				continue
			}
		}
		files = append(files, f)
	}
	w.result.Files = files
	return nil
}

// dir walks the directory rel (slash-separated, "" for the root) with the
// ignore files of its ancestors.
func (w *walker) dir(rel string, stack []*IgnoreFile) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		w.result.Skipped.Unreadable++
		return nil
	}
	w.result.Dirs = append(w.result.Dirs, abs)
	if f, err := os.Open(filepath.Join(abs, ".gitignore")); err == nil {
		stack = append(stack[:len(stack):len(stack)], ParseIgnore(rel, f))
		f.Close()
	}
	for _, e := range entries {
		childRel := e.Name()
		if rel != "" {
			childRel = rel + "/" + e.Name()
		}
		switch {
		case e.IsDir():
			if slices.Contains(w.opts.Excludes, e.Name()) || !w.opts.KeepBuildOutputs && isBuildOutput(e.Name(), entries) || Ignored(stack, childRel, true) {
				continue
			}
			if err := w.dir(childRel, stack); err != nil {
				return err
			}
		case e.Type().IsRegular(): // symlinks are not followed: they may leave the workspace
			if !Ignored(stack, childRel, false) {
				w.file(filepath.Join(abs, e.Name()), e)
			}
		}
	}
	return nil
}

func (w *walker) file(path string, e fs.DirEntry) {
	if w.opts.Include != nil && !w.opts.Include(path) {
		return
	}
	info, err := e.Info()
	if err != nil {
		w.result.Skipped.Unreadable++
		return
	}
	if info.Size() > w.opts.MaxFileSize {
		w.result.Skipped.TooLarge++
		return
	}
	file := File{Path: path, Size: info.Size(), ModTime: info.ModTime()}
	if w.opts.CallerChecksBinary || w.opts.Unchanged != nil && w.opts.Unchanged(path, file.Size, file.ModTime) {
		w.result.Files = append(w.result.Files, file)
		return
	}
	w.unsniffed = append(w.unsniffed, len(w.result.Files))
	w.result.Files = append(w.result.Files, file)
}

// isBinaryFile reads the start of path into buf and checks it for NUL bytes.
func isBinaryFile(path string, buf []byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return IsBinary(buf[:n]), nil
}

// IsBinary reports whether src looks binary: a NUL byte in its first 8 KB.
func IsBinary(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), sniffLen)], 0) >= 0
}
