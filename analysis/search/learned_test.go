package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/storage"
)

func TestMeaningTokens(t *testing.T) {
	var got []string
	meaningTokens("parseHTTPRequest converts the Files_list 42 x // Deletes entries", func(s string) { got = append(got, s) })
	want := []string{"parsehttprequest", "parse", "http", "request", "convert", "files_list", "file", "list", "delete", "entry"}
	if !slices.Equal(got, want) {
		t.Fatalf("meaningTokens = %q, want %q", got, want)
	}
}

// synonymCorpus is sentences in which "file" and "document" never meet but
// share their neighbours (open, read, save…), as do "socket" and
// "connection" (dial, send, packet…): distributional synonyms.
func synonymCorpus(sentences int) tokenStream {
	groups := []struct{ words, contexts []string }{
		{[]string{"file", "document"}, []string{"open", "read", "write", "close", "path", "save", "disk", "text"}},
		{[]string{"socket", "connection"}, []string{"dial", "send", "receive", "network", "packet", "port", "remote", "listen"}},
	}
	common := []string{"value", "result", "error", "return", "handle"}
	return func(fn func([]string)) error {
		rng := rand.New(rand.NewPCG(1, 2))
		for range sentences {
			g := groups[rng.IntN(len(groups))]
			var s []string
			for i := range 7 {
				if i == 3 {
					s = append(s, g.words[rng.IntN(len(g.words))])
				}
				s = append(s, g.contexts[rng.IntN(len(g.contexts))])
			}
			s = append(s, common[rng.IntN(len(common))])
			fn(s)
		}
		return nil
	}
}

func TestLearnedSynonymsEndUpClose(t *testing.T) {
	m, err := trainLearned(Learned{Dims: 8}, synonymCorpus(2000))
	if err != nil || m == nil {
		t.Fatalf("train: %v, %v", m, err)
	}
	same1, same2 := m.similarity("file", "document"), m.similarity("socket", "connection")
	cross1, cross2 := m.similarity("file", "socket"), m.similarity("document", "connection")
	t.Logf("file~document %.2f socket~connection %.2f file~socket %.2f document~connection %.2f", same1, same2, cross1, cross2)
	if !(same1 > cross1+0.3 && same1 > cross2+0.3 && same2 > cross1+0.3 && same2 > cross2+0.3) {
		t.Errorf("synonyms are not closer than unrelated words")
	}
	// A text about opening a document lands nearer a file than a socket.
	q := m.embed("open the document")
	if cosine(q, m.embed("read file")) <= cosine(q, m.embed("send socket")) {
		t.Errorf("composed vectors do not follow the words' meaning")
	}
}

// The randomized SVD recovers a diagonal matrix's leading directions, each
// scaled by the square root of its singular value.
func TestRandomizedSVD(t *testing.T) {
	diag := []float32{9, 4, 1, 0.25, 0.01}
	m := &csr{rows: 5, cols: 5, start: []int{0, 1, 2, 3, 4, 5}, col: []int32{0, 1, 2, 3, 4}, val: diag}
	u := randomizedSVD(m, 2, 7)
	if u.rows() != 5 || u.cols() != 2 {
		t.Fatalf("got %d×%d, want 5×2", u.rows(), u.cols())
	}
	row := make([]float64, 2)
	for i := range 5 {
		u.row(i, row)
		norm := math.Hypot(row[0], row[1])
		want := 0.0
		if i < 2 {
			want = math.Sqrt(float64(diag[i]))
		}
		if math.Abs(norm-want) > 1e-6 {
			t.Errorf("row %d has norm %.6f, want %.6f", i, norm, want)
		}
	}
}

