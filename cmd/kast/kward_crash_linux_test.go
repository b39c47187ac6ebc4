package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server/servertest"
)

// strictModel is a loopback OpenAI chat completions server that, like
// OpenAI, answers 400 to a conversation with a tool call no tool message
// answers; otherwise each request gets the next scripted reply.
type strictModel struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []func(http.ResponseWriter, *http.Request)
	bodies   []string
	rejected []string
}

func newStrictModel(t *testing.T, replies ...func(http.ResponseWriter, *http.Request)) *strictModel {
	m := &strictModel{replies: replies}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies = append(m.bodies, string(body))
		if missing := unanswered(body); missing != "" {
			m.rejected = append(m.rejected, string(body))
			m.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s","type":"invalid_request_error","param":"messages","code":null}}`, missing)
			return
		}
		h := m.replies[0]
		if len(m.replies) > 1 {
			m.replies = m.replies[1:]
		}
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		h(w, r)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *strictModel) script(replies ...func(http.ResponseWriter, *http.Request)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = replies
}

// unanswered returns the first tool call of body that the tool messages
// right after its assistant message do not answer.
func unanswered(body []byte) string {
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "(unreadable request)"
	}
	msgs := req.Messages
	for i, m := range msgs {
		answered := map[string]bool{}
		for j := i + 1; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			answered[msgs[j].ToolCallID] = true
		}
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				return c.ID
			}
		}
	}
	return ""
}

// procStat reads the state and process group of pid; ok is false once it
// is gone.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := strings.LastIndexByte(string(data), ')')
	if err != nil || i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], pgrp, true
}

// liveMembers returns the processes of group pgid that run (zombies have
// ended).
func liveMembers(pgid int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, de := range entries {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat(pid); ok && pgrp == pgid && state != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline with what.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// TestKwardKillDuringToolCall kills kast with SIGKILL while a shell tool
// runs two loops appending to files: one in the shell itself, one in a
// background job. The shell dies with kast (Pdeathsig), so the first loop
// stops at once; the background job outlives it until the next kast starts
// and kills the recorded process group. That kast resumes the session by
// id, and its next turn sends a conversation the strict model accepts: the
// interrupted call has a result, which the session file records.
func TestKwardKillDuringToolCall(t *testing.T) {
	work := t.TempDir()
	fg, bg := filepath.Join(work, "fg.log"), filepath.Join(work, "bg.log")
	script := fmt.Sprintf(`while true; do echo x >> %q; sleep 0.05; done & while true; do echo x >> %q; sleep 0.05; done`, bg, fg)
	args, _ := json.Marshal(map[string]any{"command": script, "timeout_seconds": 600})
	model := newStrictModel(t, callTool("call_loop", "run_shell_command", string(args)))
	dir := kwardProcessEnv(t, model.URL)
	running := filepath.Join(dir, "data", "kast", "running")
	workspace := t.TempDir()
	ctx := testCtx(t)

	c, cmd := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	var s struct {
		ID, Path     string
		PersistentID string `json:"persistentId"`
	}
	if err := c.Call(ctx, "sessions/create", map[string]any{"workspaceRoot": workspace}, &s); err != nil {
		t.Fatal(err)
	}
	var turn struct{ ID string }
	if err := c.Call(ctx, "turns/start", map[string]any{"sessionId": s.ID, "input": "append forever"}, &turn); err != nil {
		t.Fatal(err)
	}
	follow(t, c, "turn/event", turn.ID, func(ev wireEvent) bool { return ev.Type == "toolCall" })

	// The command runs, its process group recorded in the data folder.
	var pgid int
	waitFor(t, "the command's group is recorded", func() bool {
		entries, _ := os.ReadDir(running)
		for _, e := range entries {
			if n, err := strconv.Atoi(e.Name()); err == nil {
				pgid = n
			}
		}
		return pgid > 0
	})
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	waitFor(t, "both loops write", func() bool { return size(fg) > 0 && size(bg) > 0 })

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	// The shell, the group's leader, dies with kast: its loop stops.
	waitFor(t, "the shell dies with kast", func() bool {
		state, _, ok := procStat(pgid)
		return !ok || state == 'Z'
	})
	fgSize := size(fg)
	// The background job outlives it, still writing.
	bgSize := size(bg)
	waitFor(t, "the background job writes on", func() bool { return size(bg) > bgSize })

	// The next kast kills the group as it starts.
	model.script(say("Resumed after the crash."))
	c2, _ := servertest.Process(t, kastBin, servertest.Header, "kward", "rpc")
	var resumed struct{ ID string }
	if err := c2.Call(ctx, "sessions/resume", map[string]any{"persistentId": s.PersistentID}, &resumed); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the next kast kills the group", func() bool { return len(liveMembers(pgid)) == 0 })
	bgSize = size(bg)
	if _, err := os.Stat(filepath.Join(running, strconv.Itoa(pgid))); !os.IsNotExist(err) {
		t.Fatalf("the group's record outlived it: %v", err)
	}

	if err := c2.Call(ctx, "turns/start", map[string]any{"sessionId": resumed.ID, "input": "go on"}, &turn); err != nil {
		t.Fatal(err)
	}
	evs := follow(t, c2, "turn/event", turn.ID, nil)
	model.mu.Lock()
	rejected, last := model.rejected, model.bodies[len(model.bodies)-1]
	model.mu.Unlock()
	if final := evs[len(evs)-1]; final.Payload["status"] != "completed" || len(rejected) > 0 {
		t.Fatalf("the resumed turn ended %+v; rejected requests:\n%s", final.Payload, strings.Join(rejected, "\n"))
	}
	if !strings.Contains(last, `"tool_call_id":"call_loop"`) || !strings.Contains(last, agent.InterruptedResult) {
		t.Fatalf("the resumed request does not tell the model the call was interrupted: %s", last)
	}

	// The session file records the interrupted result between the call
	// and the next question.
	ld, err := agent.Load(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, m := range ld.Messages {
		shape = append(shape, m.Role+":"+m.Text)
	}
	want := []string{"user:append forever", "assistant:", "tool:" + agent.InterruptedResult, "user:go on", "assistant:Resumed after the crash."}
	if strings.Join(shape, "|") != strings.Join(want, "|") {
		t.Fatalf("the session holds %q, want %q", shape, want)
	}
	data, _ := os.ReadFile(s.Path)
	if strings.Count(string(data), agent.InterruptedResult) != 1 {
		t.Fatalf("the session file:\n%s", data)
	}

	// Nothing appends to the files any more.
	if size(fg) != fgSize || size(bg) != bgSize {
		t.Fatalf("the loops wrote on: %d→%d and %d→%d bytes", fgSize, size(fg), bgSize, size(bg))
	}
}
