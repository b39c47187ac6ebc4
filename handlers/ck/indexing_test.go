package ck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/storage"
)

// While a workspace's first index is being built, calls do not wait for it
// past IndexWait: ranked searches answer a tool error with the build's
// progress, regex_search answers in full from the files, and index_status
// says a build is in progress. Once the build ends, ranked searches answer.
// The build is held by an extractor that waits for the test, so "not ready"
// does not depend on the machine's speed.
func TestIndexNotReadyAnswers(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "search", "repo"))); err != nil {
		t.Fatal(err)
	}
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	facts := search.IndexFacts(ix)
	eng, err := search.Open(dir, ix, search.Options{Embedder: search.NewHashed(),
		Facts: func(ctx context.Context, path string, src []byte) (*analysis.FileFacts, error) {
			select {
			case held <- struct{}{}:
			default:
			}
			<-release
			return facts(ctx, path, src)
		}})
	if err != nil {
		t.Fatal(err)
	}
	svc := &Service{Roots: []string{dir}, Engine: func(string) (*search.Engine, error) { return eng, nil },
		IndexWait: time.Millisecond}
	svc.Warm()
	<-held // the build is under way, and stays so until released
	call := func(tool string, args map[string]any) *Result {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := svc.Call(context.Background(), tool, b, nil)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res
	}
	res := call("lexical_search", map[string]any{"query": "parse config", "path": dir})
	if !res.IsError || res.JSON["status"] != "indexing" || !strings.Contains(res.Text, "still being built") {
		t.Fatalf("lexical_search during the build = %v %s", res.IsError, res.Text)
	}
	res = call("regex_search", map[string]any{"pattern": "func ParseConfig", "path": dir})
	if res.IsError || !strings.Contains(res.Text, "config.go") {
		t.Fatalf("regex_search during the build = %s", res.Text)
	}
	status := call("index_status", map[string]any{"path": dir}).JSON["indexing"].(map[string]any)
	if status["in_progress"] != true {
		t.Fatalf("index_status during the build: indexing = %v", status)
	}
	close(release)
	svc.IndexWait = 0 // as long as it takes
	res = call("lexical_search", map[string]any{"query": "parse config", "path": dir})
	if res.IsError || !strings.Contains(res.Text, "ParseConfig") {
		t.Fatalf("lexical_search after the build = %s", res.Text)
	}
	status = call("index_status", map[string]any{"path": dir}).JSON["indexing"].(map[string]any)
	if status["in_progress"] != false || status["files_indexed_since_start"].(int) == 0 {
		t.Fatalf("index_status after the build: indexing = %v", status)
	}
}
