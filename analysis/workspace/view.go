package workspace

import (
	"container/list"
	"log/slog"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
)

// maxCachedFactsBytes bounds the decoded facts kept between queries, by
// their estimated size (see factsSize). Resolution touches the same files
// over and over (a package's files, the files defining common types), so a
// least-recently-used cache of part of a large workspace saves most
// decoding, while the whole Go standard library decoded would take over
// 500 MB, twice the process's soft memory limit. (The count-bounded cache
// this replaces could hold 4096 files, over 300 MB of the library.) With
// 160 MB, the live heap of a server answering on the library sat at about
// 205 MB, so close to the 250 MB soft limit that the collector took a
// quarter of the CPU and doubled the slowest definitions; at 96 MB it sits
// at about 150 MB and the cache still holds the files requests come back to.
// Other caches have grown since (stored uses, the name list): at 96 MB the
// live heap sat at 190 MB again, the collector ran 500 times in 1,000
// samples and definition p95 was 5.7 ms; at 48 MB it sits at 158 MB, 200
// collections, 3.5 ms.
const maxCachedFactsBytes = 48 << 20

// view adapts the storage index to resolve.Workspace. Decoded facts are kept
// in a size-bounded LRU cache, the file table until the next change.
type view struct {
	ix  *storage.Index
	log *slog.Logger
	// maxBytes and maxTopLevel bound the caches: a library's view gets a
	// small share, since a module with its dependencies opens dozens.
	maxBytes int64
	// lean is set while a full reference pass runs (see leanShare).
	lean        atomic.Bool
	maxTopLevel int
	// gen counts the changes of the index this view has seen: what was
	// computed from it at one generation stays true until the next.
	gen atomic.Uint64
	// queried is when a query last read through the view (unix ns): a
	// background reference pass, which reads through passView instead,
	// pauses while queries run (see waitForQueries).
	queried atomic.Int64

	mu        sync.Mutex
	facts     map[string]*list.Element // of *cachedFacts
	lru       list.List                // most recently used first
	bytes     int64
	paths     []string
	pkgs      map[[2]string][]string
	goImports map[string][]resolve.GoImport // by the last segment of the path
	goDirs    map[string][]string           // folders holding Go files, by name
	goMethods map[string][]string           // files declaring Go methods, by receiver type name
	indexed   map[string]indexedVersion     // by path, complete files only
	tablesGen uint64                        // the generation the tables above were read at
	loading   chan struct{}                 // closed when the tables being read are in
	// topLevel keeps files' top-level definitions past their facts'
	// eviction: completion lists a package's on every request in it, and a
	// large package's facts do not fit the cache.
	topLevel     map[string]*topLevelEntry
	topLevelDefs int // total length of topLevel's lists
	// hinted keeps the last names' hinted references (see hintedRefsNamed).
	hinted hintedRefsMemo
}

type cachedFacts struct {
	path  string
	facts *analysis.FileFacts
	size  int64
	// gen is the view's generation at which facts were last known to be
	// the indexed content's: an entry of an older one is checked against
	// the file's row before it is served (see current).
	gen uint64
}

// topLevelEntry is a file's top-level definitions, of the content with
// hash, known current at generation gen.
type topLevelEntry struct {
	hash string
	gen  uint64
	defs []TopLevelDef
}

func newView(ix *storage.Index, log *slog.Logger) *view {
	return &view{ix: ix, log: log, facts: map[string]*list.Element{}, maxBytes: maxCachedFactsBytes, maxTopLevel: maxTopLevelDefs}
}

// Library views keep less: the standard library's a quarter of a
// workspace's, a module's a sixteenth.
func (v *view) shrink(std bool) {
	div := 16
	if std {
		div = 4
	}
	v.maxBytes, v.maxTopLevel = maxCachedFactsBytes/int64(div), maxTopLevelDefs/div
}

// forget drops what the cache knows of one file after it was reindexed.
func (v *view) forget(path string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.facts[path]; ok {
		v.removeLocked(e)
	}
	delete(v.topLevel, path)
	v.paths, v.pkgs, v.indexed = nil, nil, nil
	v.gen.Add(1)
}

