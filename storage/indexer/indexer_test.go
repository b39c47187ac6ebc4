package indexer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/storage"
	"github.com/kast-dev/kast/storage/scan"
)

// fakeExtractor understands a toy language, one statement per line:
// "def F", "class C : Super" and "call G". "panic" panics and "broken" fails.
// It records which paths it extracted.
type fakeExtractor struct {
	mu    sync.Mutex
	paths []string
	delay time.Duration

	running, maxRunning atomic.Int32
	bigRunning, maxBig  atomic.Int32 // extractions of files over bigFile
	hugeRunning         atomic.Int32 // extractions of files over parseBytes
	besideHuge          atomic.Int32 // small files extracted while a huge one was
}

func (x *fakeExtractor) extract(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
	if n := x.running.Add(1); n > x.maxRunning.Load() {
		x.maxRunning.Store(n)
	}
	defer x.running.Add(-1)
	if len(src) > bigFile {
		if n := x.bigRunning.Add(1); n > x.maxBig.Load() {
			x.maxBig.Store(n)
		}
		defer x.bigRunning.Add(-1)
	} else if x.hugeRunning.Load() > 0 {
		x.besideHuge.Add(1)
	}
	if len(src) > parseBytes {
		x.hugeRunning.Add(1)
		defer x.hugeRunning.Add(-1)
	}
	time.Sleep(x.delay)
	x.mu.Lock()
	x.paths = append(x.paths, filepath.Base(path))
	x.mu.Unlock()

	f := &analysis.FileFacts{Lang: "toy"}
	sc := bufio.NewScanner(bytes.NewReader(src))
	offset := 0
	for line := 0; sc.Scan(); line++ {
		text := sc.Text()
		fields := strings.Fields(text)
		at := func(i int) analysis.Span {
			col := strings.Index(text, fields[i])
			return analysis.Span{Start: offset + col, End: offset + col + len(fields[i]),
				StartPoint: analysis.Point{Line: line, Col: col}, EndPoint: analysis.Point{Line: line, Col: col + len(fields[i])}}
		}
		switch {
		case len(fields) == 0:
		case fields[0] == "panic":
			panic("toy extractor panic")
		case fields[0] == "broken":
			return nil, errors.New("syntax error")
		case fields[0] == "def" || fields[0] == "class":
			kind := analysis.KindFunction
			if fields[0] == "class" {
				kind = analysis.KindClass
			}
			f.Defs = append(f.Defs, analysis.Def{Name: fields[1], Kind: kind, NameSpan: at(1), FullSpan: at(0), Container: analysis.None})
			if len(fields) == 4 && fields[2] == ":" {
				f.Supertypes = append(f.Supertypes, analysis.Supertype{Def: int32(len(f.Defs) - 1), Name: fields[3], Span: at(3)})
				f.Refs = append(f.Refs, analysis.Ref{Name: fields[3], Span: at(3), Role: analysis.RoleInheritance, Enclosing: analysis.None})
			}
		case fields[0] == "call":
			caller := int32(len(f.Defs) - 1)
			f.Refs = append(f.Refs, analysis.Ref{Name: fields[1], Span: at(1), Role: analysis.RoleCall, Enclosing: caller})
			f.Calls = append(f.Calls, analysis.Call{Caller: caller, Callee: fields[1], Site: at(1), Ref: int32(len(f.Refs) - 1)})
		}
		offset += len(text) + 1
	}
	return f, nil
}

func (x *fakeExtractor) take() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.paths
	x.paths = nil
	return p
}

type workspace struct {
	t    *testing.T
	root string
	ix   *storage.Index
	x    *fakeExtractor
}

func newWorkspace(t *testing.T, files map[string]string) *workspace {
	w := &workspace{t: t, root: t.TempDir(), x: &fakeExtractor{}}
	for name, content := range files {
		w.write(name, content)
	}
	ix, err := storage.Open(w.root, storage.Options{Dir: filepath.Join(t.TempDir(), "index")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	w.ix = ix
	return w
}

func (w *workspace) write(name, content string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.root, name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *workspace) run(opts Options) Totals {
	w.t.Helper()
	// As the workspace does: Run reads every file and checks it for binary content.
	res, err := scan.Walk(context.Background(), w.root, scan.Options{CallerChecksBinary: true})
	if err != nil {
		w.t.Fatal(err)
	}
	tot, err := Run(context.Background(), w.ix, res.Files, w.x.extract, opts)
	if err != nil {
		w.t.Fatal(err)
	}
	return tot
}

func (w *workspace) defsNamed(name string) []string {
	w.t.Helper()
	hits, err := w.ix.DefsNamed(name)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, filepath.Base(h.Path))
	}
	return out
}

