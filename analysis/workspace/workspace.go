// Package workspace is the engine façade over one workspace root: its
// persistent index, kept up to date by scanning the tree and extracting
// changed files with the language packages.
package workspace

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/libraries"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
	"github.com/kast-dev/kast/storage/indexer"
	"github.com/kast-dev/kast/storage/scan"
)

// The index keeps beside a hint the span of the references that resolve
// answers from their hints alone: one bit for both (this fails to compile
// when they part).
var _ = [1]struct{}{}[storage.HintSpan^resolve.HintSpanned]

// grammarVersion names the grammars and extraction rules the index was built
// with; changing it rebuilds every index. Bump it when extraction changes.
const grammarVersion = "go-tree-sitter-20240827/extract-29"

// Options configures Open.
type Options struct {
	// Version names the code that builds the index; a different one rebuilds
	// it. Empty means the running binary's build version.
	Version string
	// InMemory keeps the index in RAM only.
	InMemory bool
	// IndexDir overrides the index directory.
	IndexDir string
	Logger   *slog.Logger
	// Library opens a read-only library version instead of a workspace
	// root: its files are the library's sources (Library.Include), and its
	// index lives in the shared library cache unless IndexDir says otherwise.
	Library *libraries.Library
}

// Workspace is an open workspace.
type Workspace struct {
	Root  string
	Index *storage.Index
	view  *view
	uses  usesTracker
	log   *slog.Logger
	dirs  atomic.Pointer[[]string] // the folders the last refresh's scan entered
	// Lib is set when this is a library's index (read-only, never renamed
	// into), nil for a workspace root.
	Lib *libraries.Library
	// modulePath is the Go module path go.mod at the root declares, or "".
	modulePath string
	// copyDir is this process's copy of a library index another process
	// holds (libcopy.go), removed at Close; "" when the index is its own.
	copyDir string
	// indexFirst names the folders a refresh indexes first (Prioritize).
	indexFirst indexer.Priority
	// opened keeps the facts of texts editors opened before the index held
	// them, for reopening and for the indexer (openedfacts.go).
	opened openedFacts
}

// Open opens (or creates) the index of the workspace at root. When another
// process holds the index, it is opened in memory and Notice says so; a
// complete library index is opened from a private copy instead (libcopy.go).
func Open(root string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	dir := opts.IndexDir
	if opts.Library != nil && dir == "" && !opts.InMemory {
		if dir, err = LibraryIndexDir(*opts.Library); err != nil {
			return nil, err
		}
	}
	// A complete library is only read: its index opens read-only, without
	// the memtable a writable one allocates (storage.Index.Seal).
	_, serr := os.Stat(filepath.Join(dir, completeMarker))
	sealed := opts.Library != nil && !opts.InMemory && serr == nil
	openAt := func(dir string) (*storage.Index, error) {
		return storage.Open(abs, storage.Options{
			Dir:            dir,
			Sealed:         sealed,
			InMemory:       opts.InMemory,
			GrammarVersion: grammarVersion,
			BinaryVersion:  cmp.Or(opts.Version, buildVersion()),
			Logger:         opts.Logger,
			FileLocal:      resolve.BodyBindings,
			RefHints:       resolve.GoRefHints,
		})
	}
	var ix *storage.Index
	var copyDir string
	if opts.Library != nil && opts.IndexDir == "" && !opts.InMemory {
		ix, copyDir, _ = openLibraryCopy(dir, openAt)
	}
	if ix == nil {
		ix, err = openAt(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the index of %s: %w", abs, err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	w := &Workspace{Root: abs, Index: ix, view: newView(ix, logger), log: logger, Lib: opts.Library, copyDir: copyDir}
	if w.Lib == nil {
		w.modulePath = libraries.ModulePath(abs)
	} else {
		w.view.shrink(w.Lib.Module == "std")
	}
	return w, nil
}

// LibraryIndexDir is where a library version's index lives: beside the
// workspaces' indexes, under libs/, one folder per version.
func LibraryIndexDir(lib libraries.Library) (string, error) {
	any, err := storage.DefaultDir(string(filepath.Separator))
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(any), "libs", lib.Key()), nil
}

// completeMarker is written into a library's index folder once it holds
// the whole library: library versions do not change, so a later process
// uses the index without scanning the library again.
const completeMarker = "kast-library-complete"

// LibraryComplete reports whether the library index was built whole before.
func (w *Workspace) LibraryComplete() bool {
	if w.Lib == nil || w.Index.InMemory() {
		return false
	}
	dir, err := LibraryIndexDir(*w.Lib)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, completeMarker))
	return err == nil
}

// markLibraryComplete records a whole library index (see completeMarker).
func (w *Workspace) markLibraryComplete() {
	if w.Lib == nil || w.Index.InMemory() {
		return
	}
	if dir, err := LibraryIndexDir(*w.Lib); err == nil {
		_ = os.WriteFile(filepath.Join(dir, completeMarker), []byte(w.Lib.String()+"\n"), 0o600)
	}
}

// buildVersion identifies the running binary's code for the index: the
// module version, or the VCS revision it was built from. Every entry point
// (CLI, language server, agent) opens the shared index under the same one.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" || (s.Key == "vcs.modified" && s.Value == "true") {
			v += "+" + s.Value
		}
	}
	return v
}

