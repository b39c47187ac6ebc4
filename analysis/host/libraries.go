package host

import (
	"context"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis/libraries"
	"github.com/kast-dev/kast/analysis/workspace"
	"github.com/kast-dev/kast/storage/indexer"
	"github.com/kast-dev/kast/storage/scan"
)

// Libraries are opened once per process, by version, and stay open for
// its life: every workspace using a version shares its index. Each is
// indexed once, in the background after the workspace that first asks for
// it; an index built whole by an earlier process is used as it is.

// openLibrary is one library version open in the process.
type openLibrary struct {
	ws      *workspace.Workspace
	once    sync.Once
	done    chan struct{} // closed when indexed (or failed)
	status  LibraryStatus
	mu      sync.Mutex
	watches map[*func(indexer.Progress)]struct{}
}

// LibraryStatus is how a library's indexing went.
type LibraryStatus struct {
	Library  string         `json:"library"`
	Dir      string         `json:"dir"`
	Files    int            `json:"files"`
	Reused   bool           `json:"reused"` // built by an earlier run and used as it was
	Seconds  float64        `json:"seconds"`
	Skipped  map[string]int `json:"skipped,omitempty"`
	Error    string         `json:"error,omitempty"`
	Complete bool           `json:"complete"`
}

// libraryState is the host's libraries: by index key, and what discovery
// found per workspace root.
type libraryState struct {
	mu     sync.Mutex
	open   map[string]*openLibrary
	found  map[string]libraries.Found
	disco  libraries.Options
	closed bool
}

// SetLibraryOptions configures library discovery (tests point it at a fake
// GOROOT and module cache).
func (h *Host) SetLibraryOptions(opts libraries.Options) {
	h.libs.mu.Lock()
	defer h.libs.mu.Unlock()
	h.libs.disco = opts
}

// DiscoverLibraries lists the libraries of a workspace root, once per root
// for the process.
func (h *Host) DiscoverLibraries(ctx context.Context, root string) libraries.Found {
	h.libs.mu.Lock()
	if f, ok := h.libs.found[root]; ok {
		h.libs.mu.Unlock()
		return f
	}
	opts := h.libs.disco
	h.libs.mu.Unlock()
	f := libraries.Discover(ctx, root, opts)
	if ctx.Err() != nil {
		return f
	}
	h.libs.mu.Lock()
	defer h.libs.mu.Unlock()
	if h.libs.found == nil {
		h.libs.found = map[string]libraries.Found{}
	}
	h.libs.found[root] = f
	return f
}

// Library returns the open index of a library version, opening it once.
func (h *Host) Library(lib libraries.Library) (*workspace.Workspace, error) {
	ol, err := h.library(lib)
	if err != nil {
		return nil, err
	}
	return ol.ws, nil
}

func (h *Host) library(lib libraries.Library) (*openLibrary, error) {
	h.libs.mu.Lock()
	defer h.libs.mu.Unlock()
	key := lib.Key()
	if ol, ok := h.libs.open[key]; ok {
		return ol, nil
	}
	opts := h.wsOpts
	opts.Library = &lib
	ws, err := workspace.Open(lib.Dir, opts)
	if err != nil {
		return nil, err
	}
	if n := ws.Notice(); n != "" {
		h.Log.Warn(n, "library", lib.String())
	}
	if h.libs.open == nil {
		h.libs.open = map[string]*openLibrary{}
	}
	ol := &openLibrary{ws: ws, done: make(chan struct{}), watches: map[*func(indexer.Progress)]struct{}{},
		status: LibraryStatus{Library: lib.String(), Dir: lib.Dir}}
	h.libs.open[key] = ol
	return ol, nil
}

