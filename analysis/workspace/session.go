package workspace

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
)

// Doc is an open document's current, possibly unsaved, text.
type Doc struct {
	Path    string
	Version int32
	Text    []byte
}

// Session is one editor's view of code: the indexes of its workspace roots
// and the facts of its open documents, extracted from their current text.
// Snapshots of it are immutable and answer every query.
type Session struct {
	mu       sync.Mutex
	roots    []*Workspace
	overlays map[string]*overlay
	shared   *shared // for snapshots whose documents equal their indexed versions
	// libraryRefs: reference queries list the libraries' uses too.
	libraryRefs bool
}

// overlay is the facts of one version of an open document, with its name
// tables so lookups need not scan it.
type overlay struct {
	version int32
	size    int
	hash    string // of the text, as storage.HashContent
	facts   *analysis.FileFacts
	defs    map[string][]int32
	refs    map[string][]int32
	supers  map[string][]int32
	// hints are the references' hints (resolve.GoRefHints), worked out
	// once: a query lists its name's references several times, and a
	// member's query every name of the types that may carry it.
	hints func() []uint64
}

// NewSession returns a session with no roots.
func NewSession() *Session { return &Session{overlays: map[string]*overlay{}} }

// AddRoot adds a workspace root; adding one twice does nothing.
func (s *Session) AddRoot(ws *Workspace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.roots {
		if w.Root == ws.Root && linked(w) == linked(ws) {
			return
		}
	}
	s.roots = append(s.roots, ws)
	// Longest root first, so a nested root owns its files (a virtualenv's
	// package inside the workspace belongs to its library); a package
	// linked from the workspace's own folders owns none, so comes last.
	slices.SortFunc(s.roots, func(a, b *Workspace) int {
		if la, lb := linked(a), linked(b); la != lb {
			return cmp.Compare(btoi(la), btoi(lb))
		}
		return len(b.Root) - len(a.Root)
	})
}

// RemoveRoot drops the root at path and returns its workspace, or nil.
func (s *Session) RemoveRoot(root string) *Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range s.roots {
		if w.Root == root {
			s.roots = slices.Delete(s.roots, i, i+1)
			return w
		}
	}
	return nil
}

// Roots lists the session's workspaces, libraries left out.
func (s *Session) Roots() []*Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return workspaceRoots(s.roots)
}

func workspaceRoots(all []*Workspace) []*Workspace {
	var out []*Workspace
	for _, w := range all {
		if w.Lib == nil {
			out = append(out, w)
		}
	}
	return out
}

// indexes lists the session's workspaces and libraries.
func (s *Session) indexes() []*Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.roots)
}

// Owner returns the workspace whose root holds path, or nil.
func (s *Session) Owner(path string) *Workspace { return owner(s.Roots(), path) }

func owner(roots []*Workspace, path string) *Workspace {
	for _, w := range roots {
		if within(w.Root, path) {
			return w
		}
	}
	return nil
}

// linked reports whether w is a node package of the workspace's own
// folders: it resolves imports, and its files are the workspace's.
func linked(w *Workspace) bool { return w.Lib != nil && w.Lib.Linked() }

func within(root, path string) bool {
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

// Forget drops what the session extracted from a closed document.
func (s *Session) Forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.overlays, path)
}

// Facts returns the facts of an open document's text, extracting them once
// per version; nil for languages kast does not know.
func (s *Session) Facts(d Doc) *analysis.FileFacts {
	if o := s.overlay(d); o != nil {
		return o.facts
	}
	return nil
}

func (s *Session) overlay(d Doc) *overlay {
	l, ok := lang.ForPath(d.Path)
	if !ok || d.Path == "" {
		return nil
	}
	s.mu.Lock()
	o, ok := s.overlays[d.Path]
	s.mu.Unlock()
	if ok && o.version == d.Version && o.size == len(d.Text) {
		return o
	}
	hash := storage.HashContent(d.Text)
	w := s.Owner(d.Path)
	facts := s.indexed(w, d, hash, l.ID)
	if facts == nil && w != nil {
		facts = w.opened.get(d.Path, hash) // closed and opened again
	}
	if facts == nil {
		// Extraction outlives the request that triggers it: the result is shared.
		var err error
		if facts, err = lang.Extract(context.Background(), d.Path, d.Text); err != nil {
			return nil
		}
		if w != nil {
			w.opened.put(d.Path, hash, facts)
		}
	}
	o = newOverlay(d, facts)
	o.hash = hash
	s.mu.Lock()
	s.overlays[d.Path] = o
	s.mu.Unlock()
	return o
}

