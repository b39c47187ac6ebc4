package handlers_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// The entry points of one process drive one agent: a session opened on the
// Kward RPC entry point is the same session on the LSP one, and unknown to
// another process.
func TestEntryPointsShareTheProcessAgent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	h := host.New(host.Options{})
	t.Cleanup(h.Close) // its indexes, before their folder is removed
	p := handlers.NewProcess(h)
	kward, _ := servertest.Pipe(t, server.New(handlers.KwardRPC(p).Options("test", nil)), servertest.Header)
	lsp, _ := servertest.Pipe(t, server.New(handlers.LSP(p).Options("test", nil)), servertest.Header)
	if _, err := lsp.Initialize(ctx, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}

	var created struct {
		ID string `json:"id"`
	}
	if err := kward.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": t.TempDir()}, &created); err != nil {
		t.Fatal(err)
	}
	var renamed struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := lsp.Call(ctx, "sessions/rename", map[string]any{"sessionId": created.ID, "name": "shared"}, &renamed); err != nil {
		t.Fatalf("the LSP entry point does not know the Kward entry point's session: %v", err)
	}
	if renamed.ID != created.ID || renamed.Name != "shared" {
		t.Fatalf("renamed %+v", renamed)
	}
	if ms, err := p.Agent.Manager().Session(created.ID); err != nil || ms.Name() != "shared" {
		t.Fatalf("the process's agent holds %v, %v", ms, err)
	}

	other, _ := servertest.Pipe(t, server.New(handlers.KwardRPC(handlers.NewProcess(p.Host)).Options("test", nil)), servertest.Header)
	var rpcErr *servertest.RPCError
	if err := other.Call(ctx, "sessions/rename", map[string]any{"sessionId": created.ID, "name": "x"}, nil); !errors.As(err, &rpcErr) || rpcErr.DataCode() != "SESSION_NOT_FOUND" {
		t.Fatalf("another process's agent renamed the session: %v", err)
	}
}
