package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// Go tests for what a transcript cannot say: every message kast sends in a
// full session checked against the v1 schema, the documentation's examples
// replayed, a client that never answers a permission request, a 100 MB
// line.

// acpServer starts `kast acp` over a pipe with the scripted model, in
// fresh config and data folders.
func acpServer(t *testing.T, model string) (*servertest.Client, string) {
	testEnv(t, scriptedModel(t, []byte(model)))
	return startServer(t)
}

// startServer starts `kast acp` over a pipe in the environment as it is.
func startServer(t testing.TB) (*servertest.Client, string) {
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	srv := server.New(handlers.ACP(handlers.NewProcess(h), acp.Options{Version: "test"}).Options("test", nil))
	c, _ := servertest.Pipe(t, srv, servertest.NDJSON)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c, root
}

func call(t testing.TB, c *servertest.Client, method string, params any) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res json.RawMessage
	if err := c.Call(ctx, method, params, &res); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

func newSession(t testing.TB, c *servertest.Client, root string, caps map[string]any) string {
	call(t, c, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps})
	var s struct{ SessionID string }
	_ = json.Unmarshal(call(t, c, "session/new", map[string]any{"cwd": root, "mcpServers": []any{}}), &s)
	return s.SessionID
}

// TestSchemaConformance runs a session that produces every update kind
// kast sends and every request to the client, and validates each against
// the v1 schema, then loads it on a second connection and validates the
// replay too.
func TestSchemaConformance(t *testing.T) {
	sch := loadSchema(t)
	model := strings.Join([]string{
		`{"toolCall":{"id":"p1","name":"update_plan","arguments":"{\"entries\":[{\"content\":\"Fix\",\"status\":\"in_progress\"}]}"}}`,
		`{"think":["reading"],"toolCall":{"id":"r1","name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}`,
		`{"toolCall":{"id":"w1","name":"write_file","arguments":"{\"path\":\"a.txt\",\"content\":\"new\\n\"}"}}`,
		`{"toolCall":{"id":"s1","name":"run_shell_command","arguments":"{\"command\":\"echo hi\"}"}}`,
		`{"text":["Done ","now."]}`,
	}, "\n")
	c, root := acpServer(t, model)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[string]int{}
	answer := func(method string, result any) {
		c.Handle(method, func(params json.RawMessage) (any, error) {
			mu.Lock()
			sent[method]++
			mu.Unlock()
			sch.checkSent(t, method, params)
			return result, nil
		})
	}
	answer("session/request_permission", map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}})
	answer("fs/read_text_file", map[string]any{"content": "old\n"})
	answer("fs/write_text_file", map[string]any{})
	answer("terminal/create", map[string]any{"terminalId": "t1"})
	answer("terminal/wait_for_exit", map[string]any{"exitCode": 0})
	answer("terminal/output", map[string]any{"output": "hi\n", "truncated": false})
	answer("terminal/release", map[string]any{})
	caps := map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}
	sid := newSession(t, c, root, caps)
	sch.checkResult(t, "session/set_mode", call(t, c, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "default"}))
	res := call(t, c, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
		map[string]any{"type": "text", "text": "fix a.txt"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file://" + root + "/a.txt", "text": "old\n"}},
		map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
	}})
	sch.checkResult(t, "session/prompt", res)
	kinds := map[string]int{}
	for _, n := range c.Notifications("session/update") {
		sch.checkSent(t, n.Method, n.Params)
		var p struct {
			Update struct{ SessionUpdate string }
		}
		_ = json.Unmarshal(n.Params, &p)
		kinds[p.Update.SessionUpdate]++
	}
	for _, k := range []string{"available_commands_update", "current_mode_update", "session_info_update", "plan", "agent_thought_chunk",
		"agent_message_chunk", "tool_call", "tool_call_update", "usage_update"} {
		if kinds[k] == 0 {
			t.Errorf("no %s update; got %v", k, kinds)
		}
	}
	for _, m := range []string{"session/request_permission", "fs/read_text_file", "fs/write_text_file", "terminal/create",
		"terminal/wait_for_exit", "terminal/output", "terminal/release"} {
		if sent[m] == 0 {
			t.Errorf("kast never sent %s", m)
		}
	}
	call(t, c, "session/close", map[string]any{"sessionId": sid})

	// The replay, on a new connection.
	c2, _ := startServer(t)
	call(t, c2, "initialize", map[string]any{"protocolVersion": 1})
	sch.checkResult(t, "session/load", call(t, c2, "session/load", map[string]any{"sessionId": sid, "cwd": root, "mcpServers": []any{}}))
	replayed := map[string]int{}
	for _, n := range c2.Notifications("session/update") {
		sch.checkSent(t, n.Method, n.Params)
		var p struct {
			Update struct{ SessionUpdate string }
		}
		_ = json.Unmarshal(n.Params, &p)
		replayed[p.Update.SessionUpdate]++
	}
	if replayed["user_message_chunk"] != 2 || replayed["tool_call"] != 3 || replayed["plan"] != 1 {
		t.Errorf("replay: %v", replayed)
	}
	sch.checkResult(t, "session/list", call(t, c2, "session/list", map[string]any{"cwd": root}))
}

