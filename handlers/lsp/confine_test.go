package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// A hostile client's probes of the confinement rule on the LSP side: files
// that are not open are read from disk only at a real path under a root.
func TestLSPConfinedDiskReads(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "src/sample/Greeter.kt"), "package sample\n\nfun greet() = 1\n")
	write(filepath.Join(root, "src/secret/Hidden.kt"), "package secret\n\nfun visible() = 1\n")
	write(filepath.Join(outside, "Hidden.kt"), "package secret\n\nfun stolen() = 2\n")
	write(filepath.Join(outside, "Leak.kt"), "package secret\n\nfun leaked() = 3\n")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	l := New(host.New(host.Options{}))
	t.Cleanup(l.WaitSessions)
	reg := server.NewRegistry()
	l.Register(reg)
	client, conn := servertest.Pipe(t, server.New(server.Options{Registry: reg, Profile: l.Profile()}), servertest.Header)
	client.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) { return nil, nil })
	if _, err := client.Initialize(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	e := &lspEnv{t, ctx, client, root}
	e.reindex()

	// Once indexed, the folder becomes a link out of the workspace, and a
	// file link out and one inside appear.
	if err := os.RemoveAll(filepath.Join(root, "src/secret")); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"src/secret": outside, "leak.kt": filepath.Join(outside, "Leak.kt"), "src/sample/Alias.kt": "Greeter.kt"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	symbols := func(name string) ([]string, error) {
		var syms []struct {
			Name string `json:"name"`
		}
		err := client.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": e.uri(name)}}, &syms)
		var names []string
		for _, s := range syms {
			names = append(names, s.Name)
		}
		return names, err
	}
	refused := func(name, link string) {
		t.Helper()
		names, err := symbols(name)
		var rpcErr *servertest.RPCError
		if !errors.As(err, &rpcErr) {
			t.Errorf("documentSymbol on %s through a link out: %v, %v; want an error naming the rule", name, names, err)
			return
		}
		var data struct{ Code, Rule, Link string }
		_ = json.Unmarshal(rpcErr.Data, &data)
		if data.Code != server.CodeInvalidParams || data.Rule != "SYMLINK_ESCAPE" || data.Link != filepath.Join(root, link) ||
			!strings.Contains(rpcErr.Message, "SYMLINK_ESCAPE") {
			t.Errorf("documentSymbol on %s: %v %s; want INVALID_PARAMS by rule SYMLINK_ESCAPE naming %s", name, rpcErr, rpcErr.Data, link)
		}
	}
	// The index still holds the file as it was; its text would now come
	// from outside.
	refused("src/secret/Hidden.kt", "src/secret")

	// Saves and watched-file events name paths too: what lies outside is
	// never read into the index, and the stale entry is dropped.
	if err := client.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]string{"uri": e.uri("leak.kt")}}); err != nil {
		t.Fatal(err)
	}
	if err := client.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": e.uri("src/secret/Hidden.kt"), "type": 2}}}); err != nil {
		t.Fatal(err)
	}
	refused("leak.kt", "leak.kt")
	refused("src/secret/Hidden.kt", "src/secret")
	refused("src/secret/Leak.kt", "src/secret")
	// The answers above came after the notifications were handled, which
	// queued their reindex jobs; those have run once a job queued after
	// them has.
	l.mu.Lock()
	s := l.sessions[conn]
	l.mu.Unlock()
	done := make(chan struct{})
	s.jobs <- func(context.Context) { close(done) }
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	snap := s.engine.Snapshot(nil)
	for _, name := range []string{"leak.kt", "src/secret/Hidden.kt"} {
		if f := snap.File(filepath.Join(root, name)); f != nil {
			t.Errorf("the index holds %s, read through a link out: %d definitions", name, len(f.Defs))
		}
	}

	// An open document answers from the text the editor sent.
	if err := client.DidOpen(e.uri("leak.kt"), "kotlin", 1, "package secret\n\nfun opened() = 4\n"); err != nil {
		t.Fatal(err)
	}
	if names, err := symbols("leak.kt"); err != nil || strings.Join(names, ",") != "opened" {
		t.Errorf("documentSymbol on an open document = %v, %v", names, err)
	}
	// A link inside is read; it is not indexed under its own name.
	if _, err := symbols("src/sample/Alias.kt"); err != nil {
		t.Errorf("documentSymbol through a link inside: %v", err)
	}
}
