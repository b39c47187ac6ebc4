package scip

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	scipb "github.com/sourcegraph/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"

	"github.com/kast-dev/kast/analysis/internal/wstest"
)

// exportFixture indexes the multi-language fixture, resolves its uses as
// `kast index --references` does, and exports it to a file.
func exportFixture(t *testing.T) (string, string, Stats) {
	t.Helper()
	ws, root := wstest.Open(t, filepath.Join("..", "..", "testdata", "scip", "multi.txtar"))
	if _, err := ws.ResolveUses(context.Background(), 0, nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	st, err := Export(context.Background(), wstest.Snapshot(ws), root, &buf, Options{ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "index.scip")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out, root, st
}

func readIndex(t *testing.T, path string) *scipb.Index {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ix scipb.Index
	if err := proto.Unmarshal(data, &ix); err != nil {
		t.Fatal(err)
	}
	return &ix
}
