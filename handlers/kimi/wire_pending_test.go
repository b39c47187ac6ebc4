package kimi_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server/servertest"
)

// Requests nobody answers are resolved when their turn ends, as kimi-cli
// resolves them: a cancel while an ApprovalRequest, a ToolCallRequest or a
// QuestionRequest waits ends the turn (the approval as "reject", reported
// by ApprovalResponse), the prompt answers cancelled, and the replies the
// client sends afterwards are dropped without effect or hang.
func TestWireTurnEndResolvesPendingRequests(t *testing.T) {
	ctx := ctxT(t)
	testEnv(t, scriptedModel(t, []byte(`{"toolCall":{"id":"c1","name":"write_file","arguments":"{\"path\":\"late.txt\",\"content\":\"x\"}"}}
{"toolCall":{"id":"c2","name":"open_in_ide","arguments":"{\"path\":\"README.md\"}"}}
{"toolCall":{"id":"c3","name":"ask_user_question","arguments":"{\"questions\":[{\"question\":\"Which?\",\"header\":\"H\",\"options\":[{\"label\":\"A\",\"description\":\"\"},{\"label\":\"B\",\"description\":\"\"}]}]}"}}
{"text":["Still here."]}`)))
	root := t.TempDir()
	c, _ := wireServer(t, kimi.WireOptions{WorkDir: root, Version: "test"})
	type pending struct {
		typ     string
		payload map[string]any
	}
	arrived, release := make(chan pending, 3), make(chan struct{})
	c.Handle("request", func(params json.RawMessage) (any, error) {
		var p struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		}
		_ = json.Unmarshal(params, &p)
		arrived <- pending{p.Type, p.Payload}
		<-release // answered only after the turn has ended
		switch p.Type {
		case "ApprovalRequest":
			return map[string]any{"request_id": p.Payload["id"], "response": "approve"}, nil
		case "ToolCallRequest":
			return map[string]any{"tool_call_id": p.Payload["id"], "return_value": map[string]any{"is_error": false, "output": "late", "message": "", "display": []any{}}}, nil
		}
		return map[string]any{"request_id": p.Payload["id"], "answers": map[string]any{"Which?": "A"}}, nil
	})
	call(t, c, "i1", "initialize", map[string]any{"protocol_version": "1.10", "capabilities": map[string]any{"supports_question": true},
		"external_tools": []any{map[string]any{"name": "open_in_ide", "description": "Open a file", "parameters": map[string]any{"type": "object"}}}})

	var approvalID any
	for i, want := range []string{"ApprovalRequest", "ToolCallRequest", "QuestionRequest"} {
		id := json.RawMessage(`"p` + string(rune('1'+i)) + `"`)
		done := make(chan *servertest.Message, 1)
		go func() {
			m, _ := c.CallID(ctx, id, "prompt", map[string]any{"user_input": "go"})
			done <- m
		}()
		var got pending
		select {
		case got = <-arrived:
		case <-ctx.Done():
			t.Fatalf("no %s", want)
		}
		if got.typ != want {
			t.Fatalf("got a %s, want a %s", got.typ, want)
		}
		if want == "ApprovalRequest" {
			approvalID = got.payload["id"]
		}
		call(t, c, "k"+string(rune('1'+i)), "cancel", nil)
		if m := <-done; m == nil || m.Error != nil || !strings.Contains(string(m.Result), `"cancelled"`) {
			t.Fatalf("%s: prompt %+v", want, m)
		}
	}
	resolved, err := c.WaitNotificationFunc(ctx, "event", func(m *servertest.Message) bool {
		return strings.Contains(string(m.Params), `"ApprovalResponse"`)
	})
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Payload map[string]any `json:"payload"`
	}
	_ = json.Unmarshal(resolved.Params, &ev)
	if ev.Payload["request_id"] != approvalID || ev.Payload["response"] != "reject" {
		t.Fatalf("the cancelled approval resolved as %v", ev.Payload)
	}

	// The late replies change nothing: the write never runs, no result
	// arrives for the external call, and the wire goes on.
	close(release)
	got := call(t, c, "p4", "prompt", map[string]any{"user_input": "again"})
	if got["status"] != "finished" {
		t.Fatalf("prompt after the late replies: %v", got)
	}
	if _, err := os.Stat(filepath.Join(root, "late.txt")); err == nil {
		t.Fatal("a late approval ran the write")
	}
	for _, m := range c.Notifications("event") {
		if strings.Contains(string(m.Params), `"output":"late"`) {
			t.Fatal("a late tool result reached the turn")
		}
	}
}

// A client that goes away while its prompt runs ends the turn: the
// connection closes rather than waiting for a reply nobody reads.
func TestWireClientGoneMidTurn(t *testing.T) {
	ctx := ctxT(t)
	testEnv(t, scriptedModel(t, []byte(`{"stall":true}`)))
	c, conn := wireServer(t, kimi.WireOptions{WorkDir: t.TempDir(), Version: "test"})
	go func() { _, _ = c.CallID(ctx, json.RawMessage(`"p1"`), "prompt", map[string]any{"user_input": "long"}) }()
	if _, err := c.WaitNotificationFunc(ctx, "event", func(m *servertest.Message) bool {
		return strings.Contains(string(m.Params), "working...")
	}); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatal("the connection did not end after its client went away mid-turn")
	}
}
