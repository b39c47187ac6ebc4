package handlers_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// On the LSP connection, Kast's clients find the methods where Kast's own
// LSP adapter lists them, experimental.kastMethods, beside kast's own
// capability object, experimental.kast; each is callable by that name.
func TestLSPAdvertisesKastMethods(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Its indexes are closed before the folder holding them is removed.
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	lsp, _ := servertest.Pipe(t, server.New(handlers.LSP(handlers.NewProcess(h)).Options("test", nil)), servertest.Header)
	res, err := lsp.Initialize(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := json.Unmarshal(res.Capabilities.Experimental["kastMethods"], &names); err != nil || len(names) < 31 {
		t.Fatalf("experimental.kastMethods: %s %v", res.Capabilities.Experimental["kastMethods"], err)
	}
	if _, ok := res.Capabilities.Experimental["kast"]; !ok {
		t.Errorf("experimental.kast is gone: %v", res.Capabilities.Experimental)
	}
	var health struct{ Status string }
	if err := lsp.Call(ctx, "kast/health", nil, &health); err != nil || health.Status != "ok" {
		t.Errorf("kast/health without params: %+v %v", health, err)
	}
}
