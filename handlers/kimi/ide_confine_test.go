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

// A hostile client names a current_file that the file system takes out of
// the workspace: a file link, a file under a folder link, a ".." after a
// folder link (inside as spelled). Each is named to the model but never
// read; a file of the workspace reached through a link that stays inside is
// read.
func TestIDECurrentFileThroughLinks(t *testing.T) {
	url, bodies := bodyModel(t, "Seen.")
	testEnv(t, url)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, path string) {
		t.Helper()
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.go"), "TOPSECRET_FILE")
	write(filepath.Join(outside, "inner", "secret.go"), "TOPSECRET_DIR")
	write(filepath.Join(ws, "secret.go"), "the workspace's own secret.go")
	write(filepath.Join(ws, "src", "own.go"), "OWN_TEXT")
	link(filepath.Join(outside, "secret.go"), filepath.Join(ws, "linked.go"))
	link(filepath.Join(outside, "inner"), filepath.Join(ws, "escape"))
	link(filepath.Join(ws, "src"), filepath.Join(ws, "alias"))

	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	c, _ := servertest.Pipe(t, server.New(handlers.KimiIDE(handlers.NewProcess(h), kimi.IDEOptions{}).Options("test", nil)), servertest.NDJSON)
	ctx := ctxT(t)
	send := func(file string) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			_, _ = c.WaitNotification(context.Background(), "TurnEnd")
			close(done)
		}()
		params := map[string]any{"content": "what is this?", "context": map[string]any{"workspace_root": ws, "current_file": file,
			"selection_range": map[string]any{"start_line": 0, "start_column": 0, "end_line": 0, "end_column": 1}}}
		if err := c.Call(ctx, "sendMessage", params, nil); err != nil {
			t.Fatal(err)
		}
		<-done
	}
	probes := []string{
		filepath.Join(ws, "linked.go"),
		filepath.Join(ws, "escape", "secret.go"),
		ws + "/escape/../secret.go", // spelled: the workspace's secret.go; read: outside's
		filepath.Join(ws, "alias", "own.go"),
	}
	for _, p := range probes {
		send(p)
	}
	got := bodies()
	if len(got) != len(probes) {
		t.Fatalf("%d model requests, want %d", len(got), len(probes))
	}
	last := ""
	for i, body := range got {
		// Each request carries the conversation so far: look at what is new.
		turn := strings.TrimPrefix(body, last)
		last = body
		if strings.Contains(body, "TOPSECRET") || strings.Contains(body, "the workspace's own secret.go") {
			t.Errorf("probe %s: a file behind a link out of the workspace reached the model", probes[i])
		}
		if i < 3 && !strings.Contains(turn, filepath.Base(probes[i])) {
			t.Errorf("probe %s: the current file is not named", probes[i])
		}
	}
	if !strings.Contains(got[3], "OWN_TEXT") {
		t.Error("a workspace file reached through a link inside it was not read")
	}
}
