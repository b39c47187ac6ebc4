package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kast-dev/kast/analysis"
)

func TestReopenedIndexKeepsNameIDs(t *testing.T) {
	ix, dir := openTemp(t, Options{})
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"Shared"}, []string{"call"}))
	ix.Close()

	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	before := countKeys(t, ix)[tagNameLower]
	mustPut(t, ix, "/w/b.go", fakeFacts("b", []string{"Shared"}, []string{"call"}))
	if after := countKeys(t, ix)[tagNameLower]; after != before {
		t.Errorf("names table grew from %d to %d: a known name was interned again", before, after)
	}
	if hits, _ := ix.DefsNamed("Shared"); len(hits) != 2 {
		t.Errorf("DefsNamed(Shared) after reopen = %+v, want both files", hits)
	}
	if hits, _ := ix.Callers("call"); len(hits) != 2 {
		t.Errorf("Callers(call) after reopen = %+v, want both files", hits)
	}
}

// A new file's postings are loaded before its final row: a query between
// the two must not list a definition whose facts it cannot read yet (the
// resolver dereferenced them, and a cold start crashed).
func TestPostingsOfFilesNotCompleteAreNotListed(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	var during []DefHit
	var duringErr error
	beforeCompleting = func() error {
		during, duringErr = ix.DefsNamed("Fresh")
		return nil
	}
	b := ix.NewBatch()
	if err := b.PutFile("/w/new.go", time.Unix(1, 0), fakeFacts("new", []string{"Fresh"}, nil)); err != nil {
		t.Fatal(err)
	}
	err := b.Flush()
	beforeCompleting = nil
	if err != nil {
		t.Fatal(err)
	}
	if duringErr != nil || len(during) != 0 {
		t.Errorf("DefsNamed(Fresh) before the file's row was complete = %v, %v; want none", during, duringErr)
	}
	defs, err := ix.DefsNamed("Fresh")
	if err != nil || len(defs) != 1 {
		t.Fatalf("DefsNamed(Fresh) once written = %v, %v; want one", defs, err)
	}
	if _, err := ix.Facts(defs[0].Path); err != nil {
		t.Errorf("a listed definition's facts: %v", err)
	}
}

// A batch that fails after loading the postings of new files but before
// their final rows leaves them Incomplete, each posting listed in its
// reverse index; writing them again, as the indexer does, completes them.
func TestInterruptedPostingLoadIsRepaired(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	mustPut(t, ix, "/w/old.go", fakeFacts("old", []string{"Keep"}, []string{"helper"}))

	beforeCompleting = func() error { return errors.New("killed") }
	b := ix.NewBatch()
	for i, name := range []string{"a", "b", "c"} {
		facts := fakeFacts(name, []string{"Shape", "Fresh" + name}, []string{"helper", "Keep"})
		if err := b.PutFile(fmt.Sprintf("/w/%s.go", name), time.Unix(int64(i), 0), facts); err != nil {
			t.Fatal(err)
		}
	}
	err := b.Flush()
	beforeCompleting = nil
	if err == nil {
		t.Fatal("the batch succeeded through a failed load")
	}

	incomplete := checkConsistent(t, ix)
	slices.Sort(incomplete)
	if want := []string{"/w/a.go", "/w/b.go", "/w/c.go"}; !slices.Equal(incomplete, want) {
		t.Fatalf("incomplete after the interrupted load: %v, want %v", incomplete, want)
	}
	if refs, err := ix.RefsNamed("helper"); err != nil || len(refs) == 0 {
		t.Fatalf("RefsNamed(helper) = %v, %v: the loaded postings should be stored", refs, err)
	}

	for _, name := range []string{"a", "b", "c"} {
		mustPut(t, ix, fmt.Sprintf("/w/%s.go", name), fakeFacts(name+" edited", []string{"Shape"}, []string{"helper"}))
	}
	if left := checkConsistent(t, ix); len(left) != 0 {
		t.Fatalf("still incomplete after rewriting: %v", left)
	}
	if defs, err := ix.DefsNamed("Freshb"); err != nil || len(defs) != 0 {
		t.Errorf("DefsNamed(Freshb) = %v, %v: the rewrite should drop the interrupted write's postings", defs, err)
	}
	if defs, err := ix.DefsNamed("Shape"); err != nil || len(defs) != 3 {
		t.Errorf("DefsNamed(Shape) = %d definitions, %v; want 3", len(defs), err)
	}
	if refs, err := ix.RefsNamed("helper"); err != nil || len(refs) != 4 {
		t.Errorf("RefsNamed(helper) = %d references, %v; want 4", len(refs), err)
	}
}

