package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kwardSession is a session file as Kward writes it, with record types kast
// does not know, a compaction, a rename and a torn last line.
const kwardSession = `{"type":"session","version":2,"id":"0f7c2a9e-1111-4222-8333-444455556666","timestamp":"2026-06-14T10:22:33.123Z","cwd":"/home/dev/proj","provider":"OpenRouter","model":"openai/gpt-4.1"}
{"type":"system_prompt","timestamp":"2026-06-14T10:22:33.200Z","reason":"attach","hash":"sha256:00","content":"sys"}
{"type":"message","id":"m1","parentId":null,"timestamp":"2026-06-14T10:22:34.000Z","message":{"role":"user","content":[{"type":"text","text":"read the README"},{"type":"image","data":"aGk=","mimeType":"image/png","alt":"shot.png"}],"id":"m1"}}
{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-06-14T10:22:35.000Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"README.md\"}"}}],"reasoning_summary":"look first","usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15},"id":"m2"}}
{"type":"message","id":"m3","parentId":"m2","timestamp":"2026-06-14T10:22:36.000Z","message":{"role":"tool","tool_call_id":"call_1","name":"read_file","content":"# Proj","id":"m3"}}
{"type":"tool_execution_end","timestamp":"2026-06-14T10:22:36.001Z","toolCallId":"call_1","toolName":"read","args":{},"result":{"content":"# Proj","isError":false},"isError":false}
{"type":"message","id":"m4","parentId":"m3","timestamp":"2026-06-14T10:22:37.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"done"},{"type":"text","text":"It is a project."}],"id":"m4"}}
{"type":"session_info","timestamp":"2026-06-14T10:22:38.000Z","name":"readme chat"}
{"type":"compaction","id":"c1","parentId":"m4","timestamp":"2026-06-14T10:22:39.000Z","message":{"role":"compactionSummary","summary":"Read the README.","first_kept_entry_id":"m4","tokens_before":1234}}
{"type":"memory_state","timestamp":"2026-06-14T10:22:40.000Z","sessionMemories":[]}
{"type":"message","id":"m5","parentId":"c1","timestamp":"2026-06-14T10:22:41.000Z","message":{"role":"user","content":"thanks","id":"m5"}}
{"type":"message","id":"m6","parentId":"m5","timest`

func TestLoadKwardSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "2026-06-14T10-22-33.123Z_0f7c2a9e-1111-4222-8333-444455556666.jsonl")
	if err := os.WriteFile(path, []byte(kwardSession), 0o600); err != nil {
		t.Fatal(err)
	}
	ld, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ld.Header.ID != "0f7c2a9e-1111-4222-8333-444455556666" || ld.Header.Cwd != "/home/dev/proj" || ld.Name != "readme chat" {
		t.Fatalf("header %+v name %q", ld.Header, ld.Name)
	}
	var roles []string
	for _, m := range ld.Messages {
		roles = append(roles, m.Role)
	}
	// The compaction replaced m1..m3 by its summary and kept m4.
	if got := strings.Join(roles, ","); got != "compactionSummary,assistant,user" {
		t.Fatalf("branch roles = %s", got)
	}
	if ld.Messages[1].Text != "It is a project." || ld.Messages[1].ReasoningSummary != "done" {
		t.Fatalf("assistant parts: %+v", ld.Messages[1])
	}

	// Without the compaction the full branch is restored, with images, tool
	// calls and usage.
	noCompaction := strings.Replace(kwardSession, `"parentId":"c1"`, `"parentId":"m4"`, 1)
	os.WriteFile(path, []byte(noCompaction), 0o600)
	ld, _ = Load(path)
	if len(ld.Messages) != 5 {
		t.Fatalf("got %d messages", len(ld.Messages))
	}
	user, asst := ld.Messages[0], ld.Messages[1]
	if len(user.Images) != 1 || user.Images[0].Alt != "shot.png" || user.Text != "read the README" {
		t.Fatalf("user message: %+v", user)
	}
	if len(asst.ToolCalls) != 1 || asst.ToolCalls[0].Name != "read_file" || asst.Usage.TotalTokens != 15 {
		t.Fatalf("assistant message: %+v", asst)
	}
	if s := ld.Summarize(); s.MessageCount != 5 || s.FirstMessage != "read the README" {
		t.Fatalf("summary: %+v", s)
	}
}

func TestAppendAfterResume(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	log, err := store.Create(Header{Cwd: "/w", Provider: "openai", Model: "gpt"})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := log.AppendMessage(Message{Role: RoleUser, Text: "one"})
	log.SetName("named")
	log2, ld, err := Open(log.Path())
	if err != nil || len(ld.Messages) != 1 || ld.Name != "named" {
		t.Fatalf("open: %v %+v", err, ld)
	}
	second, _ := log2.AppendMessage(Message{Role: RoleAssistant, Text: "two"})
	data, _ := os.ReadFile(log.Path())
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"type":"session"`) || !strings.Contains(lines[0], `"version":2`) {
		t.Fatalf("file:\n%s", data)
	}
	if !strings.Contains(lines[3], `"parentId":"`+first.ID+`"`) || !strings.Contains(lines[3], `"id":"`+second.ID+`"`) {
		t.Fatalf("resumed append does not link to the previous entry:\n%s", lines[3])
	}
	if !strings.Contains(lines[1], `"parentId":null`) {
		t.Fatalf("first entry: %s", lines[1])
	}
	// Creating the same file again fails rather than overwriting (O_EXCL).
	if _, err := os.OpenFile(log.Path(), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		t.Fatal("O_EXCL create of an existing session file succeeded")
	}
	list, err := store.List("/w", 10)
	if err != nil || len(list) != 1 || list[0].Name != "named" || list[0].MessageCount != 2 {
		t.Fatalf("list: %v %+v", err, list)
	}
}

func TestHeaderRecoveredFromFilename(t *testing.T) {
	path := filepath.Join(t.TempDir(), "2026-06-14T10-22-33.123Z_abc.jsonl")
	os.WriteFile(path, []byte(`{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi"}}`+"\n"), 0o600)
	ld, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ld.Header.ID != "abc" || ld.Header.Timestamp != "2026-06-14T10:22:33.123Z" || len(ld.Messages) != 1 {
		t.Fatalf("recovered %+v, %d messages", ld.Header, len(ld.Messages))
	}
}