// indexed returns the facts the owning index holds for exactly d's text, or
// nil: a document opened unchanged needs no parse, which costs tens of
// milliseconds on the request that first sees it.
func (s *Session) indexed(w *Workspace, d Doc, hash, langID string) *analysis.FileFacts {
	if w == nil {
		return nil
	}
	if w.view.indexedHash(d.Path) == hash {
		// The indexed version itself: its facts may be decoded already.
		if f := w.view.File(d.Path); f != nil {
			return f
		}
	}
	facts, ok, err := w.Index.FactsByHash(hash, langID)
	if err != nil || !ok {
		return nil
	}
	facts.Path = d.Path
	return facts
}

// newOverlay indexes an open document's names. Like the index's name
// tables, it leaves out what function bodies declare; unlike them it keeps
// the references bound to that (see resolve.BodyBindings): resolution rules
// them out, and finding them would cost every request that opens a file.
func newOverlay(d Doc, f *analysis.FileFacts) *overlay {
	o := &overlay{version: d.Version, size: len(d.Text), facts: f,
		defs: map[string][]int32{}, refs: map[string][]int32{}, supers: map[string][]int32{},
		hints: sync.OnceValue(func() []uint64 { return resolve.GoRefHints(f) })}
	for i, x := range f.Defs {
		if !resolve.DeclaredInBody(f, int32(i)) {
			o.defs[x.Name] = append(o.defs[x.Name], int32(i))
		}
	}
	for i, x := range f.Refs {
		o.refs[x.Name] = append(o.refs[x.Name], int32(i))
	}
	for i, x := range f.Supertypes {
		name := resolve.BaseTypeName(x.Name)
		o.supers[name] = append(o.supers[name], int32(i))
	}
	return o
}

// Snapshot returns an immutable view: the roots' indexes as they are now,
// shadowed by the facts of docs.
func (s *Session) Snapshot(docs []Doc) *Snapshot {
	snap := newSnapshot(s.indexes())
	s.mu.Lock()
	snap.libraryRefs = s.libraryRefs
	s.mu.Unlock()
	// A request has begun: a background pass gives it the cores from its
	// next pause on, not only once it reads through a view (one answered
	// from caches waited behind the pass's workers for the scheduler).
	for _, w := range snap.roots {
		if w.view != nil {
			w.view.touch()
		}
	}
	clean := true
	for _, d := range docs {
		if d.Path == "" {
			continue
		}
		snap.texts[d.Path] = d.Text
		if o := s.overlay(d); o != nil {
			snap.open[d.Path] = o
			snap.openPaths = append(snap.openPaths, d.Path)
			w := owner(snap.roots, d.Path)
			clean = clean && w != nil && (w.Lib != nil || w.view.indexedHash(d.Path) == o.hash)
		}
	}
	slices.Sort(snap.openPaths)
	if clean && len(snap.roots) > 0 {
		snap.shared = s.sharedFor(snap.roots)
	}
	return snap
}

func newSnapshot(roots []*Workspace) *Snapshot {
	return &Snapshot{roots: roots, open: map[string]*overlay{}, texts: map[string][]byte{},
		cached: map[string]*analysis.FileFacts{}, pkgs: map[[2]string][]string{}}
}

// Snapshot is what one request sees. It implements resolve.Workspace.
type Snapshot struct {
	roots     []*Workspace // workspace roots, then libraries
	open      map[string]*overlay
	openPaths []string
	texts     map[string][]byte
	// shared is set when every open document equals its indexed version:
	// the snapshot then answers like the indexes alone, and so can use what
	// earlier requests worked out from them.
	shared *shared
	// libraryRefs: reference queries list the libraries' uses too.
	libraryRefs bool

	once     sync.Once
	resolver *resolve.Resolver
	// decls resolves reference queries' candidates (see declsView).
	declsOnce sync.Once
	decls     *resolve.Resolver

	mu     sync.Mutex
	cached map[string]*analysis.FileFacts // facts read from the indexes
	bytes  int64                          // their estimated size
	pkgs   map[[2]string][]string         // FilesInPackage answers

	lastRefs   string // the name of the last RefsNamed
	lastRefIDs []resolve.RefID
}

