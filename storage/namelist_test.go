package storage

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A reopened index's name table is read whole by PreloadNames, in the
// table's order, without waiting for a query; a closed one is left alone.
func TestPreloadNamesReadsTheReopenedTable(t *testing.T) {
	ix, dir := openTemp(t, Options{})
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"Zeta", "alpha", "Beta"}, []string{"gamma"}))
	ix.Close()
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.PreloadNames(); err != nil {
		t.Fatal(err)
	}
	ix.nameList.mu.Lock()
	loaded, got := ix.nameList.loaded, ix.nameList.names
	ix.nameList.mu.Unlock()
	if !loaded {
		t.Fatal("PreloadNames did not load the name table")
	}
	var list []string
	for i := range got.len() {
		n := got.at(i)
		if id, found, err := ix.lookupName(n.name); err != nil || !found || id != n.id {
			t.Errorf("name %q has id %d in the list, %d (found %v, %v) in the table", n.name, n.id, id, found, err)
		}
		list = append(list, n.name)
	}
	if !slices.IsSortedFunc(list, compareNames) || !slices.Contains(list, "alpha") || !slices.Contains(list, "gamma") {
		t.Errorf("preloaded names = %q, want the table's names in its order", list)
	}
	if hits, err := ix.DefsFuzzy("zet", 10); err != nil || len(hits) != 1 {
		t.Errorf("DefsFuzzy(zet) after the preload = %+v, %v; want Zeta", hits, err)
	}
	ix.Close()
	if err := ix.PreloadNames(); err != nil {
		t.Errorf("PreloadNames on a closed index: %v", err)
	}
}

// The names are ordered by their lowercase forms exactly as
// strings.ToLower orders them, whatever they hold: the table's keys are.
func TestCompareLowerOrdersAsToLower(t *testing.T) {
	parts := []string{"", "a", "A", "z", "Z", "_", "0", "[", "`", "é", "É", "ß", "İ", "\xff", "Σ", "σ", "ς", "ǅ"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return b.String()
	}
	for range 200000 {
		a, b := word(), word()
		if got, want := compareLower(a, b), strings.Compare(strings.ToLower(a), strings.ToLower(b)); got != want {
			t.Fatalf("compareLower(%q, %q) = %d, ToLower orders them %d", a, b, got, want)
		}
	}
}
