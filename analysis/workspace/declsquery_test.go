package workspace_test

import (
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// A reference query's own resolution, crossing into other files through
// their declarations tables and reading whole only the files it resolves,
// finds for every definition what resolving each candidate with whole
// facts finds. The settled fixture holds a method on a value a function of
// another package returns, a field promoted through embedding, an
// interface method, dot and renamed imports and shadowing names; the
// resolution fixtures the rest. Each definition is asked twice of one
// snapshot, so that the second answer starts from a memo holding tables
// and whole facts of the files earlier queries crossed into and resolved.
func TestDeclsReferencesEqualResolvingEach(t *testing.T) {
	check := func(t *testing.T, ar *txtar.Archive) {
		snap, wholeSnap, whole := declsAndWhole(t, ar)
		withRefs := 0
		for round := range 2 {
			for _, p := range wholeSnap.Files() {
				for i, d := range wholeSnap.File(p).Defs {
					def := resolve.DefID{Path: p, Index: int32(i)}
					ids, want := resolvingEach(whole, def)
					got := snap.ReferencesAmongDecls(def, ids)
					if !slices.Equal(referenceKeys(got), referenceKeys(want)) {
						t.Errorf("round %d, references of %s#%d %s:\n got  %v\n want %v", round, p, i,
							d.Name, referenceKeys(got), referenceKeys(want))
					}
					if round == 0 && len(want) > 0 {
						withRefs++
					}
				}
			}
		}
		if withRefs == 0 {
			t.Fatal("no definition has references: the fixture tests nothing")
		}
	}
	t.Run("settled", func(t *testing.T) { check(t, txtar.Parse([]byte(settledFixture))) })
	eachResolveArchive(t, check)
}

// declsAndWhole opens an archive twice: snap over an index with a shrunk
// view cache, for the queries under test, and wholeSnap with its resolver
// over an index of their own, so that reading whole facts to resolve each
// candidate fills no cache of the first.
func declsAndWhole(t *testing.T, ar *txtar.Archive) (snap, wholeSnap *workspace.Snapshot, whole *resolve.Resolver) {
	t.Helper()
	ws, root := openArchive(t, ar)
	ws.ShrinkViewCache(t)
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	other := workspace.NewSession()
	other.AddRoot(openIndexed(t, root))
	wholeSnap = other.Snapshot(nil)
	return sess.Snapshot(nil), wholeSnap, resolve.New(wholeSnap)
}

// resolvingEach lists def's reference candidates and those of them that
// resolve to it, each resolved with whole facts.
func resolvingEach(whole *resolve.Resolver, def resolve.DefID) (ids []resolve.RefID, want []resolve.Reference) {
	ids = whole.ReferenceCandidates(def, false)
	for _, id := range ids {
		if r, ok := whole.ResolvesTo(id, def); ok {
			want = append(want, r)
		}
	}
	return ids, want
}
