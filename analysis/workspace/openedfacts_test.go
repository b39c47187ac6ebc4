package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/extract"
	"github.com/kast-dev/kast/storage"
)

// unindexedFile opens a workspace holding one Go file that no refresh has
// indexed yet, as on a first open, and a session over it.
func unindexedFile(t *testing.T) (*Workspace, *Session, Doc) {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "b.go")
	src := []byte("package b\n\nfunc B() int { return c }\n\nvar c = 1\n")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(root, Options{IndexDir: filepath.Join(t.TempDir(), "index"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	sess := NewSession()
	sess.AddRoot(w)
	return w, sess, Doc{Path: w.Root + "/b.go", Version: 1, Text: src}
}

// A document closed and opened again with the same text the index does not
// hold yet keeps its facts: its first request does not parse it again (a
// 374 KB generated file took 0.5 s on each open at 10M lines).
func TestReopenedDocumentIsNotParsedAgain(t *testing.T) {
	_, sess, doc := unindexedFile(t)
	first := sess.Facts(doc)
	if first == nil || len(first.Defs) == 0 {
		t.Fatalf("no facts for %s", doc.Path)
	}
	sess.Forget(doc.Path)
	if again := sess.Facts(doc); again != first {
		t.Error("the reopened document was extracted again")
	}

	// Another text is extracted, and replaces the kept one.
	sess.Forget(doc.Path)
	edited := Doc{Path: doc.Path, Version: 2, Text: []byte("package b\n\nfunc D() {}\n")}
	if f := sess.Facts(edited); f == first || len(f.Defs) != 1 || f.Defs[0].Name != "D" {
		t.Errorf("edited text: got %+v", f)
	}
	sess.Forget(doc.Path)
	if f := sess.Facts(doc); f == first || len(f.Defs) != len(first.Defs) {
		t.Error("the first text's facts should have been replaced by the edited one's and extracted again")
	}
}

// The indexer takes the facts of a file an editor opened before the index
// reached it instead of parsing it again, as its own copy: it recycles
// what it stored, and the open document keeps reading its facts.
func TestIndexerTakesOpenedFacts(t *testing.T) {
	w, sess, doc := unindexedFile(t)
	hash := storage.HashContent(doc.Text)
	marked := &analysis.FileFacts{Path: doc.Path, Lang: "go", Package: "marked", Hash: hash, Size: len(doc.Text),
		Defs: []analysis.Def{{Name: "B"}}, Refs: []analysis.Ref{{Name: "c"}}}
	w.opened.put(doc.Path, hash, marked)
	got, err := w.extract(context.Background(), doc.Path, doc.Text)
	if err != nil || got.Package != "marked" {
		t.Fatalf("the indexer parsed the opened file again (err %v)", err)
	}
	if got == marked || &got.Defs[0] == &marked.Defs[0] || &got.Refs[0] == &marked.Refs[0] {
		t.Fatal("the indexer was handed the open document's own facts, which it recycles")
	}
	extract.Release(got)
	if marked.Defs[0].Name != "B" || marked.Refs[0].Name != "c" {
		t.Fatal("recycling the indexer's copy cleared the open document's facts")
	}
	if w.opened.get(doc.Path, hash) != nil {
		t.Error("facts handed to the indexer are kept still (the index holds them now)")
	}
	// Other text at that path is parsed.
	if got, err := w.extract(context.Background(), doc.Path, []byte("package b\n")); err != nil || got.Package != "b" {
		t.Fatalf("other text was not parsed (err %v)", err)
	}

	// End to end: the opened facts are indexed, and stay intact.
	w.opened = openedFacts{}
	opened := sess.Facts(doc)
	if _, _, err := w.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	stored, ok, err := w.Index.FactsByHash(hash, "go")
	if err != nil || !ok || len(stored.Defs) != len(opened.Defs) {
		t.Fatalf("indexed facts: %+v %v %v", stored, ok, err)
	}
	for i, d := range opened.Defs {
		if d.Name == "" || stored.Defs[i].Name != d.Name {
			t.Fatalf("def %d: open document's %q, index's %q", i, d.Name, stored.Defs[i].Name)
		}
	}
}