var _ resolve.Workspace = (*Snapshot)(nil)

// Resolver returns the snapshot's resolver, made once; a snapshot equal to
// the indexes shares a resolver, and its caches, with others like it.
func (s *Snapshot) Resolver() *resolve.Resolver {
	if s.shared != nil {
		return s.shared.snapshot().Resolver()
	}
	s.once.Do(func() { s.resolver = resolve.NewWithBudget(s, factsBudget(s.roots, snapshotFactsBytes)) })
	// Requests run at once: each gets its own view of the shared caches.
	return s.resolver.View()
}

// InWorkspace reports whether path lies under one of the workspace roots
// (not in a library).
func (s *Snapshot) InWorkspace(path string) bool {
	w := owner(s.roots, path)
	return w != nil && w.Lib == nil
}

// RootOf returns the root (or library folder) holding path, or "".
func (s *Snapshot) RootOf(path string) string {
	if w := owner(s.roots, path); w != nil {
		return w.Root
	}
	return ""
}

// Roots lists the workspace roots' paths.
func (s *Snapshot) Roots() []string {
	var out []string
	for _, w := range s.roots {
		if w.Lib == nil {
			out = append(out, w.Root)
		}
	}
	return out
}

// Text returns a file's text: the open document's, else the file on disk.
func (s *Snapshot) Text(path string) ([]byte, bool) {
	if t, ok := s.texts[path]; ok {
		return t, true
	}
	b, err := os.ReadFile(path)
	return b, err == nil
}

// IsOpen reports whether path is an open document.
func (s *Snapshot) IsOpen(path string) bool {
	_, ok := s.texts[path]
	return ok
}

// File implements resolve.Workspace. Facts read from an index are kept for
// the snapshot's life: a resolver reads the same files many times over.
func (s *Snapshot) File(path string) *analysis.FileFacts {
	f, w := s.held(path, (*Snapshot).File)
	if w == nil {
		return f
	}
	f = w.view.File(path)
	s.mu.Lock()
	if g, ok := s.cached[path]; ok {
		f = g
	} else if s.bytes < factsBudget(s.roots, snapshotFactsBytes) {
		// Past the budget, the view's cache and the resolver's memo keep
		// what is read again.
		s.cached[path] = f
		if f != nil {
			s.bytes += factsSize(f)
		}
	}
	s.mu.Unlock()
	return f
}

// held finds a file's facts among the open files, the shared snapshot's
// (through again) and those this snapshot read already. Otherwise it
// names the workspace that must read them, or none holds the file.
func (s *Snapshot) held(path string, again func(*Snapshot, string) *analysis.FileFacts) (*analysis.FileFacts, *Workspace) {
	if o, ok := s.open[path]; ok {
		return o.facts, nil
	}
	if s.shared != nil {
		return again(s.shared.snapshot(), path), nil
	}
	s.mu.Lock()
	f, ok := s.cached[path]
	s.mu.Unlock()
	if ok {
		return f, nil
	}
	return nil, owner(s.roots, path)
}

// TopLevel lists the top-level definitions of a file: the names its
// package sees and the methods declared outside their types.
func (s *Snapshot) TopLevel(path string) []TopLevelDef {
	if o, ok := s.open[path]; ok {
		return topLevelDefs(o.facts)
	}
	if w := owner(s.roots, path); w != nil {
		return w.view.TopLevel(path)
	}
	return nil
}

// ContentHash implements resolve.ContentHasher: an open document's hash,
// else the index's, without decoding the file's facts.
func (s *Snapshot) ContentHash(path string) string {
	if o, ok := s.open[path]; ok {
		return o.hash
	}
	if s.shared != nil {
		return s.shared.snapshot().ContentHash(path)
	}
	if w := owner(s.roots, path); w != nil {
		return w.view.indexedHash(path)
	}
	return ""
}

