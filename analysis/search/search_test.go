package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/storage"
)

// fixture copies testdata/search/repo into a temp dir, adds a file that
// .gitignore excludes, and opens an engine on an in-memory index.
func fixture(t *testing.T, emb Embedder) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "search", "repo")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "ignored"), 0o755)
	os.WriteFile(filepath.Join(dir, "ignored", "hidden.go"), []byte("package x\n\nfunc ParseConfig() {}\n"), 0o644)
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	e, err := Open(dir, ix, Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Refresh(context.Background(), false, nil); err != nil {
		t.Fatal(err)
	}
	return e, dir
}

func TestTerms(t *testing.T) {
	var got []string
	Terms("parseHTTPRequest retry_with_backoff x", func(s string) { got = append(got, s) })
	want := []string{"parsehttprequest", "parse", "http", "request", "retry_with_backoff", "retry", "with", "backoff"}
	if !slices.Equal(got, want) {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
}

func TestChunksGo(t *testing.T) {
	e, _ := fixture(t, nil)
	f := e.st.files["pkg/server.go"]
	var names []string
	for _, c := range f.chunks {
		names = append(names, c.Kind+":"+c.Name)
	}
	want := []string{"block:", "class:HTTPServer", "method:HTTPServer.HandleRequest", "function:retry_with_backoff"}
	if !slices.Equal(names, want) {
		t.Fatalf("chunks = %q, want %q", names, want)
	}
	// The doc comment belongs to the method: lines 10-13.
	if c := f.chunks[2]; c.StartLine != 10 || c.EndLine != 13 {
		t.Errorf("HandleRequest lines %d-%d, want 10-13", c.StartLine, c.EndLine)
	}
}

func TestChunksSplitOversized(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		b.WriteString("line number " + strings.Repeat("x", i%40) + "\n")
	}
	src := []byte(b.String())
	cs := Chunks(nil, src)
	if len(cs) < 5 {
		t.Fatalf("%d chunks for %d lines", len(cs), 400)
	}
	for i, c := range cs {
		if c.End-c.Start > maxChunk {
			t.Errorf("chunk %d is %d bytes", i, c.End-c.Start)
		}
		if i > 0 && c.StartLine > cs[i-1].EndLine {
			t.Errorf("chunk %d starts at line %d after %d: no overlap", i, c.StartLine, cs[i-1].EndLine)
		}
	}
	if cs[len(cs)-1].End != len(src) {
		t.Error("the last chunk does not reach the end")
	}
}