// A new name's row waits for the sorted load with the postings of the new
// file that introduced it, unless a file whose postings the batch commits
// itself uses the name too: then the row must be committed with the batch,
// or a load that never happens would leave that file's posting nameless.
func TestDeferredNameUsedByRewrittenFile(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	mustPut(t, ix, "/w/old.go", fakeFacts("old", []string{"Keep"}, []string{"helper"}))

	beforeLoading = func() error { return errors.New("killed") }
	b := ix.NewBatch()
	// new.go is new: its postings, and the row of the new name Shared,
	// wait for the load. old.go has postings already: its new ones,
	// Shared's among them, are committed with the batch.
	if err := b.PutFile("/w/new.go", time.Unix(1, 0), fakeFacts("new", []string{"Fresh"}, []string{"Shared"})); err != nil {
		t.Fatal(err)
	}
	if err := b.PutFile("/w/old.go", time.Unix(2, 0), fakeFacts("old2", []string{"Keep"}, []string{"Shared"})); err != nil {
		t.Fatal(err)
	}
	err := b.Flush()
	beforeLoading = nil
	if err == nil {
		t.Fatal("the batch succeeded without its load")
	}
	if incomplete := checkConsistent(t, ix); !slices.Equal(incomplete, []string{"/w/new.go"}) {
		t.Fatalf("incomplete after the lost load: %v, want only /w/new.go", incomplete)
	}
	refs, err := ix.RefsNamed("Shared")
	if err != nil || len(refs) != 1 || refs[0].Path != "/w/old.go" {
		t.Fatalf("RefsNamed(Shared) = %+v, %v: old.go's reference must be found", refs, err)
	}
	mustPut(t, ix, "/w/new.go", fakeFacts("new", []string{"Fresh"}, []string{"Shared"}))
	if left := checkConsistent(t, ix); len(left) != 0 {
		t.Fatalf("still incomplete after rewriting: %v", left)
	}
	if refs, err := ix.RefsNamed("Shared"); err != nil || len(refs) != 2 {
		t.Errorf("RefsNamed(Shared) = %+v, %v; want both files", refs, err)
	}
}

// An in-memory index stores blobs of every size: badger's in-memory mode
// refuses values above its value threshold, so the large ones live beside it.
func TestInMemoryIndexStoresLargeBlobs(t *testing.T) {
	ix, err := Open("/w", Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("N%x", rng.Uint64()) // random, so the blob does not compress away
		}
		return out
	}
	files := map[string]*analysis.FileFacts{
		"/w/medium.go": fakeFacts("medium", names(200), names(400)),  // tens of KB
		"/w/big.go":    fakeFacts("big", names(20000), names(60000)), // megabytes
		"/w/small.go":  fakeFacts("small", []string{"Shape"}, []string{"helper"}),
	}
	for path, f := range files {
		mustPut(t, ix, path, f)
	}
	if n := len(ix.current().big.m); n != 1 {
		t.Fatalf("%d blobs kept beside the database, want the big one", n)
	}
	for path, want := range files {
		got, err := ix.Facts(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(got.Defs) != len(want.Defs) || len(got.Refs) != len(want.Refs) || got.Defs[len(got.Defs)-1].Name != want.Defs[len(want.Defs)-1].Name {
			t.Errorf("%s: %d defs and %d refs back, want %d and %d", path, len(got.Defs), len(got.Refs), len(want.Defs), len(want.Refs))
		}
		if _, ok, err := ix.FactsByHash(want.Hash, want.Lang); !ok || err != nil {
			t.Errorf("%s: FactsByHash: %v %v", path, ok, err)
		}
	}
	if calls, err := ix.Callers(files["/w/big.go"].Calls[0].Callee); err != nil || len(calls) == 0 {
		t.Errorf("Callers through the big blob: %v, %v", calls, err)
	}
	// Replaced, the big blob loses its only user and goes.
	mustPut(t, ix, "/w/big.go", fakeFacts("big, edited", []string{"Shape"}, []string{"helper"}))
	if n := len(ix.current().big.m); n != 0 {
		t.Errorf("%d big blobs left after their file was replaced", n)
	}
}

// The name cache and table outlive the files they came from: their names
// must not be substrings that keep a whole file's text alive.
func TestInternedNamesDoNotPinFileTexts(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	text := strings.Repeat("x", 1<<20) + " helperFunc OtherType callee "
	name := func(s string) string { i := strings.Index(text, s); return text[i : i+len(s)] }
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{name("helperFunc"), name("OtherType")}, []string{name("callee")}))
	inText := func(s string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
		return p >= lo && p < lo+uintptr(len(text))
	}
	checked := 0
	for n := range ix.names {
		if inText(n) {
			t.Errorf("cached name %q points into the file's text", n)
		}
		checked++
	}
	for _, n := range ix.nameList.pending {
		if inText(n.name) {
			t.Errorf("name table entry %q points into the file's text", n.name)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d names to check", checked)
	}
}