// TopLevels is TopLevel for several files, read from each index at once.
func (s *Snapshot) TopLevels(paths []string) [][]TopLevelDef {
	out := make([][]TopLevelDef, len(paths))
	byIndex := map[*Workspace][]int{}
	for i, p := range paths {
		if o, ok := s.open[p]; ok {
			out[i] = topLevelDefs(o.facts)
		} else if w := owner(s.roots, p); w != nil {
			byIndex[w] = append(byIndex[w], i)
		}
	}
	for w, at := range byIndex {
		some := make([]string, len(at))
		for j, i := range at {
			some[j] = paths[i]
		}
		for j, defs := range w.view.TopLevels(some) {
			out[at[j]] = defs
		}
	}
	return out
}

// cachedBytes is the estimated size of the facts the snapshot holds.
func (s *Snapshot) cachedBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// Symbol is a definition as the indexes' name tables describe it, without
// its file's facts.
type Symbol struct {
	ID        resolve.DefID
	Lang      string
	Name      string
	Kind      analysis.Kind
	NameSpan  analysis.Span
	Container string // the enclosing definition's name, "" at top level
}

// SymbolsMatching lists up to limit definitions whose names match, by
// prefix (ignoring case) when fuzzy is false, as a fuzzy subsequence
// otherwise, with what the name tables hold about each: enough for a
// symbol list, and to rule out most definitions before decoding a file.
// Open documents shadow their indexed versions.
func (s *Snapshot) SymbolsMatching(pattern string, fuzzy bool, limit int) []Symbol {
	var out []Symbol
	// The workspace's symbols first, then the libraries'.
	ordered := slices.SortedStableFunc(slices.Values(s.roots), func(a, b *Workspace) int {
		return cmp.Compare(btoi(a.Lib != nil), btoi(b.Lib != nil))
	})
	for _, w := range ordered {
		lookup := w.Index.DefsWithPrefix
		if fuzzy {
			lookup = w.Index.DefsFuzzy
		}
		hits, err := lookup(pattern, limit)
		if err != nil {
			w.view.log.Warn("symbol lookup failed", "pattern", pattern, "err", err)
		}
		for _, h := range hits {
			if s.fromIndex(w, h.Path) {
				out = append(out, Symbol{ID: resolve.DefID{Path: h.Path, Index: int32(h.Index)}, Lang: h.Lang, Name: h.Name, Kind: h.Kind, NameSpan: h.NameSpan, Container: h.Container})
			}
		}
	}
	for _, id := range s.openDefsMatching(pattern, fuzzy) {
		f := s.open[id.Path].facts
		d := f.Defs[id.Index]
		sym := Symbol{ID: id, Lang: f.Lang, Name: d.Name, Kind: d.Kind, NameSpan: d.NameSpan}
		if d.Container >= 0 && int(d.Container) < len(f.Defs) {
			sym.Container = f.Defs[d.Container].Name
		}
		out = append(out, sym)
	}
	return out
}

// openDefsMatching lists the open documents' definitions whose names match.
func (s *Snapshot) openDefsMatching(pattern string, fuzzy bool) []resolve.DefID {
	var out []resolve.DefID
	lower := strings.ToLower(pattern)
	for _, p := range s.openPaths {
		for name, idx := range s.open[p].defs {
			if fuzzy && analysis.FuzzyScore(pattern, name) > 0 || !fuzzy && strings.HasPrefix(strings.ToLower(name), lower) {
				for _, i := range idx {
					out = append(out, resolve.DefID{Path: p, Index: i})
				}
			}
		}
	}
	return out
}

// AwaitRequests returns once no request has read the session's roots for a
// moment (queryQuiet), after at most most, or when ctx ends. Work that no
// client waits on, such as an opened document's diagnostics, calls it
// first, so that the requests running get the cores: on a cold open of the
// Go standard library, the diagnostics of each opened file (its references
// resolved, its package type-checked) took as much CPU as the reference
// pass and ran beside that file's reference query.
func (s *Session) AwaitRequests(ctx context.Context, most time.Duration) {
	deadline := time.Now().Add(most)
	for _, w := range s.indexes() {
		if w.view != nil {
			w.view.waitForQueries(ctx.Done(), queryQuiet, time.Until(deadline))
		}
	}
}
