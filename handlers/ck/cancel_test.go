package ck

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/analysis/host"
)

// A cancelled ck/* request answers -32800, not the -32602 or -32603 the
// tool's failure on its cancelled context would map to.
func TestCKCancelledRequest(t *testing.T) {
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	s := New(h)
	args, _ := json.Marshal(map[string]any{"pattern": "x", "path": t.TempDir()})
	code := func(ctx context.Context) int64 {
		t.Helper()
		_, err := s.call(ctx, "regex_search", args)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("want a JSON-RPC error, got %v", err)
		}
		return int64(rpcErr.Code)
	}
	// A path outside the open roots is the caller's mistake...
	if got := code(context.Background()); got != -32602 {
		t.Fatalf("uncancelled: %d", got)
	}
	// ...unless the caller cancelled the request.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := code(ctx); got != -32800 {
		t.Fatalf("cancelled: %d", got)
	}
}