func TestRegex(t *testing.T) {
	e, dir := fixture(t, nil)
	ctx := context.Background()
	res, err := e.Regex(ctx, RegexQuery{Pattern: `func \w+Config`})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 1 || res.Lines[0].Path != filepath.Join(dir, "pkg", "config.go") || res.Lines[0].Line != 6 {
		t.Fatalf("lines = %+v", res.Lines)
	}
	if res.Candidates != 1 {
		t.Errorf("trigram index left %d candidates, want 1", res.Candidates)
	}
	res, _ = e.Regex(ctx, RegexQuery{Pattern: "TIMEOUT", IgnoreCase: true, After: 1})
	if len(res.Files) != 2 || len(res.Lines[0].After) != 1 {
		t.Fatalf("ignore case: files %v, lines %+v", res.Files, res.Lines)
	}
	res, _ = e.Regex(ctx, RegexQuery{Pattern: "Timeout", WholeWord: true})
	if len(res.Lines) != 1 || res.Lines[0].Line != 7 {
		t.Fatalf("whole word: %+v", res.Lines)
	}
	res, _ = e.Regex(ctx, RegexQuery{Pattern: "map[string]string", Fixed: true, Scope: Scope{Include: []string{"*.go"}, Exclude: []string{"server.go"}}})
	if len(res.Files) != 1 || len(res.Lines) != 3 {
		t.Fatalf("fixed: %+v", res.Lines)
	}
	if _, err := e.Regex(ctx, RegexQuery{Pattern: "[unclosed"}); err == nil || !strings.Contains(err.Error(), "invalid regex") {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestTrigramQueryNarrows(t *testing.T) {
	e, _ := fixture(t, nil)
	for pattern, want := range map[string]int{
		"ParseConfig|HandleRequest": 2, // alternation: OR of both
		`Parse\w*`:                  1,
		`a.b`:                       4, // nothing required: every file, .gitignore too
		`zzqq`:                      0,
	} {
		res, err := e.Regex(context.Background(), RegexQuery{Pattern: pattern})
		if err != nil {
			t.Fatal(err)
		}
		if res.Candidates != want {
			t.Errorf("%s: %d candidates, want %d", pattern, res.Candidates, want)
		}
	}
}

func TestLexical(t *testing.T) {
	e, _ := fixture(t, nil)
	hits, err := e.Lexical(context.Background(), RankedQuery{Query: "backoff retry"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Chunk.Name != "retry_with_backoff" {
		t.Fatalf("hits = %+v", hits)
	}
	// camelCase parts: "request" finds HandleRequest first.
	hits, _ = e.Lexical(context.Background(), RankedQuery{Query: "handle request"})
	if len(hits) == 0 || hits[0].Chunk.Name != "HTTPServer.HandleRequest" || !strings.Contains(hits[0].Text, "WriteHeader") {
		t.Fatalf("hits = %+v", hits)
	}
}

func TestSemanticAndHybrid(t *testing.T) {
	e, dir := fixture(t, nil)
	ctx := context.Background()
	hits, err := e.Semantic(ctx, RankedQuery{Query: "parse the config", Threshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Chunk.Name != "ParseConfig" {
		t.Fatalf("semantic = %+v", hits)
	}
	hits, err = e.Hybrid(ctx, RankedQuery{Query: "parse config", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Chunk.Name != "ParseConfig" || hits[0].Score <= 1.0/61 {
		t.Fatalf("hybrid = %+v", hits)
	}
	// Scope before top-k: with top_k 1 in server.go, a server.go chunk comes back.
	hits, _ = e.Hybrid(ctx, RankedQuery{Query: "parse config", TopK: 1, Scope: Scope{Paths: []string{filepath.Join(dir, "pkg", "server.go")}}})
	if len(hits) != 1 || !strings.HasSuffix(hits[0].Path, "server.go") {
		t.Fatalf("scoped = %+v", hits)
	}
}

func TestIncrementalRefresh(t *testing.T) {
	e, dir := fixture(t, nil)
	ctx := context.Background()
	rep, err := e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Indexed != 0 || rep.Embedded != 0 {
		t.Fatalf("unchanged tree re-indexed: %+v", rep)
	}
	p := filepath.Join(dir, "pkg", "server.go")
	src, _ := os.ReadFile(p)
	src = append(src, []byte("\nfunc Zebra() {}\n")...)
	os.WriteFile(p, src, 0o644)
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	os.Remove(filepath.Join(dir, "notes.txt"))
	rep, err = e.Refresh(ctx, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The old chunks of server.go keep their vectors; only the new one is embedded.
	if rep.Indexed != 1 || rep.Removed != 1 || rep.Embedded != 1 {
		t.Fatalf("refresh = %+v", rep)
	}
	res, _ := e.Regex(ctx, RegexQuery{Pattern: "Zebra"})
	if len(res.Lines) != 1 {
		t.Fatalf("new content not found: %+v", res.Lines)
	}
	if res, _ := e.Regex(ctx, RegexQuery{Pattern: "configurable"}); len(res.Files) != 0 {
		t.Fatalf("deleted file still matches: %v", res.Files)
	}
	if err := e.compact(e.st); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.Regex(ctx, RegexQuery{Pattern: "HandleRequest"}); len(res.Lines) != 2 || res.Candidates != 1 {
		t.Fatalf("after compaction: %+v", res)
	}
	// One segment remains and the replaced file's id is gone from postings.
	var rows, ids int
	e.store.Scan(trigramPrefix(trigram('h', 'a', 'n')), false, func(k, v []byte) error {
		got, _ := decodeIDs(v, nil)
		rows, ids = rows+1, ids+len(got)
		return nil
	})
	if rows != 1 || ids != 1 {
		t.Fatalf("after compaction: %d rows, %d ids for \"han\"", rows, ids)
	}
}

func TestModelChangeReembeds(t *testing.T) {
	e, _ := fixture(t, nil)
	e.emb = Hashed{Dims: 64}
	if _, err := e.Semantic(context.Background(), RankedQuery{Query: "x"}); err == nil {
		t.Fatal("a 64-d query ran against 256-d vectors")
	}
	rep, err := e.Refresh(context.Background(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded == 0 || rep.Reused != 0 {
		t.Fatalf("model change: %+v", rep)
	}
	st, _ := e.Status()
	if st.Model != "kast-hashed-v1-64" || st.Dim != 64 || st.Embedded != rep.Embedded {
		t.Fatalf("status = %+v", st)
	}
}

func TestRegexLiteralPrefilter(t *testing.T) {
	e, dir := fixture(t, nil)
	os.WriteFile(filepath.Join(dir, "u.txt"), []byte("İİ Deadline Exceeded here\nno\nDEADLINE EXCEEDED\n"), 0o644)
	if _, err := e.Refresh(context.Background(), false, nil); err != nil {
		t.Fatal(err)
	}
	res, err := e.Regex(context.Background(), RegexQuery{Pattern: "deadline exceeded", IgnoreCase: true})
	if err != nil {
		t.Fatal(err)
	}
	// Byte columns stay right after a non-ASCII prefix: "İİ " is 5 bytes.
	if len(res.Lines) != 2 || res.Lines[0].Matches[0] != [2]int{5, 22} || res.Lines[1].Line != 3 {
		t.Fatalf("lines = %+v", res.Lines)
	}
	// ^ anchors at every line start, as in grep.
	res, _ = e.Regex(context.Background(), RegexQuery{Pattern: "^DEADLINE"})
	if len(res.Lines) != 1 || res.Lines[0].Line != 3 {
		t.Fatalf("anchored = %+v", res.Lines)
	}
}

// Queries run while a refresh swaps in new state (run with -race).
func TestQueriesDuringRefresh(t *testing.T) {
	e, dir := fixture(t, nil)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 5 {
			p := filepath.Join(dir, "pkg", "gen.go")
			os.WriteFile(p, []byte("package pkg\n\nfunc Generated"+strings.Repeat("X", i)+"() {}\n"), 0o644)
			os.Chtimes(p, time.Now().Add(time.Duration(i)*time.Hour), time.Now().Add(time.Duration(i)*time.Hour))
			if _, err := e.Refresh(ctx, false, nil); err != nil {
				t.Error(err)
			}
		}
	}()
	for {
		select {
		case <-done:
			res, _ := e.Regex(ctx, RegexQuery{Pattern: "GeneratedXXXX\\("})
			if len(res.Lines) != 1 {
				t.Fatalf("final content not found: %+v", res.Lines)
			}
			return
		default:
			if _, err := e.Hybrid(ctx, RankedQuery{Query: "parse config"}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Regex(ctx, RegexQuery{Pattern: "Generated"}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