// invalidate drops what the cache knows after the index changed. Decoded
// facts and top-level lists stay, and are served again once the file's row
// says its content is still theirs: a cold open's indexing invalidates the
// view every second, and emptying them made every query in the first
// minutes decode its files again (a completion, all of its package's).
func (v *view) invalidate() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.paths, v.pkgs, v.indexed = nil, nil, nil
	v.gen.Add(1)
}

// current reports whether content of hash is still path's indexed content,
// reading the file's row; the caller holds no lock.
func (v *view) current(path, hash string) bool {
	st, ok, err := v.ix.File(path)
	return err == nil && ok && !st.Incomplete && hash != "" && st.Hash == hash
}

// cachedLocked returns path's cached facts when they are known current, or
// the entry to check (stale) when they are from an older generation.
func (v *view) cachedLocked(path string) (f *analysis.FileFacts, stale *cachedFacts) {
	e, ok := v.facts[path]
	if !ok {
		return nil, nil
	}
	c := e.Value.(*cachedFacts)
	if c.gen != v.gen.Load() {
		return nil, c
	}
	v.lru.MoveToFront(e)
	return c.facts, nil
}

// revalidate serves a stale entry again when the file's row says its
// content is unchanged; otherwise it drops it. The caller holds no lock.
func (v *view) revalidate(c *cachedFacts) *analysis.FileFacts {
	gen := v.gen.Load()
	ok := c.facts != nil && v.current(c.path, c.facts.Hash)
	v.mu.Lock()
	defer v.mu.Unlock()
	e, cached := v.facts[c.path]
	if !cached || e.Value.(*cachedFacts) != c {
		return nil
	}
	if !ok {
		v.removeLocked(e)
		return nil
	}
	if v.gen.Load() == gen {
		c.gen = gen
	}
	v.lru.MoveToFront(e)
	return c.facts
}

func (v *view) removeLocked(e *list.Element) {
	c := v.lru.Remove(e).(*cachedFacts)
	delete(v.facts, c.path)
	v.bytes -= c.size
}

// factsSize estimates the memory decoded facts hold (resolve.FactsSize).
func factsSize(f *analysis.FileFacts) int64 { return resolve.FactsSize(f) }

// File returns path's decoded facts for a query.
func (v *view) File(path string) *analysis.FileFacts {
	v.touch()
	return v.file(path)
}

// touch records that a query is reading.
func (v *view) touch() { v.queried.Store(time.Now().UnixNano()) }

// waitForQueries returns once no query has read through the view for
// quiet, or after at most most: a background pass calls it between files
// so that queries get the cores, and still ends beside a busy editor.
func (v *view) waitForQueries(done <-chan struct{}, quiet, most time.Duration) {
	deadline := time.Now().Add(most)
	for {
		idle := time.Since(time.Unix(0, v.queried.Load()))
		left := time.Until(deadline)
		if idle >= quiet || left <= 0 {
			return
		}
		select {
		case <-done:
			return
		case <-time.After(min(quiet-idle, left)):
		}
	}
}

// peek returns path's facts from the cache, or decoded from the index
// without caching them.
func (v *view) peek(path string) *analysis.FileFacts { return v.peekWith(path, v.ix.Facts) }

// peekWith returns path's facts from the cache, or read from the index by
// read without caching them.
func (v *view) peekWith(path string, read func(string) (*analysis.FileFacts, error)) *analysis.FileFacts {
	v.mu.Lock()
	f, stale := v.cachedLocked(path)
	v.mu.Unlock()
	if f == nil && stale != nil {
		f = v.revalidate(stale)
	}
	if f != nil {
		return f
	}
	f, err := read(path)
	if err != nil {
		v.log.Debug("index has no facts", "path", path, "err", err)
		return nil
	}
	return f
}

