package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An editor's unsaved text stands in for the disk's: regex, lexical and
// hybrid search find what only the buffer holds, no longer find what the
// buffer removed, and a file that exists only as a buffer is searched too;
// a buffer outside the root or in an ignored file is not.
func TestOverlay(t *testing.T) {
	e, dir := fixture(t, nil)
	ctx := context.Background()
	server := filepath.Join(dir, "pkg", "server.go")
	disk, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(disk), "retry_with_backoff", "reconnectWithJitter", 1)
	ov := Overlay{
		server:                              []byte(edited),
		filepath.Join(dir, "pkg", "new.go"): []byte("package pkg\n\n// unsavedHelperZebra exists only in the editor.\nfunc unsavedHelperZebra() {}\n"),
		filepath.Join(dir, "ignored", "hidden.go"):       []byte("package x\n\nfunc unsavedHelperZebra() {}\n"),
		filepath.Join(filepath.Dir(dir), "elsewhere.go"): []byte("func unsavedHelperZebra() {}\n"),
	}

	res, err := e.Regex(ctx, RegexQuery{Pattern: `unsavedHelperZebra\(`, Overlay: ov})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 1 || res.Lines[0].Path != filepath.Join(dir, "pkg", "new.go") || res.Lines[0].Line != 4 {
		t.Fatalf("regex over the overlay = %+v, want pkg/new.go:4 only", res.Lines)
	}
	res, err = e.Regex(ctx, RegexQuery{Pattern: `reconnectWithJitter`, Overlay: ov})
	if err != nil || len(res.Lines) == 0 || res.Lines[0].Path != server {
		t.Fatalf("regex for the buffer's new name = %+v, %v", res, err)
	}
	res, err = e.Regex(ctx, RegexQuery{Pattern: `func retry_with_backoff`, Overlay: ov})
	if err != nil || len(res.Lines) != 0 {
		t.Fatalf("regex for the name the buffer removed = %+v, %v", res.Lines, err)
	}
	// Without the overlay the disk answers.
	res, err = e.Regex(ctx, RegexQuery{Pattern: `func retry_with_backoff`})
	if err != nil || len(res.Lines) != 1 {
		t.Fatalf("regex on disk = %+v, %v", res, err)
	}

	for _, rank := range []struct {
		name string
		run  func(context.Context, RankedQuery) ([]Hit, error)
	}{{"lexical", e.Lexical}, {"hybrid", e.Hybrid}} {
		hits, err := rank.run(ctx, RankedQuery{Query: "unsaved helper zebra", Overlay: ov})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Path != filepath.Join(dir, "pkg", "new.go") || !strings.Contains(hits[0].Text, "func unsavedHelperZebra") {
			t.Fatalf("%s over the overlay: %+v", rank.name, hits)
		}
		for _, h := range hits {
			if strings.Contains(h.Path, "ignored") || !strings.HasPrefix(h.Path, dir) {
				t.Errorf("%s: hit %s outside the searched files", rank.name, h.Path)
			}
		}
		// The semantic arm has never seen the new word: hybrid ranks it
		// among its hits, lexical first.
		hits, err = rank.run(ctx, RankedQuery{Query: "reconnectWithJitter", TopK: 3, Overlay: ov})
		if err != nil || !hasText(hits, server, "func reconnectWithJitter") || rank.name == "lexical" && hits[0].Path != server {
			t.Fatalf("%s for the buffer's new name: %+v, %v", rank.name, hits, err)
		}
		hits, err = rank.run(ctx, RankedQuery{Query: "retry_with_backoff", TopK: 50, Overlay: ov})
		if err != nil || hasText(hits, server, "func retry_with_backoff") {
			t.Fatalf("%s found the name the buffer removed: %+v, %v", rank.name, hits, err)
		}
		hits, err = rank.run(ctx, RankedQuery{Query: "unsaved helper zebra"})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if strings.Contains(h.Text, "unsavedHelperZebra") {
				t.Fatalf("%s without the overlay found the buffer's text: %+v", rank.name, h)
			}
		}
	}
}

func hasText(hits []Hit, path, text string) bool {
	for _, h := range hits {
		if h.Path == path && strings.Contains(h.Text, text) {
			return true
		}
	}
	return false
}
