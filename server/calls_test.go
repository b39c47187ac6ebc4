package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/server"
)

// A call under a chosen id goes out with that id as its JSON-RPC id, and the
// client's reply to that id is what the call returns; a reply to an id
// nobody waits for is dropped; a second call under a waiting id, or under
// the form of kast's own ids, is refused.
func TestCallAs(t *testing.T) {
	ctx := ctxT(t)
	reg := server.NewRegistry()
	type askParams struct {
		ID string `json:"id"`
	}
	server.Handle(reg, "test/ask", server.Concurrent, func(ctx context.Context, p askParams) (any, error) {
		conn := server.ConnOf(ctx)
		var result map[string]any
		err := conn.CallAs(ctx, p.ID, "request", map[string]any{"type": "ApprovalRequest", "payload": map[string]any{"id": p.ID}}, &result)
		if err != nil {
			var rpcErr *jsonrpc2.Error
			if errors.As(err, &rpcErr) {
				return map[string]any{"clientError": rpcErr.Message}, nil
			}
			return nil, err
		}
		return result, nil
	})
	srv := server.New(server.Options{Registry: reg, Profile: server.Profile{Framing: server.FramingNDJSON, StringIDs: true}})
	client, end := net.Pipe()
	conn := srv.Serve(ctx, end)
	t.Cleanup(func() { _ = client.Close(); <-conn.Done() })
	lines := bufio.NewReader(client)
	send := func(s string) {
		if _, err := client.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return m
	}

	send(`{"jsonrpc":"2.0","id":"r1","method":"test/ask","params":{"id":"approval-1"}}`)
	req := read()
	if req["id"] != "approval-1" || req["method"] != "request" {
		t.Fatalf("the request went out as %v", req)
	}
	// approval-1 waits for its reply: a second call under it is refused.
	send(`{"jsonrpc":"2.0","id":"dup","method":"test/ask","params":{"id":"approval-1"}}`)
	if reply := read(); reply["id"] != "dup" || !strings.Contains(fmt.Sprint(reply["error"]), "already waiting") {
		t.Fatalf("a second call under a waiting id: %v", reply)
	}
	send(`{"jsonrpc":"2.0","id":"nobody","result":{"response":"approve"}}`)
	send(`{"jsonrpc":"2.0","id":"approval-1","result":{"request_id":"approval-1","response":"approve"}}`)
	if reply := read(); reply["id"] != "r1" || reply["result"].(map[string]any)["response"] != "approve" {
		t.Fatalf("the call returned %v", reply)
	}

	// The id is free again once answered; an error reply comes back as
	// the JSON-RPC error.
	send(`{"jsonrpc":"2.0","id":"r2","method":"test/ask","params":{"id":"approval-1"}}`)
	if req := read(); req["id"] != "approval-1" {
		t.Fatalf("the second request went out as %v", req)
	}
	send(`{"jsonrpc":"2.0","id":"approval-1","error":{"code":-32000,"message":"dialog closed"}}`)
	if reply := read(); reply["id"] != "r2" || reply["result"].(map[string]any)["clientError"] != "dialog closed" {
		t.Fatalf("the error reply came back as %v", reply)
	}

	send(`{"jsonrpc":"2.0","id":"r3","method":"test/ask","params":{"id":"kast-3"}}`)
	if reply := read(); reply["id"] != "r3" || reply["error"] == nil || !strings.Contains(fmt.Sprint(reply["error"]), "kast's own request ids") {
		t.Fatalf("an id in kast's own form: %v", reply)
	}
}
