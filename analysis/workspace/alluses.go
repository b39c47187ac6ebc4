package workspace

import (
	"context"
	"slices"

	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
)

// EachUse calls use for every use of every definition visible beyond a
// body, across the snapshot's files: what References counts, for the whole
// workspace at once (a reference graph). When the stored uses hold it reads
// them in one scan and resolves only the files changed since the pass;
// otherwise it resolves every file. progress, which may be nil, hears of
// each file resolved. It checks ctx as it goes and returns its error once
// ctx is done.
func (s *Snapshot) EachUse(ctx context.Context, progress func(done, total int), use func(def resolve.DefID, ref resolve.Reference)) error {
	paths := s.Files()
	if w, st := s.heldUses(); st != nil {
		if err := s.eachStoredUse(ctx, w, st, use); err != nil {
			return err
		}
		paths = paths[:0:0]
		for p := range st.dirty {
			paths = append(paths, p)
		}
		slices.Sort(paths)
	}
	r := s.Resolver()
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.FileUses(p, use)
		if progress != nil {
			progress(i+1, len(paths))
		}
	}
	return ctx.Err()
}

// heldUses returns the snapshot's one workspace and the state of its
// stored uses when they answer for this snapshot (as storedReferences
// requires: one root, every open document as indexed), else nil.
func (s *Snapshot) heldUses() (*Workspace, *usesState) {
	ws := workspaceRoots(s.roots)
	if s.shared == nil || len(ws) != 1 {
		return nil, nil
	}
	w := ws[0]
	if st := w.usesStatus(); st.valid {
		return w, st
	}
	return nil, nil
}

// eachStoredUse calls use for every stored use, but those in the files
// changed since they were resolved.
func (s *Snapshot) eachStoredUse(ctx context.Context, w *Workspace, st *usesState, use func(def resolve.DefID, ref resolve.Reference)) error {
	// Stored targets are ordinals; defs maps them back to definition
	// indexes, file by file.
	defs := map[string][]int32{}
	n := 0
	return w.Index.EachUse(func(t storage.UseTarget, h storage.UseHit) error {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n++
		if st.dirty[h.Path] {
			return nil
		}
		byOrdinal, ok := defs[t.Path]
		if !ok {
			if f := s.File(t.Path); f != nil {
				for i, o := range ordinals(f) {
					if o >= 0 {
						byOrdinal = append(byOrdinal, int32(i))
					}
				}
			}
			defs[t.Path] = byOrdinal
		}
		if t.Ordinal < 0 || int(t.Ordinal) >= len(byOrdinal) {
			return nil
		}
		use(resolve.DefID{Path: t.Path, Index: byOrdinal[t.Ordinal]},
			resolve.Reference{Ref: resolve.RefID{Path: h.Path, Index: h.Ref}, Span: h.Span, Role: h.Role, Confidence: h.Confidence, Uncertain: h.Uncertain, Ambiguous: h.Ambiguous})
		return nil
	})
}
