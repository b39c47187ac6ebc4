// Why one long file: these tests share the fake facts and the temporary
// index helpers, and each checks one table of the key layout.

package storage

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

func span(start, end int) analysis.Span {
	return analysis.Span{Start: start, End: end,
		StartPoint: analysis.Point{Line: start / 100, Col: start % 100},
		EndPoint:   analysis.Point{Line: end / 100, Col: end % 100}}
}

// fakeFacts builds facts by hand: each def is a function (a class when its name
// starts with "T"), each ref a call from the first def; "Sub<Super" in defs
// declares a class Sub with supertype Super.
func fakeFacts(src string, defs, calls []string) *analysis.FileFacts {
	f := &analysis.FileFacts{Lang: "go", Package: "p", Hash: HashContent([]byte(src)), Size: len(src), Lines: 3}
	for i, d := range defs {
		name, super, _ := strings.Cut(d, "<")
		kind := analysis.KindFunction
		if strings.HasPrefix(name, "T") || super != "" {
			kind = analysis.KindClass
		}
		f.Defs = append(f.Defs, analysis.Def{Name: name, Kind: kind, NameSpan: span(i*20, i*20+len(name)),
			FullSpan: span(i*20, i*20+15), Container: analysis.None, Scope: 0})
		if super != "" {
			f.Supertypes = append(f.Supertypes, analysis.Supertype{Def: int32(i), Name: super, Span: span(i*20+5, i*20+10)})
		}
	}
	for i, c := range calls {
		s := span(1000+i*10, 1000+i*10+len(c))
		f.Refs = append(f.Refs, analysis.Ref{Name: c, Span: s, Role: analysis.RoleCall, Scope: 0, Enclosing: 0})
		f.Calls = append(f.Calls, analysis.Call{Caller: 0, Callee: c, Site: s, Ref: int32(i)})
	}
	return f
}

func openTemp(t *testing.T, opts Options) (*Index, string) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "index")
	}
	ix, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, opts.Dir
}

func mustPut(t *testing.T, ix *Index, path string, f *analysis.FileFacts) {
	t.Helper()
	if err := ix.PutFile(path, time.Unix(1700000000, 0), f); err != nil {
		t.Fatal(err)
	}
}

// countKeys counts keys per table tag.
func countKeys(t *testing.T, ix *Index) map[byte]int {
	t.Helper()
	counts := map[byte]int{}
	err := ix.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			counts[it.Item().Key()[0]]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// fill sets every field reachable from v to a distinct non-zero value.
func fill(v reflect.Value, seed *int) {
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *seed))
	case reflect.Int, reflect.Int32:
		v.SetInt(int64(*seed))
	case reflect.Uint8:
		v.SetUint(uint64(*seed % 250))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), seed)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), seed)
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func TestBlobRoundTripCoversEveryField(t *testing.T) {
	var f analysis.FileFacts
	seed := 0
	fill(reflect.ValueOf(&f).Elem(), &seed)
	f.Defs[0].Container = analysis.None
	got, err := decodeFacts(encodeFacts(&f))
	if err != nil {
		t.Fatal(err)
	}
	got.Path, got.Hash = f.Path, f.Hash // not part of the blob
	if !reflect.DeepEqual(got, &f) {
		t.Errorf("round trip lost data:\n got %+v\nwant %+v", got, &f)
	}
	if _, err := decodeFacts(encodeFacts(&f)[:20]); err == nil {
		t.Error("truncated blob decoded without error")
	}
	// The definitions alone: the same, without what follows them.
	defs, err := decodeFactsUpTo(encodeFacts(&f), true)
	if err != nil {
		t.Fatal(err)
	}
	want := analysis.FileFacts{Lang: f.Lang, Package: f.Package, Size: f.Size, Lines: f.Lines, ASCII: f.ASCII, Defs: f.Defs}
	if !reflect.DeepEqual(defs, &want) {
		t.Errorf("definitions alone:\n got %+v\nwant %+v", defs, &want)
	}
}

