package kaiak_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/handlers/kaiak"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server/servertest"
)

// The contract's limits, each refused with -32015 and a message naming it
// (the ten concurrent fix requests are in testdata/kaiak/transcripts/limits).

func limitErr(t *testing.T, e *servertest.RPCError, limit, phrase string) {
	t.Helper()
	var data struct {
		Code  string `json:"code"`
		Limit string `json:"limit"`
	}
	_ = json.Unmarshal(e.Data, &data)
	if e.Code != -32015 || data.Code != "RESOURCE_EXHAUSTED" || data.Limit != limit || !strings.Contains(e.Message, phrase) {
		t.Fatalf("want -32015 naming %s (%q), got %d %s %s", limit, phrase, e.Code, e.Message, e.Data)
	}
}

func incident(id, file string) map[string]any {
	return map[string]any{"id": id, "rule_id": "r", "file_path": file, "line_number": 1, "severity": "info", "message": "m"}
}

func TestLimits(t *testing.T) {
	kaiaktest.Env(t, kaiaktest.NewScript(t, []byte(`{"text":["ok"]}`)).URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()

	// Request payload: 10 MB.
	pad := strings.Repeat("x", kaiak.MaxRequestBytes)
	limitErr(t, k.fail("kaiak/session/create", map[string]any{"workspace_path": ws, "padding": pad}), "requestBytes", "request payload limit exceeded")

	sid := k.session(ws, nil)
	// Incidents: 1000 per request.
	var many []map[string]any
	for i := range kaiak.MaxIncidents + 1 {
		many = append(many, incident(fmt.Sprint(i), orderJava))
	}
	limitErr(t, k.fail("kaiak/fix/generate", map[string]any{"session_id": sid, "incidents": many}), "incidents",
		"the request has 1001 incidents; the limit is 1000 per request")
	limitErr(t, k.fail("kaiak/generate_fix", map[string]any{"session_id": sid, "incidents": many}), "incidents", "incident limit exceeded")
	// 1000 are accepted.
	res := k.call("kaiak/fix/generate", map[string]any{"session_id": sid, "incidents": many[:kaiak.MaxIncidents]})
	if res["incident_count"] != 1000.0 {
		t.Fatalf("1000 incidents: %v", res)
	}
	k.next("kaiak/stream/system", res["request_id"].(string))

	// File content: 1 MB.
	big := filepath.Join(ws, "src/Big.java")
	if err := os.WriteFile(big, []byte(strings.Repeat("// filler\n", kaiak.MaxFileBytes/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	limitErr(t, k.fail("kaiak/fix/generate", map[string]any{"session_id": sid, "incidents": []any{incident("b", "src/Big.java")}}),
		"fileBytes", "file content limit exceeded: src/Big.java is 1048580 bytes; the limit is 1 MB")

	// Status requests: 100 a minute per session.
	for i := range kaiak.MaxStatusPerMinute - 1 { // one was not made yet: the 1000-incident request did not ask
		if st := k.call("kaiak/session/status", map[string]any{"session_id": sid}); st["session_id"] != sid {
			t.Fatalf("status %d: %v", i, st)
		}
	}
	k.call("kaiak/session/status", map[string]any{"session_id": sid})
	limitErr(t, k.fail("kaiak/session/status", map[string]any{"session_id": sid}), "statusRequestsPerMinute",
		"at most 100 kaiak/session/status requests per minute per session")
	// Per session: another session is not limited.
	other := k.session(ws, nil)
	k.call("kaiak/session/status", map[string]any{"session_id": other})
}

// A stream message is at most 1 MB: a longer answer is split into
// consecutive partial messages, a larger proposal has its contents
// truncated with a marker (the change applied is still the whole one).
func TestStreamMessageLimit(t *testing.T) {
	long := strings.Repeat("jakarta <ee> & \"quotes\"\n", 46_000) // 1.1 MB, escapes included
	ws := kaiaktest.Fixture(t, "java")
	orig := strings.Repeat("// the original javax line\n", 21_000) // 0.57 MB: with its proposal, over 1 MB
	if err := os.WriteFile(filepath.Join(ws, "src/Large.java"), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	proposed := strings.ReplaceAll(orig, "javax", "jakarta")
	args, _ := json.Marshal(map[string]any{"path": "src/Large.java", "content": proposed})
	tooBig, _ := json.Marshal(map[string]any{"path": "src/Large.java", "content": proposed + strings.Repeat("x", 500_000)})
	lines := []kaiaktest.Reply{
		{Text: []string{long}, ToolCall: &kaiaktest.ToolCall{ID: "w1", Name: "write_file", Arguments: string(tooBig)}},
		{ToolCall: &kaiaktest.ToolCall{ID: "w2", Name: "write_file", Arguments: string(args)}},
		{Text: []string{"done"}},
	}
	var script []byte
	for _, l := range lines {
		data, _ := json.Marshal(l)
		script = append(append(script, data...), '\n')
	}
	kaiaktest.Env(t, kaiaktest.NewScript(t, script).URL)
	k := newProcess(t)()
	sid := k.session(ws, nil)
	req := k.generate(sid, []any{incident("l", "src/Large.java")})
	ask := k.next("kaiak/stream/user_interaction", req)
	if res, rerr := k.respond(ask["interaction_id"].(string), true); rerr != nil || res["applied"] != true {
		t.Fatalf("approving the large change: %v %v", res, rerr)
	}
	if read(t, filepath.Join(ws, "src/Large.java")) != proposed {
		t.Fatal("the approved change was not applied whole")
	}
	k.next("kaiak/stream/system", req)

	var texts strings.Builder
	finals, truncated, fileLimit := 0, 0, 0
	for _, m := range k.c.Notifications("") {
		if len(m.Params) > kaiak.MaxStreamMessageBytes {
			t.Errorf("%s is %d bytes", m.Method, len(m.Params))
		}
		var n note
		_ = json.Unmarshal(m.Params, &n)
		c := n.content()
		switch m.Method {
		case "kaiak/stream/ai_response":
			texts.WriteString(c["text"].(string))
			if c["partial"] == false {
				finals++
			}
		case "kaiak/stream/file_modification":
			if c["truncated"] == true && strings.Contains(c["proposed_content"].(string), "[truncated by kast:") {
				truncated++
			}
		case "kaiak/stream/error":
			if c["code"] == -32015.0 && c["limit"] == "fileBytes" {
				fileLimit++
			}
		}
	}
	// The long answer streams twice (deltas, then the whole message), each
	// in parts; then "done" does.
	if texts.String() != long+long+"done"+"done" {
		t.Errorf("the answer's parts do not add up: %d bytes", texts.Len())
	}
	if finals != 2 {
		t.Errorf("%d final ai_response parts, want 2", finals)
	}
	if truncated != 1 || fileLimit != 1 {
		t.Errorf("%d truncated proposals, %d file-limit errors; want 1 and 1", truncated, fileLimit)
	}
}

// A session whose file cannot be created is -32001.
func TestSessionCreationFailed(t *testing.T) {
	kaiaktest.Env(t, "")
	blocker := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", blocker)
	k := newProcess(t)()
	e := k.fail("kaiak/session/create", map[string]any{"workspace_path": t.TempDir()})
	if e.Code != -32001 || e.DataCode() != "SESSION_CREATION_FAILED" || !strings.HasPrefix(e.Message, "session creation failed: ") {
		t.Fatalf("got %d %s %s", e.Code, e.Message, e.Data)
	}
}
