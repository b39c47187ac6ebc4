package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A file a reference query asked about is resolved before the others: a
// pass stopped after its first file has stored the wanted one.
func TestPassTakesWantedFilesFirst(t *testing.T) {
	root := t.TempDir()
	var last string
	for i := range 30 {
		last = filepath.Join(root, fmt.Sprintf("f%02d.go", i))
		src := fmt.Sprintf("package p\n\nfunc F%d() int { return F%d() }\n", i, (i+1)%30)
		if err := os.WriteFile(last, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := openRefreshed(t, root, Options{InMemory: true})
	ws.uses.want([]string{last})
	ctx, cancel := context.WithCancel(context.Background())
	// Stopped as it picks its second file: results are buffered, so a
	// stop on the first stored one could come after every file was done.
	picks := 0
	passPicked = func(string) {
		if picks++; picks == 2 {
			cancel()
		}
	}
	t.Cleanup(func() { passPicked = nil })
	n, _ := ws.ResolveUsesInBackground(ctx, 1, nil)
	cancel()
	done := ws.partialDone()
	if n >= 30 || done == nil {
		t.Fatalf("the pass was not stopped part way: %d files, partial %v", n, done != nil)
	}
	if !done[last] {
		t.Errorf("the wanted file %s was not among the %d resolved first", filepath.Base(last), len(done))
	}
}

// A file opened while a pass runs is resolved next, then the rest of its
// folder, before the files queued ahead of them.
func TestPassTakesOpenedFilesFirst(t *testing.T) {
	root := t.TempDir()
	write := func(dir string, n int) []string {
		var paths []string
		for i := range n {
			p := filepath.Join(root, dir, fmt.Sprintf("f%02d.go", i))
			src := fmt.Sprintf("package %s\n\nfunc F%d() int { return F%d() }\n", dir, i, (i+1)%n)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		return paths
	}
	ahead := write("a", 40)
	opened := write("b", 5)
	ws := openRefreshed(t, root, Options{InMemory: true})
	var order []string
	passPicked = func(p string) {
		if len(order) == 0 {
			ws.Prioritize([]string{opened[3]}) // the editor opens b/f03.go
		}
		order = append(order, p)
	}
	t.Cleanup(func() { passPicked = nil })
	if _, err := ws.ResolveUses(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	if len(order) != len(ahead)+len(opened) {
		t.Fatalf("the pass took %d files, want %d", len(order), len(ahead)+len(opened))
	}
	if queued := slices.Index(ws.view.Files(), opened[3]); queued < 2 {
		t.Fatalf("the opened file is %dth in the pass's own order: the test shows nothing", queued+1)
	}
	if order[1] != opened[3] {
		t.Errorf("second file %s, want the opened %s", order[1], opened[3])
	}
	for _, p := range order[2:6] {
		if filepath.Dir(p) != filepath.Dir(opened[3]) {
			t.Errorf("files 3–6 are %v, want the rest of the opened file's folder", order[2:6])
			break
		}
	}
}

// A pass takes a folder's files together, not split around its
// subfolders' files as path order has them (a/b.go, a/b/c.go, a/c.go):
// what one package's resolution reads stays in the pass's memos.
func TestPassTakesAFoldersFilesTogether(t *testing.T) {
	root := t.TempDir()
	var files []string
	for _, name := range []string{"a/b.go", "a/b/c.go", "a/b/d.go", "a/c.go", "a/d.go", "e.go"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		pkg := filepath.Base(filepath.Dir(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package "+pkg+"\n\nfunc F() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	ws := openRefreshed(t, root, Options{InMemory: true})
	if !slices.Equal(ws.view.Files(), files) {
		t.Fatalf("indexed %v, want %v in path order: the test shows nothing", ws.view.Files(), files)
	}
	var order []string
	passPicked = func(p string) { order = append(order, p) }
	t.Cleanup(func() { passPicked = nil })
	if _, err := ws.ResolveUses(context.Background(), 1, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{files[5], files[0], files[3], files[4], files[1], files[2]} // the root's, a's, then a/b's
	if !slices.Equal(order, want) {
		t.Errorf("the pass took\n %v\nwant\n %v", order, want)
	}
}

// filesIn finds a folder's own files among sorted paths, not its
// subfolders'.
func TestFilesInFolder(t *testing.T) {
	sep := string(filepath.Separator)
	j := func(parts ...string) string { return strings.Join(parts, sep) }
	sorted := []string{j("r", "a", "b.go"), j("r", "a", "b", "x.go"), j("r", "a", "b", "y", "z.go"), j("r", "a", "b0.go"),
		j("r", "a", "c.go"), j("r", "ab", "d.go")}
	slices.Sort(sorted)
	got := filesIn(sorted, j("r", "a"), 10)
	want := []string{j("r", "a", "b.go"), j("r", "a", "b0.go"), j("r", "a", "c.go")}
	if !slices.Equal(got, want) {
		t.Errorf("filesIn(r/a) = %v, want %v", got, want)
	}
	if got := filesIn(sorted, j("r", "a"), 2); len(got) != 2 {
		t.Errorf("filesIn with a limit of 2 = %v", got)
	}
}