func TestPutAndQuery(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	f := fakeFacts("a", []string{"Main", "Shape", "Circle<Shape"}, []string{"helper", "helper", "Shape"})
	mustPut(t, ix, "/w/a.go", f)

	st, ok, err := ix.File("/w/a.go")
	if err != nil || !ok {
		t.Fatalf("File: %v %v", ok, err)
	}
	want := FileState{Path: "/w/a.go", Lang: "go", Package: "p", Size: 1, ModTime: time.Unix(1700000000, 0), Hash: f.Hash,
		Lines: 3, Defs: 3, Refs: 3}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("File = %+v, want %+v", st, want)
	}

	got, err := ix.Facts("/w/a.go")
	if err != nil {
		t.Fatal(err)
	}
	f.Path = "/w/a.go"
	if !reflect.DeepEqual(got, f) {
		t.Errorf("Facts = %+v, want %+v", got, f)
	}
	if d, err := ix.Defs("/w/a.go"); err != nil || d.Path != f.Path || !reflect.DeepEqual(d.Defs, f.Defs) || d.Refs != nil {
		t.Errorf("Defs = %+v, %v; want the definitions of %+v alone", d, err, f)
	}

	defs, err := ix.DefsNamed("Circle")
	if err != nil {
		t.Fatal(err)
	}
	wantDef := DefHit{Path: "/w/a.go", Lang: "go", Index: 2, Name: "Circle", Kind: analysis.KindClass,
		NameSpan: f.Defs[2].NameSpan, FullSpan: f.Defs[2].FullSpan}
	if len(defs) != 1 || defs[0] != wantDef {
		t.Errorf("DefsNamed(Circle) = %+v, want [%+v]", defs, wantDef)
	}

	refs, err := ix.RefsNamed("helper")
	if err != nil {
		t.Fatal(err)
	}
	wantRefs := []RefHit{{Path: "/w/a.go", Lang: "go", Index: 0, Name: "helper", Role: analysis.RoleCall},
		{Path: "/w/a.go", Lang: "go", Index: 1, Name: "helper", Role: analysis.RoleCall}}
	if !reflect.DeepEqual(refs, wantRefs) {
		t.Errorf("RefsNamed(helper) = %+v, want %+v", refs, wantRefs)
	}

	calls, err := ix.Callers("helper")
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].CallerName != "Main" || calls[0].CallerKind != analysis.KindFunction ||
		calls[0].Site != f.Calls[0].Site || calls[0].CallerSpan != f.Defs[0].NameSpan {
		t.Errorf("Callers(helper) = %+v", calls)
	}

	subs, err := ix.Subtypes("Shape")
	if err != nil {
		t.Fatal(err)
	}
	wantEdge := TypeEdge{Path: "/w/a.go", Lang: "go", Index: 0, Sub: "Circle", SubIndex: 2, SubKind: analysis.KindClass,
		SubSpan: f.Defs[2].NameSpan, Super: "Shape", SuperSpan: f.Supertypes[0].Span}
	if len(subs) != 1 || subs[0] != wantEdge {
		t.Errorf("Subtypes(Shape) = %+v, want [%+v]", subs, wantEdge)
	}
	supers, err := ix.Supertypes("Circle")
	if err != nil {
		t.Fatal(err)
	}
	if len(supers) != 1 || supers[0] != wantEdge {
		t.Errorf("Supertypes(Circle) = %+v, want [%+v]", supers, wantEdge)
	}

	if none, err := ix.DefsNamed("circle"); err != nil || len(none) != 0 {
		t.Errorf("DefsNamed is case-sensitive, got %+v %v", none, err)
	}
	stats, err := ix.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if stats.Files != 1 || stats.Defs != 3 || stats.Refs != 3 || stats.Lines != 3 || stats.Bytes != 1 {
		t.Errorf("Stats = %+v", stats)
	}
}