func (v *view) file(path string) *analysis.FileFacts {
	v.mu.Lock()
	f, stale := v.cachedLocked(path)
	v.mu.Unlock()
	if f == nil && stale != nil {
		f = v.revalidate(stale)
	}
	if f != nil {
		return f
	}
	gen := v.gen.Load()
	f, err := v.ix.Facts(path)
	if err != nil {
		v.log.Debug("index has no facts", "path", path, "err", err)
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.facts[path]; ok && e.Value.(*cachedFacts).gen != gen && v.gen.Load() == gen {
		v.removeLocked(e) // of an older generation, and changed since
	} else if ok || v.gen.Load() != gen {
		// Decoded twice at once, or the index changed meanwhile: keep what
		// is cached, but answer this query with what it read.
		return f
	}
	c := &cachedFacts{path: path, facts: f, size: factsSize(f), gen: gen}
	v.facts[path] = v.lru.PushFront(c)
	v.bytes += c.size
	for v.bytes > v.cacheBudget() && v.lru.Len() > 1 {
		v.removeLocked(v.lru.Back())
	}
	return f
}

// maxTopLevelDefs bounds the top-level definitions the view keeps.
const maxTopLevelDefs = 1 << 17

// TopLevelDef is a definition at the top level of a file: a name its
// package sees, or a method of one of the package's types.
type TopLevelDef struct {
	Index    int32
	Name     string
	Kind     analysis.Kind
	Detail   string // signature or type
	Receiver string // the base name of a method's receiver type, or ""
}

func topLevelDefs(f *analysis.FileFacts) []TopLevelDef {
	return fromStored(storage.TopLevelDefs(f))
}

// fromStored names methods' receivers by their base type (*List[T] is List).
func fromStored(stored []storage.TopLevelDef) []TopLevelDef {
	out := make([]TopLevelDef, len(stored))
	for i, d := range stored {
		out[i] = TopLevelDef{Index: d.Index, Name: d.Name, Kind: d.Kind, Detail: d.Detail, Receiver: resolve.BaseTypeName(d.Receiver)}
	}
	return out
}

// TopLevel lists the top-level definitions of an indexed file.
func (v *view) TopLevel(path string) []TopLevelDef {
	v.touch()
	v.mu.Lock()
	e, ok := v.topLevel[path]
	gen := v.gen.Load()
	v.mu.Unlock()
	if ok && (e.gen == gen || v.current(path, e.hash)) {
		if e.gen != gen {
			v.mu.Lock()
			if v.gen.Load() == gen {
				e.gen = gen
			}
			v.mu.Unlock()
		}
		return e.defs
	}
	// From the whole facts when they are at hand, else from the file's
	// top-level table: completion lists a package's declarations, and
	// decoding its files' references, or even their locals and scopes (the
	// compiler's generated rewrite rules hold hundreds of thousands), was
	// most of a first completion's time.
	v.mu.Lock()
	f, _ := v.cachedLocked(path)
	v.mu.Unlock()
	var defs []TopLevelDef
	var hash string
	if f != nil {
		defs, hash = topLevelDefs(f), f.Hash
	} else {
		stored, h, err := v.ix.TopLevel(path)
		if err != nil {
			v.log.Debug("index has no facts", "path", path, "err", err)
			return nil
		}
		defs, hash = fromStored(stored), h
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.keepTopLevelLocked(path, hash, gen, defs)
	return defs
}

// keepTopLevelLocked caches path's top-level definitions of content hash,
// read at generation gen.
func (v *view) keepTopLevelLocked(path, hash string, gen uint64, defs []TopLevelDef) {
	if v.gen.Load() != gen {
		return
	}
	if v.topLevel == nil || v.topLevelDefs+len(defs) > v.maxTopLevel {
		v.topLevel, v.topLevelDefs = map[string]*topLevelEntry{}, 0
	}
	if old, ok := v.topLevel[path]; ok {
		v.topLevelDefs -= len(old.defs)
	}
	v.topLevel[path] = &topLevelEntry{hash: hash, gen: gen, defs: defs}
	v.topLevelDefs += len(defs)
}

// TopLevels is TopLevel for several files (a package's): those not known
// current are checked, and read, in one index transaction instead of one
// each (storage.Index.TopLevels says why that matters).
func (v *view) TopLevels(paths []string) [][]TopLevelDef {
	v.touch()
	out := make([][]TopLevelDef, len(paths))
	stale := make([]*topLevelEntry, len(paths))
	var ask []int
	var askPaths []string
	v.mu.Lock()
	gen := v.gen.Load()
	for i, p := range paths {
		e, ok := v.topLevel[p]
		if ok && e.gen == gen {
			out[i] = e.defs
			continue
		}
		if f, _ := v.cachedLocked(p); f != nil {
			out[i] = topLevelDefs(f)
			v.keepTopLevelLocked(p, f.Hash, gen, out[i])
			continue
		}
		if ok {
			stale[i] = e
		}
		ask, askPaths = append(ask, i), append(askPaths, p)
	}
	v.mu.Unlock()
	if len(ask) == 0 {
		return out
	}
	defs, hashes, err := v.ix.TopLevels(askPaths, func(j int, hash string) bool {
		e := stale[ask[j]]
		return e != nil && hash != "" && e.hash == hash
	})
	if err != nil {
		v.log.Debug("reading top-level definitions", "files", len(askPaths), "err", err)
		for _, i := range ask {
			out[i] = v.TopLevel(paths[i])
		}
		return out
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for j, i := range ask {
		if hashes[j] == "" {
			continue // not indexed
		}
		var d []TopLevelDef
		if e := stale[i]; e != nil && defs[j] == nil && e.hash == hashes[j] {
			d = e.defs
		} else {
			d = fromStored(defs[j])
		}
		out[i] = d
		v.keepTopLevelLocked(paths[i], hashes[j], gen, d)
	}
	return out
}

func (v *view) Files() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.paths
}

func (v *view) FilesInPackage(lang, pkg string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.pkgs[[2]string{lang, pkg}]
}

// goMethodFiles lists the indexed files declaring Go methods on the type
// named receiver (in any package).
func (v *view) goMethodFiles(receiver string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.goMethods[receiver]
}

// goDirsNamed lists the indexed folders named name holding Go files.
func (v *view) goDirsNamed(name string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return slices.Compact(slices.Sorted(slices.Values(v.goDirs[name])))
}

// goImportsNamed lists the indexed Go imports whose paths end in name.
func (v *view) goImportsNamed(name string) []resolve.GoImport {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.goImports[name]
}

// indexedVersion is what the file table says of a file's indexed content.
type indexedVersion struct {
	hash  string
	ascii bool
	size  int64
	pkg   string  // its package clause
	wide  []int32 // the lines that are not ASCII, if few (FileFacts.WideLines)
}

// indexedFile describes path's indexed version; the zero value when the
// file is not indexed (or its last write was interrupted).
func (v *view) indexedFile(path string) indexedVersion {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.loadFilesLocked()
	return v.indexed[path]
}

// indexedHash is the content hash of path's indexed version, or "".
func (v *view) indexedHash(path string) string { return v.indexedFile(path).hash }

// loadFilesLocked reads the file table once per refresh.
func (v *view) loadFilesLocked() {
	for tries := 1; v.paths == nil || v.tablesGen != v.gen.Load(); tries++ {
		if v.loading != nil {
			// Another caller reads the table: wait for it, not for the
			// view's lock, which every query's cached read takes.
			ch := v.loading
			v.mu.Unlock()
			<-ch
			v.mu.Lock()
			continue
		}
		gen := v.gen.Load()
		ch := make(chan struct{})
		v.loading = ch
		v.mu.Unlock()
		t := v.readFileTables()
		v.mu.Lock()
		v.loading = nil
		close(ch)
		// Read while the index changed: read again, unless it changes all
		// the time; then these serve this caller and the next reads anew.
		if v.gen.Load() == gen || tries >= 3 {
			v.paths, v.pkgs, v.goImports, v.goDirs, v.goMethods, v.indexed = t.paths, t.pkgs, t.goImports, t.goDirs, t.goMethods, t.indexed
			v.tablesGen = gen
			return
		}
	}
}

// fileTables are what the view derives from the index's file table.
type fileTables struct {
	paths     []string
	pkgs      map[[2]string][]string
	goImports map[string][]resolve.GoImport
	goDirs    map[string][]string
	goMethods map[string][]string
	indexed   map[string]indexedVersion
}

// readFileTables reads the index's file table; the caller holds no lock.
func (v *view) readFileTables() fileTables {
	files, err := v.ix.Files()
	if err != nil {
		v.log.Warn("listing indexed files failed", "err", err)
	}
	t := fileTables{paths: make([]string, 0, len(files)), pkgs: map[[2]string][]string{},
		goImports: map[string][]resolve.GoImport{}, goDirs: map[string][]string{}, goMethods: map[string][]string{},
		indexed: make(map[string]indexedVersion, len(files))}
	for _, f := range files {
		t.paths = append(t.paths, f.Path)
		key := [2]string{f.Lang, f.Package}
		t.pkgs[key] = append(t.pkgs[key], f.Path)
		if dir := filepath.Dir(f.Path); f.Lang == "go" {
			name := resolve.GoDirName(filepath.Base(dir))
			if ds := t.goDirs[name]; len(ds) == 0 || ds[len(ds)-1] != dir {
				t.goDirs[name] = append(ds, dir)
			}
		}
		for _, r := range f.Receivers {
			name := resolve.BaseTypeName(r)
			if ps := t.goMethods[name]; len(ps) == 0 || ps[len(ps)-1] != f.Path {
				t.goMethods[name] = append(ps, f.Path) // *T and T in one file
			}
		}
		for _, p := range f.Imports {
			name := path.Base(p)
			t.goImports[name] = append(t.goImports[name], resolve.GoImport{File: f.Path, Path: p})
		}
		if !f.Incomplete {
			t.indexed[f.Path] = indexedVersion{f.Hash, f.ASCII, f.Size, f.Package, f.WideLines}
		}
	}
	// In path order: a pass then resolves a package's files one after
	// another, which read the same facts, and a folder is found by search.
	slices.Sort(t.paths)
	return t
}

func (v *view) DefsNamed(name string) []resolve.DefEntry {
	v.touch()
	return v.defsNamed(name)
}

func (v *view) defsNamed(name string) []resolve.DefEntry {
	hits, err := v.ix.DefsNamed(name)
	if err != nil {
		v.log.Warn("definition lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.DefEntry, len(hits))
	for i, h := range hits {
		out[i] = resolve.DefEntry{DefID: resolve.DefID{Path: h.Path, Index: int32(h.Index)}, Lang: h.Lang, Kind: h.Kind, NameSpan: h.NameSpan, Nested: h.Container != ""}
	}
	return out
}

func (v *view) RefsNamed(name string) []resolve.RefID {
	v.touch()
	return v.refsNamed(name)
}

func (v *view) refsNamed(name string) []resolve.RefID {
	hits, err := v.ix.RefsNamed(name)
	if err != nil {
		v.log.Warn("reference lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.RefID, len(hits))
	for i, h := range hits {
		out[i] = resolve.RefID{Path: h.Path, Index: int32(h.Index)}
	}
	return out
}

// hintedRefsNamed is refsNamed with each reference's stored hint. The
// last few names' lists are kept until the index changes: a reference
// query lists its name's references to pick its candidates, then again to
// settle them (through another resolver), and for unsafe.Pointer each
// listing read eleven thousand postings.
func (v *view) hintedRefsNamed(name string) []resolve.HintedRef {
	v.touch()
	gen := v.gen.Load()
	if refs, ok := v.hinted.get(gen, name); ok {
		return refs
	}
	refs := slices.Clip(v.readHintedRefs(name))
	v.hinted.put(gen, name, refs)
	return refs
}

// postingSpans, cleared by tests only, hands on the spans that reference
// postings hold; without them, a query reads them from the files' facts.
var postingSpans = true

func (v *view) readHintedRefs(name string) []resolve.HintedRef {
	hits, err := v.ix.RefsNamed(name)
	if err != nil {
		v.log.Warn("reference lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.HintedRef, len(hits))
	for i, h := range hits {
		out[i] = resolve.HintedRef{RefID: resolve.RefID{Path: h.Path, Index: int32(h.Index)}, Hint: h.Hint, Role: h.Role,
			Span: h.Span, Spanned: h.Spanned && postingSpans}
		if k := resolve.HintImport(h.Hint); k >= 0 {
			if k >= len(h.Imports) {
				out[i].Hint = 0 // not what this file row says: resolve it
			} else {
				out[i].Import = h.Imports[k]
			}
		}
	}
	return out
}

func (v *view) SupertypesNamed(name string) []resolve.SupertypeID {
	v.touch()
	return v.supertypesNamed(name)
}

func (v *view) supertypesNamed(name string) []resolve.SupertypeID {
	edges, err := v.ix.Subtypes(name)
	if err != nil {
		v.log.Warn("subtype lookup failed", "name", name, "err", err)
	}
	out := make([]resolve.SupertypeID, len(edges))
	for i, e := range edges {
		out[i] = resolve.SupertypeID{Path: e.Path, Index: int32(e.Index)}
	}
	return out
}
