package acp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestClientGoneMidPrompt: an editor that closes kast's input while a
// prompt runs (it crashed, or the user closed it) ends the turn, and the
// connection ends rather than waiting for a model that never finishes.
func TestClientGoneMidPrompt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	testEnv(t, scriptedModel(t, []byte(`{"stall":true}`)))
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	srv := server.New(handlers.ACP(handlers.NewProcess(h), acp.Options{Version: "test"}).Options("test", nil))
	c, conn := servertest.Pipe(t, srv, servertest.NDJSON)
	root := t.TempDir()
	sid := newSession(t, c, root, nil)
	_, reply := c.Go("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "long"}}})
	if _, err := c.WaitNotificationFunc(ctx, "session/update", func(m *servertest.Message) bool {
		return strings.Contains(string(m.Params), "working...")
	}); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("the connection did not end after its client went away mid-prompt")
	}
	// The prompt was answered cancelled if the answer could still be
	// written; it never answers anything else.
	select {
	case m := <-reply:
		if m != nil && (m.Error != nil || !strings.Contains(string(m.Result), `"cancelled"`)) {
			var v any
			_ = json.Unmarshal(m.Result, &v)
			t.Fatalf("prompt answered %v %v", v, m.Error)
		}
	default:
	}
}
