//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/server/servertest"
)

// TestKwardOneWriterAcrossProcesses: a second `kast kward rpc` neither
// resumes a session the first has open nor deletes it when listing, and
// refuses a file outside the sessions folder; once the first shuts down,
// the second resumes the session.
func TestKwardOneWriterAcrossProcesses(t *testing.T) {
	model := newFakeModel(t, say("Hi."))
	kwardProcessEnv(t, model.URL)
	workspace := t.TempDir()
	ctx := testCtx(t)
	first, firstCmd := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	var s, empty struct{ ID, Path string }
	if err := first.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace}, &s); err != nil {
		t.Fatal(err)
	}
	var turn struct{ ID string }
	first.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "hello"}, &turn)
	follow(t, first, "turn/event", turn.ID, nil)
	first.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace}, &empty)

	second, _ := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	dataCode := func(err error) string {
		if rpcErr, ok := err.(*servertest.RPCError); ok {
			return rpcErr.DataCode()
		}
		return ""
	}
	if err := second.Call(ctx, "sessions/resume", map[string]any{"path": s.Path}, nil); dataCode(err) != "SESSION_IN_USE" {
		t.Fatalf("a second writer: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(outside, []byte("mine\n"), 0o600)
	if err := second.Call(ctx, "sessions/resume", map[string]any{"path": outside}, nil); dataCode(err) != "SESSION_PATH_OUTSIDE" {
		t.Fatalf("resuming a file outside the sessions folder: %v", err)
	}
	if err := second.Call(ctx, "sessions/list", map[string]any{"workspaceRoot": workspace}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty.Path); err != nil {
		t.Fatalf("listing in another process removed a live empty session: %v", err)
	}

	var bye struct{ OK bool }
	if err := first.Call(ctx, "shutdown", nil, &bye); err != nil || !bye.OK {
		t.Fatalf("shutdown: %v", err)
	}
	waitExit(t, firstCmd)
	if _, err := os.Stat(empty.Path); !os.IsNotExist(err) {
		t.Fatalf("shutdown kept an empty unnamed session: %v", err)
	}
	var resumed struct{ ID, Path string }
	if err := second.Call(ctx, "sessions/resume", map[string]any{"path": s.Path}, &resumed); err != nil || resumed.Path != s.Path {
		t.Fatalf("resume after the first process ended: %+v %v", resumed, err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "mine\n" {
		t.Fatalf("the outside file changed: %q", data)
	}
}