// learnedWorkspace writes Go files in which "remove" and "delete" are used
// alike, and a target that says "delete" only.
func learnedWorkspace(t *testing.T, dir string, files int) {
	t.Helper()
	verbs := []string{"remove", "delete"}
	things := []string{"entry", "record", "item", "row", "key", "node"}
	places := []string{"cache", "table", "store", "list", "tree", "index"}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range files {
		var b strings.Builder
		b.WriteString("package p\n\n")
		for j := range 6 {
			v, th, pl := verbs[rng.IntN(2)], things[rng.IntN(len(things))], places[rng.IntN(len(places))]
			fmt.Fprintf(&b, "// %s%d is called to %s the %s from the %s, freeing the %s slot.\nfunc %s%d(%s *%s) {\n\t%s.%s(%s)\n}\n\n",
				v, j, v, th, pl, pl, v+title(th)+title(pl), i*10+j, pl, title(pl), pl, v+title(th), th)
		}
		// Unrelated code, so meaning has something to tell apart.
		fmt.Fprintf(&b, "// render%d draws the widget with its colour and font on the screen.\nfunc render%d(screen *Screen) {\n\tscreen.draw(widget, colour, font)\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// vectorsNeeded is the number of distinct chunk texts: identical chunks
// share a vector.
func vectorsNeeded(e *Engine) int {
	seen := map[uint64]bool{}
	for _, f := range e.st.files {
		for _, c := range f.chunks {
			seen[c.Hash] = true
		}
	}
	return len(seen)
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func openLearned(t *testing.T, dir string, ix *storage.Index, emb Embedder) *Engine {
	t.Helper()
	e, err := Open(dir, ix, Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLearnedEngineTrainsUpdatesAndRetrains(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	learnedWorkspace(t, dir, 30)
	os.WriteFile(filepath.Join(dir, "target.go"), []byte("package p\n\n// purgeStale deletes the stale entry from the cache.\nfunc purgeStale(c *Cache) {\n\tc.delete(entry)\n}\n"), 0o644)
	cacheDir := t.TempDir()
	ix, err := storage.Open(dir, storage.Options{Dir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	e := openLearned(t, dir, ix, nil) // the default embedder
	rep, err := e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := e.Embedder().Model()
	if !rep.Trained || !strings.HasPrefix(first, "kast-learned-v1-192-") || rep.Embedded != vectorsNeeded(e) {
		t.Fatalf("first refresh: trained %v, model %s, %d of %d chunks embedded", rep.Trained, first, rep.Embedded, rep.Chunks)
	}
	m := e.Embedder().(*learnedEmbedder).model()
	if alike, unlike := m.similarity("remove", "delete"), m.similarity("remove", "colour"); !(alike > unlike+0.3) {
		t.Errorf("remove~delete %.2f, remove~colour %.2f: the workspace's synonyms were not learned", alike, unlike)
	}
	// "remove" is not in the target, but the workspace uses it as "delete".
	hits, err := e.Semantic(ctx, RankedQuery{Query: "remove stale cache entry", TopK: 3, Threshold: -1})
	if err != nil || len(hits) == 0 || filepath.Base(hits[0].Path) != "target.go" {
		t.Fatalf("semantic: %v, %v", hits, err)
	}

	// A small change: embedded with the current model, nothing retrained.
	os.WriteFile(filepath.Join(dir, "small.go"), []byte("package p\n\n// dropRow removes a row from the table.\nfunc dropRow() {}\n"), 0o644)
	rep, err = e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Its package clause is a chunk the index already has a vector for.
	if rep.Trained || e.Embedder().Model() != first || rep.Embedded != 1 || rep.Reused == 0 {
		t.Fatalf("small change: trained %v, model %s, %d embedded, %d new, %d reused", rep.Trained, e.Embedder().Model(), rep.Embedded, rep.NewChunks, rep.Reused)
	}

	// A reopened engine reads the model from the index: same id, no work.
	ix.Close()
	if ix, err = storage.Open(dir, storage.Options{Dir: cacheDir}); err != nil {
		t.Fatal(err)
	}
	defer func() { ix.Close() }()
	e = openLearned(t, dir, ix, NewLearned())
	if st, err := e.Status(); err != nil || st.Model != first {
		t.Fatalf("reopened: model %q, %v; want %s", st.Model, err, first)
	}
	rep, err = e.Refresh(ctx, false, nil)
	if err != nil || rep.Trained || rep.Embedded != 0 || e.Embedder().Model() != first {
		t.Fatalf("reopened refresh: %+v, %v, model %s", rep, err, e.Embedder().Model())
	}

	// The vocabulary drifts: many new files retrain and re-embed everything.
	sub := filepath.Join(dir, "more")
	os.Mkdir(sub, 0o755)
	learnedWorkspace(t, sub, 20)
	rep, err = e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Trained || e.Embedder().Model() == first || rep.Embedded != vectorsNeeded(e) {
		t.Fatalf("drift: trained %v, model %s, %d of %d embedded", rep.Trained, e.Embedder().Model(), rep.Embedded, rep.Chunks)
	}
	if st, _ := e.Status(); st.Model != e.Embedder().Model() || st.Embedded != vectorsNeeded(e) {
		t.Fatalf("status after retraining: %+v", st)
	}
}

func TestLearnedModelSwitchReembeds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	learnedWorkspace(t, dir, 5)
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for i, emb := range []Embedder{NewHashed(), NewLearned(), NewHashed()} {
		e := openLearned(t, dir, ix, emb)
		rep, err := e.Refresh(ctx, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := e.Status()
		if n := vectorsNeeded(e); rep.Embedded != n || st.Model != e.Embedder().Model() || st.Dim != emb.Dim() || st.Embedded != n {
			t.Fatalf("switch %d to %s: %d of %d embedded; status %s/%d with %d vectors", i, e.Embedder().Model(), rep.Embedded, rep.Chunks, st.Model, st.Dim, st.Embedded)
		}
		if _, err := e.Semantic(ctx, RankedQuery{Query: "delete entry", Threshold: -1}); err != nil {
			t.Fatalf("switch %d: %v", i, err)
		}
	}
}

// A workspace with too few words has no model: its chunks get zero vectors
// and semantic search finds nothing rather than failing.
func TestLearnedTinyWorkspace(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	ix, _ := storage.Open(dir, storage.Options{InMemory: true})
	defer ix.Close()
	e := openLearned(t, dir, ix, nil)
	rep, err := e.Refresh(context.Background(), false, nil)
	if err != nil || rep.Trained {
		t.Fatalf("refresh: %+v, %v", rep, err)
	}
	hits, err := e.Semantic(context.Background(), RankedQuery{Query: "anything", Threshold: -1})
	if err != nil || len(hits) != 0 {
		t.Fatalf("semantic on an untrained model: %v, %v", hits, err)
	}
}

// Bounded counts keep the strongest pairs when they overflow.
func TestPairCountsWeedWeakest(t *testing.T) {
	p := newPairCounts(1000)
	p.add(0, 1, 100)
	for i := range maxPairs + 1 {
		p.add(int32(1+i/1000), int32(i%1000), 0.2)
	}
	if strong := p.m[p.key(0, 1)]; len(p.m) > maxPairs || strong != 100 {
		t.Fatalf("%d pairs kept (max %d); strong pair %v", len(p.m), maxPairs, strong)
	}
}
