package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	ws, err := Open(root, Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, _, err := ws.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ws.uses.want([]string{last})
	ctx, cancel := context.WithCancel(context.Background())
	n, _ := ws.ResolveUsesInBackground(ctx, 1, func(done, _ int) { cancel() })
	cancel()
	done := ws.partialDone()
	if n >= 30 || done == nil {
		t.Fatalf("the pass was not stopped part way: %d files, partial %v", n, done != nil)
	}
	if !done[last] {
		t.Errorf("the wanted file %s was not among the %d resolved first", filepath.Base(last), len(done))
	}
}