func TestReindexDeletesExactlyOldKeys(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	mustPut(t, ix, "/w/other.go", fakeFacts("other", []string{"Keep", "Shared"}, []string{"x"}))
	base := countKeys(t, ix)

	mustPut(t, ix, "/w/a.go", fakeFacts("v1", []string{"Alpha", "Shared", "Sub<Base"}, []string{"f", "g", "g"}))
	v1 := countKeys(t, ix)
	// Alpha, Shared, Sub defs; f, g refs (calls have no table of their own);
	// Sub→Base edge in both tables.
	wantAdded := map[byte]int{tagDef: 3, tagRef: 2, tagSuper: 1, tagSub: 1, tagReverse: 1,
		tagFile: 1, tagPath: 1, tagBlob: 1, tagDecls: 1, tagBlobUser: 1}
	for tag, n := range wantAdded {
		if got := v1[tag] - base[tag]; got != n {
			t.Errorf("after first put, table %c grew by %d, want %d", tag, got, n)
		}
	}

	mustPut(t, ix, "/w/a.go", fakeFacts("v2", []string{"Beta"}, []string{"g"}))
	v2 := countKeys(t, ix)
	wantNow := map[byte]int{tagDef: 1, tagRef: 1, tagSuper: 0, tagSub: 0, tagReverse: 1,
		tagFile: 1, tagPath: 1, tagBlob: 1, tagDecls: 1, tagBlobUser: 1}
	for tag, n := range wantNow {
		if got := v2[tag] - base[tag]; got != n {
			t.Errorf("after reindex, table %c holds %d keys for a.go, want %d", tag, got, n)
		}
	}
	for _, name := range []string{"Alpha", "Sub"} {
		if hits, _ := ix.DefsNamed(name); len(hits) != 0 {
			t.Errorf("stale def %s survived reindex: %+v", name, hits)
		}
	}
	if hits, _ := ix.DefsNamed("Shared"); len(hits) != 1 || hits[0].Path != "/w/other.go" {
		t.Errorf("DefsNamed(Shared) = %+v, want only other.go", hits)
	}

	if err := ix.RemoveFile("/w/a.go"); err != nil {
		t.Fatal(err)
	}
	after := countKeys(t, ix)
	for _, tag := range []byte{tagDef, tagRef, tagSuper, tagSub, tagReverse, tagFile, tagPath, tagBlob, tagDecls, tagBlobUser} {
		if after[tag] != base[tag] {
			t.Errorf("after remove, table %c has %d keys, want %d", tag, after[tag], base[tag])
		}
	}
}

func TestContentHashReuse(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	same := fakeFacts("same content", []string{"Dup"}, nil)
	mustPut(t, ix, "/w/a.go", same)
	mustPut(t, ix, "/w/copy/a.go", same)
	if n := countKeys(t, ix)[tagBlob]; n != 1 {
		t.Fatalf("two files with equal content store %d blobs, want 1", n)
	}
	got, err := ix.Facts("/w/copy/a.go")
	if err != nil || got.Path != "/w/copy/a.go" || len(got.Defs) != 1 {
		t.Fatalf("Facts via shared blob = %+v, %v", got, err)
	}
	if hits, _ := ix.DefsNamed("Dup"); len(hits) != 2 {
		t.Errorf("DefsNamed(Dup) = %d hits, want one per path", len(hits))
	}

	// The blob lives while one user is left and goes with the last one.
	mustPut(t, ix, "/w/a.go", fakeFacts("edited", []string{"Dup"}, nil))
	if n := countKeys(t, ix)[tagBlob]; n != 2 {
		t.Errorf("after editing one copy: %d blobs, want 2", n)
	}
	if err := ix.RemoveFile("/w/copy/a.go"); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, ix)[tagBlob]; n != 1 {
		t.Errorf("after removing the last user of a blob: %d blobs, want 1", n)
	}
	if _, err := ix.Facts("/w/a.go"); err != nil {
		t.Errorf("Facts of the edited file: %v", err)
	}
}

