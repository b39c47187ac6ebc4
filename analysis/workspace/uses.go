package workspace

import (
	"cmp"
	"context"
	"encoding/binary"
	"hash/fnv"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/memlimit"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
)

// Finding the references of a definition used all over a large workspace
// (a method named Type, Pos or Errorf in the Go standard library) means
// resolving thousands of references in hundreds of files: seconds. So once
// the facts are indexed, a background pass resolves every reference and
// stores, for each definition visible beyond a body, where it is used
// (storage's uses tables). A reference query then reads one definition's
// rows.
//
// What a file's references resolve to depends on the file itself and on the
// declarations of the others, never on their bodies. The pass records, per
// file, the content hash it resolved and a hash of the file's declarations
// (its shape). An edit that keeps every shape (the common edit, inside a
// body) invalidates only the edited files' own uses: they are resolved
// afresh at query time until the next pass catches up with them. An edit
// that changes a shape, or adds or removes a file, may change what any
// reference resolves to, so queries resolve as before, and the next pass
// starts over.

// usesState is what the stored uses are good for at one view generation.
type usesState struct {
	gen, epoch uint64
	// valid: the stored uses answer for every file outside dirty.
	valid bool
	// dirty lists the files changed since their uses were resolved, with
	// their shapes unchanged; their references are resolved at query time.
	dirty map[string]bool
}

// usesTracker is a workspace's knowledge of its stored uses.
type usesTracker struct {
	pass sync.Mutex // one pass at a time

	mu    sync.Mutex
	epoch uint64 // counts the passes that wrote uses
	state *usesState
	// shapes memoizes the shape of file contents, by content hash.
	shapes map[string]uint64
	// partial is the progress of a full pass that has not ended (it was
	// stopped, or still runs): the next pass over the same files resumes it,
	// and queries read its rows meanwhile.
	partial *partialUses
	// table memoizes tableKey by view generation.
	tableGen, table uint64
	// wanted lists files queries asked to be resolved first (see want).
	wanted []string
}

// partialUses is what an unfinished full pass has stored: the uses of the
// files in done, resolved against the file table named by table. done is
// replaced, never modified, once shared.
type partialUses struct {
	table uint64
	done  map[string]bool
}

// UsesHold reports whether reference queries can answer from the stored
// uses now.
func (w *Workspace) UsesHold() bool { return w.usesStatus().valid }

// usesStatus returns what the stored uses are good for now.
func (w *Workspace) usesStatus() *usesState {
	u := &w.uses
	gen := w.view.gen.Load()
	u.mu.Lock()
	if st := u.state; st != nil && st.gen == gen && st.epoch == u.epoch {
		u.mu.Unlock()
		return st
	}
	epoch := u.epoch
	u.mu.Unlock()

	st := &usesState{gen: gen, epoch: epoch, dirty: map[string]bool{}}
	st.valid = w.checkUses(st.dirty)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.epoch == epoch && w.view.gen.Load() == gen {
		u.state = st
	}
	return st
}

// checkUses reports whether the stored uses hold, filling dirty with the
// files to resolve at query time.
func (w *Workspace) checkUses(dirty map[string]bool) bool {
	complete, err := w.Index.UsesComplete()
	if err != nil || !complete {
		return false
	}
	records, orphans, err := w.Index.UsesRecords()
	if err != nil || orphans > 0 {
		return false
	}
	paths := w.view.Files()
	if len(records) != len(paths) {
		return false // a file was added (or failed to resolve)
	}
	for _, p := range paths {
		rec, ok := records[p]
		if !ok {
			return false
		}
		hash := w.view.indexedHash(p)
		if hash == rec.Hash {
			continue
		}
		shape, ok := w.shapeOf(p, hash)
		if !ok || shape != rec.Shape {
			return false
		}
		dirty[p] = true
	}
	return true
}

// shapeOf returns the shape of path's indexed content, whose hash is given.
func (w *Workspace) shapeOf(path, hash string) (uint64, bool) {
	u := &w.uses
	u.mu.Lock()
	s, ok := u.shapes[hash]
	u.mu.Unlock()
	if ok {
		return s, true
	}
	f := w.view.File(path)
	if f == nil || f.Hash != hash {
		return 0, false
	}
	s = shape(f)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.shapes == nil || len(u.shapes) > 1<<14 {
		u.shapes = map[string]uint64{}
	}
	u.shapes[hash] = s
	return s, true
}