// IndexLibrary indexes a library version once for the process and returns
// how it went; a caller arriving while another indexes it waits, seeing
// the progress from then on. ctx only stops the waiting: the indexing
// itself runs to its end unless the process closes.
func (h *Host) IndexLibrary(ctx context.Context, lib libraries.Library, progress func(indexer.Progress)) (LibraryStatus, error) {
	ol, err := h.library(lib)
	if err != nil {
		return LibraryStatus{Library: lib.String(), Dir: lib.Dir, Error: err.Error()}, err
	}
	if progress != nil {
		ol.mu.Lock()
		ol.watches[&progress] = struct{}{}
		ol.mu.Unlock()
		defer func() {
			ol.mu.Lock()
			delete(ol.watches, &progress)
			ol.mu.Unlock()
		}()
	}
	ol.once.Do(func() { go h.buildLibrary(ol) })
	select {
	case <-ol.done:
	case <-ctx.Done():
		return LibraryStatus{Library: lib.String(), Dir: lib.Dir}, ctx.Err()
	}
	ol.mu.Lock()
	defer ol.mu.Unlock()
	return ol.status, nil
}

func (h *Host) buildLibrary(ol *openLibrary) {
	defer close(ol.done)
	start := time.Now()
	st := LibraryStatus{Library: ol.status.Library, Dir: ol.status.Dir}
	if ol.ws.LibraryComplete() {
		st.Reused, st.Complete = true, true
		if files, err := ol.ws.Index.Files(); err == nil {
			st.Files = len(files)
		}
	} else {
		totals, skipped, err := ol.ws.Refresh(h.libraryContext(), func(p indexer.Progress) {
			ol.mu.Lock()
			fns := make([]func(indexer.Progress), 0, len(ol.watches))
			for fn := range ol.watches {
				fns = append(fns, *fn)
			}
			ol.mu.Unlock()
			for _, fn := range fns {
				fn(p)
			}
		})
		st.Files, st.Skipped, st.Complete = totals.Files, skippedCounts(totals, skipped), err == nil
		if err != nil {
			st.Error = err.Error()
			h.Log.Warn("indexing a library failed", "library", st.Library, "err", err)
		}
	}
	st.Seconds = time.Since(start).Seconds()
	ol.mu.Lock()
	ol.status = st
	ol.mu.Unlock()
}

// libraryContext is cancelled when the host closes.
func (h *Host) libraryContext() context.Context {
	h.libs.mu.Lock()
	defer h.libs.mu.Unlock()
	if h.libCtx == nil {
		h.libCtx, h.libCancel = context.WithCancel(context.Background())
	}
	return h.libCtx
}

func skippedCounts(t indexer.Totals, s scan.Skipped) map[string]int {
	out := map[string]int{}
	for k, v := range map[string]int{"tooLarge": s.TooLarge, "binary": s.Binary + t.Skipped.Binary,
		"unreadable": s.Unreadable + t.Skipped.Unreadable, "malformed": t.Skipped.Malformed} {
		if v > 0 {
			out[k] = v
		}
	}
	return out
}

// LibraryStatuses lists the libraries open in the process and how their
// indexing went (Complete false while it runs).
func (h *Host) LibraryStatuses() []LibraryStatus {
	h.libs.mu.Lock()
	ols := make([]*openLibrary, 0, len(h.libs.open))
	for _, ol := range h.libs.open {
		ols = append(ols, ol)
	}
	h.libs.mu.Unlock()
	out := make([]LibraryStatus, 0, len(ols))
	for _, ol := range ols {
		ol.mu.Lock()
		out = append(out, ol.status)
		ol.mu.Unlock()
	}
	return out
}

// closeLibraries stops library indexing and closes their indexes.
func (h *Host) closeLibraries() {
	h.libs.mu.Lock()
	if h.libCancel != nil {
		h.libCancel()
	}
	ols := h.libs.open
	h.libs.open = nil
	h.libs.mu.Unlock()
	for _, ol := range ols {
		// A build that never started is marked done; a started one ends
		// soon, cancelled.
		ol.once.Do(func() { close(ol.done) })
		<-ol.done
		if err := ol.ws.Close(); err != nil {
			h.Log.Warn("closing a library index failed", "library", ol.status.Library, "err", err)
		}
	}
}