// Notice is a message for the user about how the index was opened (for
// example the in-memory fallback), or "".
func (w *Workspace) Notice() string { return w.Index.Notice() }

// Close closes the index.
func (w *Workspace) Close() error {
	err := w.Index.Close()
	if w.copyDir != "" {
		os.RemoveAll(w.copyDir)
	}
	return err
}

// Refresh scans the tree and brings the index up to date: new and changed
// files are extracted in parallel, deleted ones removed. progress may be nil.
func (w *Workspace) Refresh(ctx context.Context, progress func(indexer.Progress)) (indexer.Totals, scan.Skipped, error) {
	totals, skipped, err := w.refresh(ctx, progress)
	if w.moveToMemory(err) {
		return w.refresh(ctx, progress)
	}
	return totals, skipped, err
}

func (w *Workspace) refresh(ctx context.Context, progress func(indexer.Progress)) (indexer.Totals, scan.Skipped, error) {
	// The indexer reads every file it is given and skips binary ones itself.
	include := Supported
	if w.Lib != nil {
		include = w.Lib.Include
	}
	found, err := scan.Walk(ctx, w.Root, scan.Options{Include: include, CallerChecksBinary: true, KeepBuildOutputs: w.Lib != nil})
	if err != nil {
		return indexer.Totals{}, scan.Skipped{}, err
	}
	w.dirs.Store(&found.Dirs)
	// Queries during the run answer from what is indexed so far: let them see
	// newly written files now and then.
	var last time.Time
	totals, err := indexer.Run(ctx, w.Index, found.Files, w.extract, indexer.Options{
		Lang:    languageOf,
		Read:    confine.New([]string{w.Root}).ReadFile,
		Release: extract.Release,
		First:   &w.indexFirst,
		Progress: func(p indexer.Progress) {
			if time.Since(last) > time.Second {
				last = time.Now()
				w.view.invalidate()
				w.ReleaseMappedPages() // what the bulk load wrote
			}
			if progress != nil {
				progress(p)
			}
		},
	})
	w.view.invalidate()
	w.ReleaseMappedPages()
	if err == nil {
		w.Index.RecordLanguages(countLanguages(found.Files))
	}
	if err == nil && ctx.Err() == nil {
		w.markLibraryComplete()
	}
	if w.Lib != nil && err == nil && ctx.Err() == nil {
		// Its writes are done: let go of the memtable (storage.Index.Seal).
		if serr := w.Index.Seal(); serr != nil {
			w.log.Warn("sealing a library's index", "library", w.Lib.String(), "err", serr)
		}
	}
	return totals, found.Skipped, err
}

// ReleaseMappedPages gives back the index's mapped value-log pages
// (storage.Index.ReleaseMappedPages), reading the log without readahead
// once the workspace has answered a query: a server's. A pass alone, as in
// `kast index --references`, keeps readahead (at three million lines its
// peak RSS was 473–483 MB with it, 404–410 without). Readahead while no
// query came for 10 s was tried: after the standard library's cold start
// queries, the pass was no faster and the peak RSS rose from 434–457 MB to
// 466–474.
func (w *Workspace) ReleaseMappedPages() { w.Index.ReleaseMappedPages(w.queried()) }

// queried reports whether the workspace has answered a query.
func (w *Workspace) queried() bool { return w.view != nil && w.view.queried.Load() != 0 }

// extract is the indexer's extractor: the facts of a file an editor opened
// first are not extracted again.
func (w *Workspace) extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	if f := w.opened.take(path, src); f != nil {
		return f, nil
	}
	return lang.Extract(ctx, path, src)
}

// countLanguages counts files per language, for the index's descriptor.
func countLanguages(files []scan.File) map[string]int {
	counts := map[string]int{}
	for _, f := range files {
		if l := languageOf(f.Path); l != "" {
			counts[l]++
		}
	}
	return counts
}

// Dirs lists the folders the last refresh scanned (ignored and excluded ones
// left out): what a watcher of the workspace watches. nil before the first.
func (w *Workspace) Dirs() []string {
	if d := w.dirs.Load(); d != nil {
		return *d
	}
	return nil
}

// Reindex extracts one file's new content and replaces its entry in the
// index: the work behind a save or a change on disk.
func (w *Workspace) Reindex(ctx context.Context, path string, src []byte, mtime time.Time) error {
	facts, err := lang.Extract(ctx, path, src)
	if err != nil {
		return err
	}
	defer w.view.forget(path)
	err = w.Index.PutFile(path, mtime, facts)
	if w.moveToMemory(err) {
		if _, _, err := w.refresh(ctx, nil); err != nil {
			return err
		}
		return w.Index.PutFile(path, mtime, facts) // the text given, which may not be saved
	}
	return err
}

// Remove drops a deleted file from the index.
func (w *Workspace) Remove(path string) error {
	defer w.view.forget(path)
	err := w.Index.RemoveFile(path)
	if w.moveToMemory(err) {
		_, _, err = w.refresh(context.Background(), nil) // the tree no longer has it
	}
	return err
}

// Resolver returns a resolver over the index.
func (w *Workspace) Resolver() *resolve.Resolver { return resolve.New(w.view) }

// Supported reports whether kast has a language for path.
func Supported(path string) bool {
	_, ok := lang.ForPath(path)
	return ok
}

func languageOf(path string) string {
	if l, ok := lang.ForPath(path); ok {
		return l.ID
	}
	return ""
}
