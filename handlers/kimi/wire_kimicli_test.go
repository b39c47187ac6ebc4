package kimi_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/handlers/kimi"
)

// A session folder as kimi-cli writes it (docs and src/kimi_cli/soul/
// context.py, session_state.py): context.jsonl opens with the
// _system_prompt record, then messages with content parts, tool calls and
// results, _checkpoint and _usage records; state.json has no kast_session.
// The fixture also holds what a reader must skip: a record of a role it
// does not know, a line that is not JSON, an image part.
const kimiCLIContext = `{"role":"_system_prompt","content":"You are Kimi Code CLI."}
{"role":"_checkpoint","id":0}
{"role":"user","content":[{"type":"text","text":"remember the word walnut and look at go.mod"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}
{"role":"assistant","content":[{"type":"think","think":"read the file first"},{"type":"text","text":"Reading it."}],"tool_calls":[{"type":"function","id":"ReadFile:0","function":{"name":"ReadFile","arguments":"{\"path\":\"go.mod\"}"}}]}
{"role":"tool","content":[{"type":"text","text":"<system>1 lines read</system>"},{"type":"text","text":"module example.com/nutshell"}],"tool_call_id":"ReadFile:0"}
{"role":"_usage","token_count":1234}
{"role":"_micro_compaction","payload":{"dropped":3}}
this line is not JSON
{"role":"assistant","content":"The module is example.com/nutshell; I will remember walnut."}
{"role":"_checkpoint","id":1}
`

const kimiCLIState = `{"version":1,"approval":{"yolo":false,"afk":false,"auto_approve_actions":["run command"]},
"additional_dirs":[],"custom_title":"walnut","plan_mode":false,"todos":[{"title":"Read go.mod","status":"done"}]}`

// TestWireResumesKimiCLISession: `--session ID` on a session kimi-cli wrote
// goes on from its conversation (the model's next request carries it, tool
// call and result included, and not kimi-cli's system prompt); state.json
// keeps kimi-cli's fields; a later --continue resumes the same kast
// session rather than importing again.
func TestWireResumesKimiCLISession(t *testing.T) {
	url, bodies := bodyModel(t, "Walnut.")
	data := testEnv(t, url)
	work := t.TempDir()
	real, _ := filepath.EvalSymlinks(work)
	sum := md5.Sum([]byte(real))
	dir := filepath.Join(data, "kast", "kimi", "sessions", hex.EncodeToString(sum[:]), "from-kimi")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"context.jsonl": kimiCLIContext, "state.json": kimiCLIState,
		"wire.jsonl": `{"type":"metadata","protocol_version":"1.10"}` + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	c, conn := wireServer(t, kimi.WireOptions{WorkDir: work, SessionID: "from-kimi"})
	call(t, c, "p1", "prompt", map[string]any{"user_input": "which word?"})
	_ = c.Close()
	<-conn.Done()
	got := bodies()
	if len(got) != 1 {
		t.Fatalf("%d model requests", len(got))
	}
	var req struct {
		Messages []struct {
			Role       string                `json:"role"`
			Content    any                   `json:"content"`
			ToolCalls  []struct{ ID string } `json:"tool_calls"`
			ToolCallID string                `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(got[0]), &req); err != nil {
		t.Fatal(err)
	}
	var seq []string
	for _, m := range req.Messages {
		text, _ := json.Marshal(m.Content)
		if strings.Contains(string(text), "You are Kimi Code CLI") {
			t.Error("kimi-cli's system prompt reached the model")
		}
		switch {
		case m.Role == "system":
			continue
		case len(m.ToolCalls) > 0:
			seq = append(seq, "assistant calls "+m.ToolCalls[0].ID)
		case m.Role == "tool":
			seq = append(seq, "tool "+m.ToolCallID+": "+string(text))
		default:
			seq = append(seq, m.Role+": "+string(text))
		}
	}
	want := []string{
		`user: "remember the word walnut and look at go.mod"`,
		`assistant calls ReadFile:0`,
		`tool ReadFile:0: "\u003csystem\u003e1 lines read\u003c/system\u003emodule example.com/nutshell"`,
		`assistant: "The module is example.com/nutshell; I will remember walnut."`,
		`user: "which word?"`,
	}
	if strings.Join(seq, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the model saw:\n%s\nwant:\n%s", strings.Join(seq, "\n"), strings.Join(want, "\n"))
	}

	var state map[string]any
	raw, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	if state["custom_title"] != "walnut" || state["approval"] == nil || state["kast_session"] == nil {
		t.Fatalf("state.json lost kimi-cli's fields or has no kast session: %s", raw)
	}
	if todos, _ := state["todos"].([]any); len(todos) != 1 {
		t.Fatalf("state.json todos: %s", raw)
	}

	// kast's records are kimi-cli's too: the assistant's reply follows
	// kimi-cli's, and --continue goes on in the same kast session.
	ctxFile, _ := os.ReadFile(filepath.Join(dir, "context.jsonl"))
	if !strings.HasPrefix(string(ctxFile), kimiCLIContext) || !strings.Contains(string(ctxFile), `"content":"Walnut."`) {
		t.Fatalf("context.jsonl: %s", ctxFile)
	}
	c2, _ := wireServer(t, kimi.WireOptions{WorkDir: work, Continue: true})
	call(t, c2, "p2", "prompt", map[string]any{"user_input": "again?"})
	got = bodies()
	if n := strings.Count(got[1], "remember the word walnut"); n != 1 || !strings.Contains(got[1], "Walnut.") {
		t.Fatalf("the resumed request holds the imported conversation %d times: %s", n, got[1])
	}
}