func TestBatchWritesSamePathTwice(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	b := ix.NewBatch()
	for i, name := range []string{"First", "Second"} {
		if err := b.PutFile("/w/a.go", time.Unix(int64(i), 0), fakeFacts(name, []string{name}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if hits, _ := ix.DefsNamed("First"); len(hits) != 0 {
		t.Errorf("first version survived: %+v", hits)
	}
	if hits, _ := ix.DefsNamed("Second"); len(hits) != 1 {
		t.Errorf("second version missing: %+v", hits)
	}
	if err := b.PutFile("/w/b.go", time.Now(), fakeFacts("b", nil, nil)); err != errBatchDone {
		t.Errorf("write after Flush: %v, want errBatchDone", err)
	}
}

func TestNameLookups(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"HttpServer", "httpClient", "HTTPError", "parseURL", "Other"}, []string{"onlyReferenced"}))

	names := func(hits []DefHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Name)
		}
		return out
	}
	hits, err := ix.DefsWithPrefix("http", 10) // in lowercase order
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(hits), []string{"httpClient", "HTTPError", "HttpServer"}; !slices.Equal(got, want) {
		t.Errorf("DefsWithPrefix(http) = %v, want %v", got, want)
	}
	if hits, _ := ix.DefsWithPrefix("HTTP", 2); len(hits) != 2 {
		t.Errorf("DefsWithPrefix honours limit: got %d hits", len(hits))
	}
	if hits, _ := ix.DefsWithPrefix("only", 10); len(hits) != 0 {
		t.Errorf("a name with only references has no defs, got %v", names(hits))
	}

	hits, err = ix.DefsFuzzy("hs", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(hits); len(got) != 1 || got[0] != "HttpServer" {
		t.Errorf("DefsFuzzy(hs) = %v, want [HttpServer]", got)
	}
	hits, _ = ix.DefsFuzzy("purl", 10)
	if got := names(hits); len(got) != 1 || got[0] != "parseURL" {
		t.Errorf("DefsFuzzy(purl) = %v, want [parseURL]", got)
	}
	// An exact match outranks a longer name with a word-start match.
	mustPut(t, ix, "/w/b.go", fakeFacts("b", []string{"Other", "OtherThing"}, nil))
	hits, _ = ix.DefsFuzzy("other", 10)
	if got := names(hits); len(got) < 3 || got[0] != "Other" || got[len(got)-1] != "OtherThing" {
		t.Errorf("DefsFuzzy(other) = %v, want Other first", got)
	}
	// Names interned after the queries' copy of the name table was read
	// join it in order, whichever batch brings them.
	mustPut(t, ix, "/w/c.go", fakeFacts("c", []string{"HTTPAgent", "httpZ", "HttpServer"}, nil))
	hits, _ = ix.DefsWithPrefix("http", 10)
	if got, want := names(hits), []string{"HTTPAgent", "httpClient", "HTTPError", "HttpServer", "HttpServer", "httpZ"}; !slices.Equal(got, want) {
		t.Errorf("DefsWithPrefix(http) after new names = %v, want %v", got, want)
	}
}

func TestVersionMismatchRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir, BinaryVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	ix.Close()

	ix, err = Open("/w", Options{Dir: dir, BinaryVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := ix.Files(); len(files) != 1 || ix.Notice() != "" {
		t.Errorf("same version reopened: %d files, notice %q", len(files), ix.Notice())
	}
	ix.Close()

	ix, err = Open("/w", Options{Dir: dir, BinaryVersion: "2"})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if files, _ := ix.Files(); len(files) != 0 {
		t.Errorf("new version kept %d files of the old index", len(files))
	}
	if !strings.Contains(ix.Notice(), "rebuilt") || ix.InMemory() {
		t.Errorf("notice %q, in memory %v", ix.Notice(), ix.InMemory())
	}
	if _, err := os.Stat(dir + ".old"); !os.IsNotExist(err) {
		t.Errorf("an outdated index should not be kept aside: %v", err)
	}
}

func TestOpenErrorMovesAsideAndRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	ix.Close()
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("not a manifest"), 0o600); err != nil {
		t.Fatal(err)
	}

	ix, err = Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !strings.Contains(ix.Notice(), "could not be opened") {
		t.Errorf("notice %q", ix.Notice())
	}
	if files, _ := ix.Files(); len(files) != 0 {
		t.Errorf("rebuilt index has %d files", len(files))
	}
	if _, err := os.Stat(filepath.Join(dir+".old", "MANIFEST")); err != nil {
		t.Errorf("broken index not kept aside for diagnosis: %v", err)
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
}