func TestIncrementalRuns(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"a.toy": "def main\ncall helper\ncall helper\n",
		"b.toy": "def helper\nclass Circle : Shape\n",
		"c.toy": "def other",
	})
	var last Progress
	tot := w.run(Options{Progress: func(p Progress) { last = p }})
	want := Totals{Files: 3, Lines: 6, Bytes: 74, Defs: 4, Refs: 3, Extracted: 3, ReadBytes: 74}
	if tot.Elapsed <= 0 {
		t.Error("no elapsed time")
	}
	tot.Elapsed = 0
	if tot != want {
		t.Errorf("cold run: %+v\nwant %+v", tot, want)
	}
	if last != (Progress{Done: 3, Total: 3, DoneBytes: 74, TotalBytes: 74}) {
		t.Errorf("last progress %+v", last)
	}
	w.x.take()

	// Nothing changed: mtime and size decide without reading a file.
	tot = w.run(Options{})
	if tot.Unchanged != 3 || tot.Extracted+tot.Touched != 0 || len(w.x.take()) != 0 {
		t.Errorf("warm run: %+v", tot)
	}

	// Edit one file, touch another without changing it, delete the third.
	w.write("b.toy", "def helper2\n")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(w.root, "a.toy"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w.root, "c.toy")); err != nil {
		t.Fatal(err)
	}
	tot = w.run(Options{})
	if got := w.x.take(); len(got) != 1 || got[0] != "b.toy" {
		t.Errorf("extracted %v, want only b.toy", got)
	}
	if tot.Extracted != 1 || tot.Touched != 1 || tot.Removed != 1 || tot.Unchanged != 0 || tot.Files != 2 {
		t.Errorf("incremental run: %+v", tot)
	}
	if got := w.defsNamed("helper"); len(got) != 0 {
		t.Errorf("old def helper survived in %v", got)
	}
	if got := w.defsNamed("helper2"); len(got) != 1 {
		t.Errorf("new def helper2 in %v", got)
	}
	if got := w.defsNamed("other"); len(got) != 0 {
		t.Errorf("deleted file's def in %v", got)
	}
	st, ok, err := w.ix.File(filepath.Join(w.root, "a.toy"))
	if err != nil || !ok || !st.ModTime.Equal(later) {
		t.Errorf("touched file state %+v %v %v, want mtime %v", st, ok, err, later)
	}
	// The touched file's new mtime makes the next run skip it again.
	if tot = w.run(Options{}); tot.Unchanged != 2 {
		t.Errorf("after touch: %+v", tot)
	}
}

func TestRenamedContentIsReused(t *testing.T) {
	w := newWorkspace(t, map[string]string{"a.toy": "def moved\n"})
	toy := func(string) string { return "toy" }
	w.run(Options{Lang: toy})
	w.x.take()
	if err := os.Rename(filepath.Join(w.root, "a.toy"), filepath.Join(w.root, "z.toy")); err != nil {
		t.Fatal(err)
	}
	tot := w.run(Options{Lang: toy})
	if tot.Reused != 1 || tot.Extracted != 0 || tot.Removed != 1 || len(w.x.take()) != 0 {
		t.Errorf("rename: %+v", tot)
	}
	if got := w.defsNamed("moved"); len(got) != 1 || got[0] != "z.toy" {
		t.Errorf("DefsNamed(moved) = %v, want [z.toy]", got)
	}
	facts, err := w.ix.Facts(filepath.Join(w.root, "z.toy"))
	if err != nil || facts.Path != filepath.Join(w.root, "z.toy") || len(facts.Defs) != 1 {
		t.Errorf("facts after rename: %+v %v", facts, err)
	}
}

func TestBadFilesAreCountedNotFatal(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"ok.toy":     "def fine\n",
		"broken.toy": "def x\nbroken\n",
		"panic.toy":  "panic\n",
	})
	tot := w.run(Options{})
	if tot.Skipped != (Skipped{Malformed: 2}) || tot.Extracted != 1 || tot.Files != 1 {
		t.Errorf("totals %+v", tot)
	}
}