// TestDocExamples replays the requests of the ACP documentation's examples
// (acp-v1-doc-examples.jsonl) that kast serves, with the example's paths
// made this machine's, and validates kast's replies.
func TestDocExamples(t *testing.T) {
	sch := loadSchema(t)
	f, err := os.Open(filepath.Join(servertest.Shared(t, "reference/agent-protocols"), "acp-v1-doc-examples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, root := acpServer(t, `{"text":["Hello."]}`)
	// The examples' own session/new comes after their prompts: they run
	// on this one until then.
	latest := newSession(t, c, root, nil)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	replayed := 0
	for sc.Scan() {
		var ex struct {
			Source  string
			Message struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		m := ex.Message
		if _, ok := agentSentDefs[m.Method]; ok {
			continue // some of the docs' own examples do not follow the schema
		}
		if m.ID == nil || clientSentDefs[m.Method] == "" || m.Method == "initialize" || m.Method == "authenticate" {
			continue
		}
		var params map[string]any
		_ = json.Unmarshal(m.Params, &params)
		if _, ok := params["cwd"]; ok {
			params["cwd"] = root
		}
		delete(params, "additionalDirectories")
		params["mcpServers"] = []any{} // the examples' servers do not exist here
		if m.Method == "session/list" {
			params = map[string]any{"cwd": root}
		}
		if m.Method == "session/load" || m.Method == "session/resume" {
			continue // they name sessions stored elsewhere
		}
		if _, ok := params["sessionId"].(string); ok {
			if latest == "" {
				continue
			}
			params["sessionId"] = latest // the example's session is this one
		}
		if m.Method == "session/set_mode" {
			params["modeId"] = "plan" // the examples' modes are their agents'
		}
		res := call(t, c, m.Method, params)
		sch.checkResult(t, m.Method, res)
		if m.Method == "session/close" {
			latest = ""
		}
		if m.Method == "session/new" {
			var s struct{ SessionID string }
			_ = json.Unmarshal(res, &s)
			latest = s.SessionID
		}
		replayed++
		t.Logf("%s: %s replayed", ex.Source, m.Method)
	}
	if replayed < 2 {
		t.Errorf("only %d examples replayed", replayed)
	}
}

// TestPermissionNeverAnswered: a client that never answers a permission
// request still gets its prompt answered "cancelled" once it cancels.
func TestPermissionNeverAnswered(t *testing.T) {
	c, root := acpServer(t, `{"toolCall":{"id":"w1","name":"write_file","arguments":"{\"path\":\"x.txt\",\"content\":\"x\"}"}}`)
	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c.Handle("session/request_permission", func(json.RawMessage) (any, error) {
		asked <- struct{}{}
		<-release
		return nil, nil
	})
	sid := newSession(t, c, root, nil)
	_, reply := c.Go("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "write"}}})
	<-asked
	if err := c.Notify("session/cancel", map[string]any{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-reply:
		if m.Error != nil || !bytes.Contains(m.Result, []byte(`"cancelled"`)) {
			t.Fatalf("prompt: %s %v", m.Result, m.Error)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the prompt never answered")
	}
	if _, err := os.Stat(filepath.Join(root, "x.txt")); err == nil {
		t.Error("the unapproved write ran")
	}
}

// TestHugeLine: a 100 MB line is discarded with an error and the
// connection goes on.
func TestHugeLine(t *testing.T) {
	c, _ := acpServer(t, "")
	line := bytes.Repeat([]byte("a"), server.DefaultMaxFrame+16)
	line = append(line, '\n')
	if err := c.WriteRaw(line); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if m, err := c.WaitOrphan(ctx); err != nil || m.Error == nil {
		t.Fatalf("no error for the huge line: %v %v", m, err)
	}
	call(t, c, "initialize", map[string]any{"protocolVersion": 1})
}
