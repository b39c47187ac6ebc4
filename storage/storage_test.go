package storage

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

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
