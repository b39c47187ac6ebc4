package kimi_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// The editor context reaches the model: the selection and the current
// file's lines around it, bounded; a current file outside the workspace is
// named but never read.
func TestIDEEditorContextReachesModel(t *testing.T) {
	url, bodies := bodyModel(t, "Seen.")
	testEnv(t, url)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	var lines []string
	for i := range 100 {
		lines = append(lines, "line number "+string(rune('A'+i%26))+strings.Repeat("x", i))
	}
	if err := os.WriteFile(filepath.Join(ws, "big.go"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOPSECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	c, _ := servertest.Pipe(t, server.New(handlers.KimiIDE(handlers.NewProcess(h), kimi.IDEOptions{}).Options("test", nil)), servertest.NDJSON)
	ctx := ctxT(t)
	send := func(file string, sel map[string]any) {
		done := make(chan struct{})
		go func() {
			_, _ = c.WaitNotification(context.Background(), "TurnEnd")
			close(done)
		}()
		params := map[string]any{"content": "what is this?", "context": map[string]any{"workspace_root": ws, "current_file": file,
			"selected_text": "line number Z", "selection_range": sel}}
		if err := c.Call(ctx, "sendMessage", params, nil); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	send(filepath.Join(ws, "big.go"), map[string]any{"start_line": 50, "start_column": 0, "end_line": 50, "end_column": 13})
	send(outside, map[string]any{"start_line": 0, "start_column": 0, "end_line": 0, "end_column": 3})
	got := bodies()
	if len(got) != 2 {
		t.Fatalf("%d model requests", len(got))
	}
	first := got[0]
	for _, want := range []string{"Selected text:", "line number Z", "Lines 31-71 of the current file", strings.Repeat("x", 50)} {
		if !strings.Contains(first, want) {
			t.Errorf("the model request lacks %q", want)
		}
	}
	if strings.Contains(first, strings.Repeat("x", 75)) || strings.Contains(first, "line number A\\n") {
		t.Error("lines far from the selection reached the model")
	}
	if strings.Contains(got[1], "TOPSECRET") || !strings.Contains(got[1], "secret.txt") {
		t.Error("a file outside the workspace was read, or not named")
	}
}