// shape hashes what other files' references can resolve through: the
// file's language, package and imports, and each definition declared
// outside a body with its place among them, its kind, written types and
// signature, its supertypes and how they are named.
func shape(f *analysis.FileFacts) uint64 {
	h := fnv.New64a()
	var buf []byte
	str := func(s string) {
		buf = binary.AppendUvarint(buf[:0], uint64(len(s)))
		h.Write(buf)
		h.Write([]byte(s))
	}
	num := func(n int64) {
		buf = binary.AppendVarint(buf[:0], n)
		h.Write(buf)
	}
	str(f.Lang)
	str(f.Package)
	for _, imp := range f.Imports {
		str(imp.Path)
		str(imp.Name)
		str(imp.Alias)
		num(int64(btoi(imp.Wildcard)))
	}
	ords := ordinals(f)
	for i, d := range f.Defs {
		if ords[i] < 0 {
			continue
		}
		container := int64(-1)
		if d.Container >= 0 && int(d.Container) < len(f.Defs) {
			container = int64(ords[d.Container])
		}
		num(container)
		num(int64(d.Kind))
		str(d.Name)
		str(d.Visibility)
		str(d.Signature)
		str(d.TypeName)
		str(d.Receiver)
		str(d.Value)
	}
	for _, s := range f.Supertypes {
		if s.Def >= 0 && int(s.Def) < len(f.Defs) {
			num(int64(ords[s.Def]))
		}
		str(s.Name)
	}
	for _, r := range f.Refs {
		if r.Role&analysis.RoleInheritance != 0 {
			str(r.Name)
			str(r.Qualifier)
		}
	}
	return h.Sum64()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ordinals numbers a file's definitions declared outside bodies in order,
// -1 for the others.
func ordinals(f *analysis.FileFacts) []int32 {
	out := make([]int32, len(f.Defs))
	n := int32(0)
	for i := range f.Defs {
		if resolve.DeclaredInBody(f, int32(i)) {
			out[i] = -1
			continue
		}
		out[i] = n
		n++
	}
	return out
}

// ResolveUses brings the stored uses up to date: it resolves the files
// changed since the last pass when every shape held, else every file, on
// workers goroutines (0: every core; a background pass gives them up
// while queries run, see ResolveUsesInBackground). progress, which may be
// nil, hears of each file done. It returns how many files it resolved.
func (w *Workspace) ResolveUses(ctx context.Context, workers int, progress func(done, total int)) (int, error) {
	return w.resolveUsesYielding(ctx, workers, false, progress)
}

// ResolveUsesInBackground is ResolveUses for a pass nobody waits for: it
// pauses between files while queries read the index (at most a second at a
// time, so it still ends beside a busy editor).
func (w *Workspace) ResolveUsesInBackground(ctx context.Context, workers int, progress func(done, total int)) (int, error) {
	return w.resolveUsesYielding(ctx, workers, true, progress)
}

func (w *Workspace) resolveUsesYielding(ctx context.Context, workers int, yield bool, progress func(done, total int)) (int, error) {
	done, err := w.resolveUses(ctx, workers, yield, progress)
	if w.moveToMemory(err) {
		w.uses.mu.Lock()
		w.uses.partial = nil // its rows stayed on the full disk
		w.uses.mu.Unlock()
		if _, _, err := w.refresh(ctx, nil); err != nil {
			return 0, err
		}
		return w.resolveUses(ctx, workers, yield, progress)
	}
	return done, err
}

const (
	usesPerFlush = 256
	// A background pass waits for queryQuiet without queries before each
	// file, but its first worker never longer than maxYield, the others
	// than maxYieldOthers.
	queryQuiet     = 25 * time.Millisecond
	maxYield       = time.Second
	maxYieldOthers = 8 * time.Second
)

// resultsAhead bounds the files the workers resolve ahead of the writer:
// enough to cover a flush, and few enough that a pass stopped from its
// progress (superseded, cancelled) stops within a few files. With 64, the
// workers resolved a small workspace whole before the writer reported the
// first file, once reading a name's postings got cheaper.
const resultsAhead = 16

// passPicked, set by tests only, hears each file a pass takes, in order.
var passPicked func(path string)

func (w *Workspace) resolveUses(ctx context.Context, workers int, yield bool, progress func(done, total int)) (int, error) {
	u := &w.uses
	u.pass.Lock()
	defer u.pass.Unlock()
	st := w.usesStatus()
	var paths []string
	var partial *partialUses
	if st.valid {
		for p := range st.dirty {
			paths = append(paths, p)
		}
		slices.Sort(paths)
	} else {
		table := w.tableKey()
		u.mu.Lock()
		if u.partial != nil && u.partial.table == table {
			partial = u.partial // resume: its files' rows are current
		}
		u.mu.Unlock()
		// A full pass: the query caches give it room (see leanShare).
		w.view.lean.Store(true)
		defer w.view.lean.Store(false)
		if partial == nil {
			if err := w.Index.ClearUses(); err != nil {
				return 0, err
			}
			partial = &partialUses{table: table, done: map[string]bool{}}
		}
		u.mu.Lock()
		u.partial = partial
		for _, p := range w.view.Files() {
			if !partial.done[p] {
				paths = append(paths, p)
			}
		}
		u.mu.Unlock()
	}
	byFolder(paths)
	defer memlimit.Allow(max(passHeapAllowance(len(w.view.Files())), passLeastRoom))()
	defer func() {
		u.mu.Lock()
		u.epoch++
		u.mu.Unlock()
	}()
	if len(paths) == 0 && st.valid {
		return 0, nil
	}

	type result struct {
		path string
		rec  storage.UsesRecord
		uses map[storage.UseTarget][]storage.Use
	}
	results := make(chan result, resultsAhead)
	next := make(chan string)
	var wg sync.WaitGroup
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	cache := newPassCache(w.view, len(w.view.Files()))
	// Workers stop giving way once every file is handed out: one waiting
	// for queries to end would hold up the end of the pass.
	fed, stopYield := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-fed:
		}
		close(stopYield)
	}()
	for worker := range workers {
		wg.Go(func() {
			ords := map[string][]int32{}
			var pause func()
			if yield {
				pause = newPassYield(w.view, stopYield, worker).pause
			}
			for {
				if pause != nil {
					pause()
				}
				p, ok := <-next
				if !ok {
					return
				}
				r := cache.resolver()
				if len(ords) > passBudget.ordinals {
					ords = map[string][]int32{}
				}
				// The file itself is read whole, the others' declarations
				// tables only (see passCache.file).
				f := w.view.peek(p)
				results <- result{p, fileRecord(f), fileUses(cache, r, f, ords, pause)}
			}
		})
	}
	go func() {
		defer close(fed)
		defer close(next)
		todo := make(map[string]bool, len(paths))
		for _, p := range paths {
			todo[p] = true
		}
		for i := 0; len(todo) > 0; {
			// The files queries asked about first, then the rest in order.
			p, ok := u.takeWanted(todo)
			for !ok && i < len(paths) {
				p, ok = paths[i], todo[paths[i]]
				i++
			}
			if !ok {
				return
			}
			delete(todo, p)
			if passPicked != nil {
				passPicked(p)
			}
			if ctx.Err() != nil {
				return // a stopped pass hands out no more files
			}
			select {
			case next <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	var err error
	done := 0
	var pending []string // written to the batch, not yet flushed
	flushed := func() {
		if partial == nil {
			return
		}
		// Copied on write: queries read the map they were given unlocked.
		done := maps.Clone(partial.done)
		for _, p := range pending {
			done[p] = true
		}
		u.mu.Lock()
		partial.done = done
		u.mu.Unlock()
		pending = pending[:0]
	}
	wr := w.Index.NewUsesWriter()
	released := time.Now()
	for res := range results {
		if time.Since(released) > time.Second {
			// The pass reads every file's facts through the value log's
			// mapped pages: given back as the server's ticker does, also
			// for `kast index --references`, whose RSS reached 1.13 GB at
			// 10 M lines without it.
			released = time.Now()
			w.ReleaseMappedPages()
		}
		if err != nil || res.rec.Hash == "" {
			continue // not indexed (removed meanwhile): the next check sees it
		}
		err = wr.Put(res.path, res.rec, res.uses)
		pending = append(pending, res.path)
		if done++; done%usesPerFlush == 0 && err == nil {
			if err = wr.Flush(); err == nil {
				flushed()
			}
			wr = w.Index.NewUsesWriter()
		}
		if progress != nil {
			progress(done, len(paths))
		}
	}
	if ferr := wr.Flush(); err == nil {
		if err = ferr; err == nil {
			flushed()
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && !st.valid {
		if err = w.Index.CompleteUses(); err == nil {
			u.mu.Lock()
			u.partial = nil
			u.mu.Unlock()
		}
	}
	return done, err
}

// fileRecord describes a file's indexed content for its uses record.
func fileRecord(f *analysis.FileFacts) storage.UsesRecord {
	if f == nil {
		return storage.UsesRecord{}
	}
	return storage.UsesRecord{Hash: f.Hash, Shape: shape(f)}
}

// fileUses resolves the references of f (its whole facts) for storage,
// naming each target by its ordinal (ords memoizes them by file). Targets'
// facts are read through the pass's memo: the query cache is for queries.
func fileUses(cache *passCache, r *resolve.Resolver, f *analysis.FileFacts, ords map[string][]int32, pause func()) map[storage.UseTarget][]storage.Use {
	out := map[storage.UseTarget][]storage.Use{}
	if f == nil {
		return out
	}
	r.FileUsesOf(f, pause, func(def resolve.DefID, ref resolve.Reference) {
		o, ok := ords[def.Path]
		if !ok {
			if f := cache.file(def.Path); f != nil {
				o = ordinals(f)
			}
			ords[def.Path] = o
		}
		if int(def.Index) < len(o) && o[def.Index] >= 0 {
			t := storage.UseTarget{Path: def.Path, Ordinal: o[def.Index]}
			out[t] = append(out[t], storage.Use{Ref: ref.Ref.Index, Span: ref.Span, Role: ref.Role, Confidence: ref.Confidence, Uncertain: ref.Uncertain, Ambiguous: ref.Ambiguous})
		}
	})
	return out
}

// storedReferences answers References from the stored uses when they hold
// for this snapshot: one root, every open document as indexed. Files
// changed since the pass are resolved here, only those that may surely
// name def when certain (the stored uses of the others then hold guesses
// that the caller drops).
func (s *Snapshot) storedReferences(def resolve.DefID, certain bool) ([]resolve.Reference, bool) {
	ws := workspaceRoots(s.roots)
	if s.shared == nil || len(ws) != 1 {
		return nil, false
	}
	w := ws[0]
	f := s.File(def.Path)
	if f == nil || def.Index < 0 || int(def.Index) >= len(f.Defs) || resolve.DeclaredInBody(f, def.Index) ||
		resolve.IsPredeclared(s, def) { // not stored: navigation lists none
		return nil, false
	}
	r := s.Resolver()
	var candidates []resolve.RefID // listed once, when files are to be resolved here
	st := w.usesStatus()
	if !st.valid {
		// A full pass under way has stored the uses in the files it has
		// done: only the rest of the name's candidates are resolved here.
		done := w.partialDone()
		if done == nil {
			return nil, false
		}
		st = &usesState{gen: st.gen, epoch: st.epoch, valid: true, dirty: map[string]bool{}}
		var unresolved []string
		candidates = r.ReferenceCandidates(def, certain)
		for _, id := range candidates {
			if !done[id.Path] && !st.dirty[id.Path] {
				st.dirty[id.Path] = true
				unresolved = append(unresolved, id.Path)
			}
		}
		w.uses.want(unresolved)
	}
	ord := ordinals(f)[def.Index]
	hits, err := w.Index.UsesOf(storage.UseTarget{Path: def.Path, Ordinal: ord})
	if err != nil {
		w.view.log.Warn("reading stored uses failed", "err", err)
		return nil, false
	}
	out := make([]resolve.Reference, 0, len(hits))
	for _, h := range hits {
		if !st.dirty[h.Path] {
			out = append(out, resolve.Reference{Ref: resolve.RefID{Path: h.Path, Index: h.Ref}, Span: h.Span, Role: h.Role,
				Confidence: h.Confidence, Uncertain: h.Uncertain, Ambiguous: h.Ambiguous})
		}
	}
	if len(st.dirty) > 0 {
		if candidates == nil {
			candidates = r.ReferenceCandidates(def, certain)
		}
		var dirty []resolve.RefID
		for _, id := range candidates {
			if st.dirty[id.Path] {
				dirty = append(dirty, id)
			}
		}
		out = append(out, s.referencesAmong(def, dirty, false)...)
	}
	slices.SortFunc(out, func(a, b resolve.Reference) int {
		return cmp.Or(cmp.Compare(a.Ref.Path, b.Ref.Path), cmp.Compare(a.Ref.Index, b.Ref.Index))
	})
	return out, true
}
