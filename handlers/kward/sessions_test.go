package kward_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
)

// TestKwardResumeIsConfined: sessions/resume opens kast's session files by
// id or by their path, returns an open session rather than a second writer,
// and refuses any other file, so closing or deleting never touches it.
func TestKwardResumeIsConfined(t *testing.T) {
	api := chatServer(t, streamText("Hi."))
	kwardEnv(t, api.URL)
	c := kwardClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, t.TempDir())
	runTurn(t, c, s.ID, "hello", nil)

	var again session
	mustCall(t, c, "sessions/resume", map[string]any{"path": s.Path}, &again)
	if again.ID != s.ID {
		t.Fatalf("resuming an open session opened %s, want the live %s", again.ID, s.ID)
	}
	for _, id := range []string{s.PersistentID, s.ID} {
		mustCall(t, c, "sessions/resume", map[string]any{"persistentId": id}, &again)
		if again.ID != s.ID {
			t.Fatalf("resuming the open session by %s opened %s", id, again.ID)
		}
	}
	mustCall(t, c, "sessions/close", map[string]any{"sessionId": s.ID}, nil)
	var byID session
	mustCall(t, c, "sessions/resume", map[string]any{"persistentId": s.PersistentID}, &byID)
	if byID.ID == s.ID || byID.Path != s.Path || byID.PersistentID != s.PersistentID {
		t.Fatalf("resume by id: %+v (was %+v)", byID, s)
	}

	outside := t.TempDir()
	victim := filepath.Join(outside, "passwd")
	const content = "root:x:0:0:root:/root:/bin/sh\n"
	os.WriteFile(victim, []byte(content), 0o600)
	link := filepath.Join(filepath.Dir(s.Path), "2026-01-01T00-00-00.000Z_evil.jsonl")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for name, params := range map[string]map[string]any{
		"outside":  {"path": victim},
		"symlink":  {"path": link},
		"dot-dot":  {"path": filepath.Dir(s.Path) + "/../../../../../../../.." + victim},
		"relative": {"path": "../../../../../../../.." + victim, "workspaceRoot": outside},
	} {
		err := c.Call(ctx, "sessions/resume", params, nil)
		if code, data := rpcCode(t, err); code != -32602 || data != "SESSION_PATH_OUTSIDE" {
			t.Errorf("%s: got %d %s", name, code, data)
		}
	}
	err := c.Call(ctx, "sessions/resume", map[string]any{"persistentId": "../passwd"}, nil)
	if code, data := rpcCode(t, err); code != -32602 || data != "SESSION_FILE_NOT_FOUND" {
		t.Errorf("a path as id: got %d %s", code, data)
	}
	if err := c.Call(ctx, "sessions/resume", map[string]any{}, nil); err == nil {
		t.Error("a resume naming nothing was accepted")
	}

	var deleted struct{ Path string }
	mustCall(t, c, "sessions/delete", map[string]any{"sessionId": byID.ID}, &deleted)
	if _, err := os.Stat(s.Path); deleted.Path != s.Path || !os.IsNotExist(err) {
		t.Fatalf("delete %+v: %v", deleted, err)
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != content {
		t.Fatalf("the outside file changed: %q %v", data, err)
	}
}

// TestKwardToolDiffsSurviveReload: an edit's diff and changed files are in
// the transcript while the session is open and after it is resumed.
func TestKwardToolDiffsSurviveReload(t *testing.T) {
	api := chatServer(t, streamToolCall("call_w", "write_file", `{"path":"notes.txt","content":"hello\n"}`), streamText("Written."))
	kwardEnv(t, api.URL)
	c := kwardClient(t)
	s := newSession(t, c, t.TempDir())
	runTurn(t, c, s.ID, "write a note", nil)
	details := func(sessionID string) map[string]any {
		t.Helper()
		var tr struct {
			Messages []map[string]any `json:"messages"`
		}
		mustCall(t, c, "sessions/transcript", map[string]any{"sessionId": sessionID}, &tr)
		for _, m := range tr.Messages {
			if m["role"] == "toolResult" {
				return m["details"].(map[string]any)
			}
		}
		t.Fatalf("no tool result in %v", tr.Messages)
		return nil
	}
	live := details(s.ID)
	diff, _ := live["diff"].(string)
	if !strings.Contains(diff, "+hello") || fmt.Sprint(live["changedFiles"]) != "[notes.txt]" {
		t.Fatalf("live details %v", live)
	}
	mustCall(t, c, "sessions/close", map[string]any{"sessionId": s.ID}, nil)
	var resumed session
	mustCall(t, c, "sessions/resume", map[string]any{"path": s.Path}, &resumed)
	if reloaded := details(resumed.ID); fmt.Sprint(reloaded) != fmt.Sprint(live) {
		t.Fatalf("after reload %v, live %v", reloaded, live)
	}
}

// TestKwardListRemovesAbandonedEmptySessions: an empty unnamed session file
// no session holds (its process ended) is removed by sessions/list and not
// listed; the live empty session is kept.
func TestKwardListRemovesAbandonedEmptySessions(t *testing.T) {
	dataDir := kwardEnv(t, "")
	c := kwardClient(t)
	workspace := t.TempDir()
	live := newSession(t, c, workspace)
	stale, err := (&agent.Store{Dir: filepath.Join(dataDir, "kast", "sessions")}).Create(agent.Header{Cwd: live.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	stale.Close()
	if filepath.Dir(stale.Path()) != filepath.Dir(live.Path) {
		t.Fatalf("the stale file %s is not beside %s", stale.Path(), live.Path)
	}
	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	mustCall(t, c, "sessions/list", map[string]any{"workspaceRoot": workspace}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0]["path"] != live.Path {
		t.Fatalf("list %v", list.Sessions)
	}
	if _, err := os.Stat(stale.Path()); !os.IsNotExist(err) {
		t.Fatalf("the abandoned empty session was kept: %v", err)
	}
}