// The scan no longer opens files, so the indexer is what notices that a
// file turned binary or unreadable: it counts the file and drops its old
// facts, and leaves files it never indexed alone.
func TestFilesTurnedBinaryOrUnreadableAreRemoved(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"a.toy":     "def alpha\n",
		"b.toy":     "def beta\n",
		"c.toy":     "def gamma\n",
		"never.toy": "def never\x00\n",
	})
	if tot := w.run(Options{}); tot.Extracted != 3 || tot.Skipped != (Skipped{Binary: 1}) {
		t.Fatalf("first run: %+v", tot)
	}
	w.write("a.toy", "def alpha\x00 now binary\n")
	unreadable := os.Getuid() != 0 // root reads any file
	if unreadable {
		if err := os.Chmod(filepath.Join(w.root, "b.toy"), 0); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(w.root, "b.toy"), later, later); err != nil {
			t.Fatal(err)
		}
	}
	tot := w.run(Options{})
	want := Skipped{Binary: 2}
	removed := 1
	if unreadable {
		want.Unreadable, removed = 1, 2
	}
	if tot.Skipped != want || tot.Removed != removed || tot.Unchanged != 3-removed {
		t.Errorf("second run: %+v, want skipped %+v and %d removed", tot, want, removed)
	}
	if got := w.defsNamed("alpha"); len(got) != 0 {
		t.Errorf("the binary file's old facts survived: %v", got)
	}
	if got := w.defsNamed("beta"); unreadable == (len(got) != 0) {
		t.Errorf("DefsNamed(beta) = %v with b.toy unreadable: %v", got, unreadable)
	}
	if got := w.defsNamed("gamma"); len(got) != 1 {
		t.Errorf("the untouched file lost its facts: %v", got)
	}
}

func TestExtractionRunsInParallel(t *testing.T) {
	files := map[string]string{}
	for _, n := range strings.Split("a b c d e f g h", " ") {
		files[n+".toy"] = "def " + n + "\n"
	}
	w := newWorkspace(t, files)
	w.x.delay = 20 * time.Millisecond
	tot := w.run(Options{Workers: 4})
	if tot.Extracted != 8 || w.x.maxRunning.Load() < 2 {
		t.Errorf("extracted %d, max concurrent extractions %d", tot.Extracted, w.x.maxRunning.Load())
	}
}

// Small files are extracted beside a big one, even one over parseBytes,
// but two big files whose trees would not fit parseBytes together wait for
// each other. There are forty small files: with eight, a loaded machine
// finished all the small ones queued after the huge file while it waited
// for the other big one (CI saw none beside it).
func TestSmallFilesExtractBesideABigOne(t *testing.T) {
	files := map[string]string{
		"big1.toy": "def big1\n" + strings.Repeat("#\n", 600<<10),
		"big2.toy": "def big2\n" + strings.Repeat("#\n", 200<<10),
	}
	for i := range 40 {
		files[fmt.Sprintf("s%02d.toy", i)] = fmt.Sprintf("def s%02d\n", i)
	}
	w := newWorkspace(t, files)
	w.x.delay = 30 * time.Millisecond
	tot := w.run(Options{Workers: 3})
	if tot.Extracted != 42 || w.x.besideHuge.Load() == 0 || w.x.maxBig.Load() != 1 {
		t.Errorf("extracted %d, small files beside the one over parseBytes %d, big files at once %d; want 42, some, 1",
			tot.Extracted, w.x.besideHuge.Load(), w.x.maxBig.Load())
	}
}

func TestCancelledRunKeepsIndexConsistent(t *testing.T) {
	files := map[string]string{}
	for _, n := range strings.Split("a b c d e f g h i j k l", " ") {
		files[n+".toy"] = "def " + n + "\n"
	}
	w := newWorkspace(t, files)
	w.x.delay = 10 * time.Millisecond
	res, err := scan.Walk(context.Background(), w.root, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tot, err := Run(ctx, w.ix, res.Files, w.x.extract, Options{Workers: 1, Progress: func(p Progress) {
		if p.Done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if tot.Files < 3 || tot.Files >= 12 {
		t.Errorf("cancelled run stored %d files", tot.Files)
	}
	// The next run picks up exactly the rest.
	w.x.take()
	tot = w.run(Options{})
	if tot.Files != 12 || tot.Extracted+tot.Unchanged != 12 || len(w.x.take()) != tot.Extracted {
		t.Errorf("resumed run: %+v", tot)
	}
}