func TestLockedIndexFallsBackToMemory(t *testing.T) {
	first, dir := openTemp(t, Options{})
	mustPut(t, first, "/w/a.go", fakeFacts("a", []string{"A"}, nil))

	second, err := Open("/w", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if !second.InMemory() || !strings.Contains(second.Notice(), "in use by another process") {
		t.Fatalf("second open: in memory %v, notice %q", second.InMemory(), second.Notice())
	}
	if !strings.Contains(second.Notice(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("notice does not name the holder: %q", second.Notice())
	}
	mustPut(t, second, "/w/b.go", fakeFacts("b", []string{"B"}, nil))
	if hits, _ := second.DefsNamed("B"); len(hits) != 1 {
		t.Errorf("in-memory index does not work: %+v", hits)
	}
	if hits, _ := first.DefsNamed("B"); len(hits) != 0 {
		t.Errorf("in-memory writes leaked into the locked index")
	}
	if _, err := os.Stat(dir + ".old"); !os.IsNotExist(err) {
		t.Errorf("a locked index must not be moved aside: %v", err)
	}
}

func TestDefaultDir(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
	dir, err := DefaultDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != "/xdg/cache/kast" || len(filepath.Base(dir)) != 16 {
		t.Errorf("DefaultDir = %s, want /xdg/cache/kast/<16 hex digits>", dir)
	}
	if other, _ := DefaultDir(filepath.Join(root, "sub")); other == dir {
		t.Error("different roots share an index directory")
	}
	if again, _ := DefaultDir(root + "/."); again != dir {
		t.Errorf("equivalent spellings of a root differ: %s vs %s", again, dir)
	}

	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if dir, _ := DefaultDir(root); !strings.HasPrefix(dir, "/home/someone/.cache/kast/") {
		t.Errorf("without XDG_CACHE_HOME: %s", dir)
	}
}

func TestBadgerLogsGoToSlog(t *testing.T) {
	var buf strings.Builder
	l := slogLogger{slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	l.Infof("chatter %d\n", 1)
	l.Warningf("disk %s\n", "slow")
	if got := buf.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, `msg="disk slow"`) || strings.Contains(got, "chatter") {
		t.Errorf("slog output %q", got)
	}
}

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

// sortLoads orders by table and name, then arrival, both ways.
func TestSortLoads(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var loads []postingLoad
	for i := range 1000 {
		tag := []byte{tagDef, tagRef, tagSub, tagSuper}[rng.IntN(4)]
		loads = append(loads, postingLoad{tagName: uint64(tag)<<32 | uint64(rng.IntN(50)), fileID: uint32(i)})
	}
	want := slices.Clone(loads)
	slices.SortStableFunc(want, func(x, y postingLoad) int { return cmp.Compare(x.tagName, y.tagName) })
	for _, packed := range []int{1 << 24, 10} {
		got := sortLoads(slices.Clone(loads), packed)
		if !slices.EqualFunc(got, want, func(x, y postingLoad) bool { return x.tagName == y.tagName && x.fileID == y.fileID }) {
			t.Errorf("packed limit %d: wrong order", packed)
		}
	}
}

// What the opener's FileLocal marks stays out of the name tables; the facts
// keep it, and unmarked entries are found by name as before.
func TestFileLocalEntriesStayOutOfNameTables(t *testing.T) {
	local := func(f *analysis.FileFacts) (defs, refs []bool) {
		defs, refs = make([]bool, len(f.Defs)), make([]bool, len(f.Refs))
		defs[1], refs[0] = true, true // "Shape" and the first "helper"
		return defs, refs
	}
	ix, _ := openTemp(t, Options{FileLocal: local})
	f := fakeFacts("a", []string{"Main", "Shape"}, []string{"helper", "helper"})
	f.Refs[1].Name = "other"
	mustPut(t, ix, "/w/a.go", f)
	if defs, err := ix.DefsNamed("Shape"); err != nil || len(defs) != 0 {
		t.Errorf("DefsNamed(Shape) = %+v, %v; want none: it is file-local", defs, err)
	}
	if defs, err := ix.DefsNamed("Main"); err != nil || len(defs) != 1 {
		t.Errorf("DefsNamed(Main) = %+v, %v; want one", defs, err)
	}
	if refs, err := ix.RefsNamed("helper"); err != nil || len(refs) != 0 {
		t.Errorf("RefsNamed(helper) = %+v, %v; want none: it is file-local", refs, err)
	}
	if refs, err := ix.RefsNamed("other"); err != nil || len(refs) != 1 {
		t.Errorf("RefsNamed(other) = %+v, %v; want one", refs, err)
	}
	if got, err := ix.Facts("/w/a.go"); err != nil || len(got.Defs) != 2 || len(got.Refs) != 2 {
		t.Errorf("Facts lost file-local entries: %+v, %v", got, err)
	}
}
