package kaiak_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// End to end on the Java fixture (testdata/kaiak/java.txtar) with the
// javax → jakarta incidents (testdata/kaiak/java-incidents.json), against
// the loopback migration model, which proposes edit_file replacements for
// the file each prompt names. Each test reads as one user's session.

// kc is a Kaiak client of `kast kaiak rpc`, served in-process.
type kc struct {
	t *testing.T
	c *servertest.Client
	// taken are the notifications next consumed, in order.
	mu    sync.Mutex
	taken []*servertest.Message
}

// all returns the notifications received so far, those next took and
// those still queued.
func (k *kc) all() []*servertest.Message {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append(append([]*servertest.Message(nil), k.taken...), k.c.Notifications("")...)
}

// newProcess serves one process's `kast kaiak rpc` and returns a client
// factory: every client is its own connection to the same server.
func newProcess(t *testing.T) func() *kc {
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	srv := server.New(handlers.KaiakRPC(handlers.NewProcess(h)).Options("test", nil))
	return func() *kc {
		c, _ := servertest.Pipe(t, srv, servertest.Header)
		return &kc{t: t, c: c}
	}
}

// ctxT bounds one call or wait: a guard against hangs, longer under the
// race detector, which makes the megabyte-sized messages of the limit tests
// slow.
func ctxT(t testing.TB) context.Context {
	d := 30 * time.Second
	if raceEnabled {
		d = 3 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func (k *kc) call(method string, params any) map[string]any {
	k.t.Helper()
	var res map[string]any
	if err := k.c.Call(ctxT(k.t), method, params, &res); err != nil {
		k.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// fail calls a method that must fail and returns its error.
func (k *kc) fail(method string, params any) *servertest.RPCError {
	k.t.Helper()
	err := k.c.Call(ctxT(k.t), method, params, nil)
	var rpcErr *servertest.RPCError
	if !errors.As(err, &rpcErr) {
		k.t.Fatalf("%s: want an error, got %v", method, err)
	}
	return rpcErr
}

// note is a stream notification's params.
type note map[string]any

func (n note) content() map[string]any { c, _ := n["content"].(map[string]any); return c }

// next waits for the request's next notification of method.
func (k *kc) next(method, requestID string) note {
	k.t.Helper()
	m, err := k.c.WaitNotificationFunc(ctxT(k.t), method, func(m *servertest.Message) bool {
		var p struct {
			RequestID string `json:"request_id"`
		}
		return json.Unmarshal(m.Params, &p) == nil && p.RequestID == requestID
	})
	if err != nil {
		k.t.Fatalf("waiting for %s of %s: %v", method, requestID, err)
	}
	k.mu.Lock()
	k.taken = append(k.taken, m)
	k.mu.Unlock()
	var n note
	if err := json.Unmarshal(m.Params, &n); err != nil {
		k.t.Fatal(err)
	}
	return n
}

func (k *kc) session(workspace string, config map[string]any) string {
	params := map[string]any{"workspace_path": workspace}
	if config != nil {
		params["configuration"] = config
	}
	return k.call("kaiak/session/create", params)["session_id"].(string)
}

func (k *kc) generate(sessionID string, incidents any) string {
	res := k.call("kaiak/fix/generate", map[string]any{"session_id": sessionID, "incidents": incidents,
		"migration_context": map[string]any{"source_technology": "Java EE 8", "target_technology": "Jakarta EE 9"}})
	if res["status"] != "processing" {
		k.t.Fatalf("fix/generate: %v", res)
	}
	return res["request_id"].(string)
}

func (k *kc) respond(interactionID string, approved bool) (map[string]any, *servertest.RPCError) {
	var res map[string]any
	err := k.c.Call(ctxT(k.t), "kaiak/interaction/respond", map[string]any{"interaction_id": interactionID,
		"response_type": "approval", "response_data": map[string]any{"approved": approved}}, &res)
	var rpcErr *servertest.RPCError
	if errors.As(err, &rpcErr) {
		return nil, rpcErr
	}
	if err != nil {
		k.t.Fatal(err)
	}
	return res, nil
}

// javaIncidents reads the fixture's v1 incidents, optionally only those of
// one file.
func javaIncidents(t *testing.T, file string) []map[string]any {
	data, err := os.ReadFile(filepath.Join(kaiaktest.Testdata(), "java-incidents.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, in := range all {
		if file == "" || in["file_path"] == file {
			out = append(out, in)
		}
	}
	return out
}

func read(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const (
	orderJava   = "src/main/java/com/example/Order.java"
	serviceJava = "src/main/java/com/example/OrderService.java"
)

// Approve: both files are proposed, approved and changed; each change was
// checked against the file's hash as proposed.
func TestEndToEndApprove(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	before := map[string]string{orderJava: read(t, filepath.Join(ws, orderJava)), serviceJava: read(t, filepath.Join(ws, serviceJava))}
	req := k.generate(sid, javaIncidents(t, ""))
	for range 2 {
		mod := k.next("kaiak/stream/file_modification", req)
		ask := k.next("kaiak/stream/user_interaction", req)
		c := mod.content()
		path := c["file_path"].(string)
		if c["original_content"] != before[path] || c["original_hash"] != agent.ContentHash(before[path]) ||
			c["proposed_content"] != strings.ReplaceAll(before[path], "javax.", "jakarta.") || c["change_type"] != "edit" ||
			c["confidence"] != 0.9 || !strings.Contains(c["diff"].(string), "+import jakarta.") {
			t.Fatalf("proposal %v", c)
		}
		if ask.content()["proposal_id"] != mod["proposal_id"] {
			t.Fatalf("the approval names %v, the proposal is %v", ask.content()["proposal_id"], mod["proposal_id"])
		}
		if got := read(t, filepath.Join(ws, path)); got != before[path] {
			t.Fatalf("%s changed before the approval", path)
		}
		res, rerr := k.respond(ask["interaction_id"].(string), true)
		if rerr != nil || res["applied"] != true {
			t.Fatalf("respond: %v %v", res, rerr)
		}
		if got := read(t, filepath.Join(ws, path)); got != c["proposed_content"] {
			t.Fatalf("%s after the approval:\n%s", path, got)
		}
	}
	done := k.next("kaiak/stream/system", req).content()
	sum := done["summary"].(map[string]any)
	if done["status"] != "success" || sum["incidents_processed"] != 4.0 || sum["proposals_generated"] != 2.0 ||
		sum["proposals_applied"] != 2.0 || sum["user_interactions"] != 2.0 || sum["files"] != 2.0 {
		t.Fatalf("request_completed %v", done)
	}
	st := k.call("kaiak/session/status", map[string]any{"session_id": sid})
	if st["status"] != "completed" || fmt.Sprint(st["files_modified"]) != fmt.Sprint([]any{orderJava, serviceJava}) {
		t.Fatalf("status %v", st)
	}
	// Nothing else in the workspace changed.
	if got := read(t, filepath.Join(ws, "src/main/java/com/example/HelloServlet.java")); !strings.Contains(got, "javax.servlet") {
		t.Fatal("an unrelated file changed")
	}
}

// Reject: the files stay as they are and the model is told.
func TestEndToEndReject(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	before := read(t, filepath.Join(ws, orderJava))
	req := k.generate(sid, javaIncidents(t, orderJava))
	ask := k.next("kaiak/stream/user_interaction", req)
	if _, rerr := k.respond(ask["interaction_id"].(string), false); rerr != nil {
		t.Fatal(rerr)
	}
	start := k.next("kaiak/stream/tool_call", req).content()
	result := k.next("kaiak/stream/tool_call", req).content()
	if start["operation"] != "start" || result["operation"] != "error" ||
		!strings.Contains(result["result"].(map[string]any)["data"].(string), "did not approve") {
		t.Fatalf("tool call %v / %v", start, result)
	}
	var answer string
	for answer == "" {
		if c := k.next("kaiak/stream/ai_response", req).content(); c["partial"] == false && strings.Contains(c["text"].(string), "not approved") {
			answer = c["text"].(string)
		}
	}
	if done := k.next("kaiak/stream/system", req).content(); done["status"] != "success" || done["summary"].(map[string]any)["proposals_applied"] != 0.0 {
		t.Fatalf("request_completed %v", done)
	}
	if read(t, filepath.Join(ws, orderJava)) != before {
		t.Fatal("a rejected change was written")
	}
}

// Timeout: no answer denies the change; a late answer is refused.
func TestEndToEndTimeout(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, map[string]any{"interaction_timeout": 0.2})
	before := read(t, filepath.Join(ws, orderJava))
	req := k.generate(sid, javaIncidents(t, orderJava))
	ask := k.next("kaiak/stream/user_interaction", req)
	errNote := k.next("kaiak/stream/error", req).content()
	if errNote["error_code"] != "TOOL_EXECUTION_TIMEOUT" || errNote["code"] != -32013.0 || errNote["recoverable"] != true {
		t.Fatalf("error %v", errNote)
	}
	k.next("kaiak/stream/system", req)
	if _, rerr := k.respond(ask["interaction_id"].(string), true); rerr == nil || rerr.Code != -32010 {
		t.Fatalf("a late answer: %v", rerr)
	}
	if read(t, filepath.Join(ws, orderJava)) != before {
		t.Fatal("a timed-out change was written")
	}
}

// Cancel mid-stream: the model is held mid-answer; the request ends
// "cancelled", the held model request is abandoned, nothing is proposed.
func TestEndToEndCancelMidStream(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	hold := make(chan struct{})
	model.SetHold(hold)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	req := k.generate(sid, javaIncidents(t, ""))
	k.next("kaiak/stream/thinking", req)
	k.next("kaiak/stream/ai_response", req) // "I will replace…": the model is mid-stream
	res := k.call("kaiak/fix/cancel", map[string]any{"request_id": req})
	if res["status"] != "cancelled" {
		t.Fatalf("cancel %v", res)
	}
	done := k.next("kaiak/stream/system", req).content()
	if done["status"] != "cancelled" || done["summary"].(map[string]any)["proposals_generated"] != 0.0 {
		t.Fatalf("request_completed %v", done)
	}
	close(hold)
	// The second file was never started.
	if n := model.Requests.Load(); n != 1 {
		t.Fatalf("%d model requests after the cancel", n)
	}
	if fe := k.fail("kaiak/fix/cancel", map[string]any{"request_id": req}); fe.Code != -32008 {
		t.Fatalf("second cancel: %v", fe)
	}
	// The session goes on.
	req2 := k.generate(sid, javaIncidents(t, orderJava))
	ask := k.next("kaiak/stream/user_interaction", req2)
	k.respond(ask["interaction_id"].(string), true)
	if done := k.next("kaiak/stream/system", req2).content(); done["status"] != "success" {
		t.Fatalf("after the cancel: %v", done)
	}
}

// Two sessions at once, on two connections of one server: each sees only
// its own stream and changes only its own workspace.
func TestEndToEndTwoSessionsAtOnce(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	model.Delay = 20 * time.Millisecond
	kaiaktest.Env(t, model.URL)
	connect := newProcess(t)
	var wg sync.WaitGroup
	for i := range 2 {
		ws := kaiaktest.Fixture(t, "java")
		k := connect()
		wg.Go(func() {
			sid := k.session(ws, nil)
			req := k.generate(sid, javaIncidents(t, ""))
			for range 2 {
				ask := k.next("kaiak/stream/user_interaction", req)
				if ask["session_id"] != sid {
					t.Errorf("session %d got %v", i, ask)
				}
				// The first session approves, the second rejects.
				k.respond(ask["interaction_id"].(string), i == 0)
			}
			done := k.next("kaiak/stream/system", req).content()
			if done["status"] != "success" || done["summary"].(map[string]any)["proposals_applied"] != float64(2*(1-i)) {
				t.Errorf("session %d: %v", i, done)
			}
			for _, n := range k.c.Notifications("") {
				var p struct {
					SessionID string `json:"session_id"`
				}
				if json.Unmarshal(n.Params, &p) == nil && p.SessionID != "" && p.SessionID != sid {
					t.Errorf("session %d's connection got %s of %s", i, n.Method, p.SessionID)
				}
			}
			changed := strings.Contains(read(t, filepath.Join(ws, orderJava)), "jakarta.persistence")
			if changed != (i == 0) {
				t.Errorf("session %d: Order.java changed = %v", i, changed)
			}
		})
	}
	wg.Wait()
}

// A file changed on disk between the proposal and its approval: the change
// is not applied (-32012 to the approval, a stream error), the file keeps
// what was written meanwhile, and the model is told to read it again.
func TestEndToEndFileChangedBeforeApproval(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	req := k.generate(sid, javaIncidents(t, orderJava))
	ask := k.next("kaiak/stream/user_interaction", req)
	meanwhile := read(t, filepath.Join(ws, orderJava)) + "// edited by hand\n"
	if err := os.WriteFile(filepath.Join(ws, orderJava), []byte(meanwhile), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rerr := k.respond(ask["interaction_id"].(string), true)
	if rerr == nil || rerr.Code != -32012 || rerr.DataCode() != "FILE_MODIFICATION_FAILED" || !strings.Contains(rerr.Message, "changed on disk") {
		t.Fatalf("respond: %v", rerr)
	}
	e := k.next("kaiak/stream/error", req).content()
	if e["code"] != -32012.0 || e["recoverable"] != true || e["file_path"] != orderJava {
		t.Fatalf("stream error %v", e)
	}
	k.next("kaiak/stream/tool_call", req)
	result := k.next("kaiak/stream/tool_call", req).content()["result"].(map[string]any)
	if result["success"] != false || !strings.Contains(result["data"].(string), "Read it again") {
		t.Fatalf("tool result %v", result)
	}
	k.next("kaiak/stream/system", req)
	if got := read(t, filepath.Join(ws, orderJava)); got != meanwhile {
		t.Fatalf("the file lost the edit made meanwhile:\n%s", got)
	}
}

// Terminating a session denies its pending proposal.
func TestEndToEndTerminateDenies(t *testing.T) {
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	before := read(t, filepath.Join(ws, orderJava))
	req := k.generate(sid, javaIncidents(t, orderJava))
	ask := k.next("kaiak/stream/user_interaction", req)
	res := k.call("kaiak/session/terminate", map[string]any{"session_id": sid})
	if res["status"] != "terminated" {
		t.Fatalf("terminate %v", res)
	}
	if done := k.next("kaiak/stream/system", req).content(); done["status"] != "cancelled" {
		t.Fatalf("request_completed %v", done)
	}
	if _, rerr := k.respond(ask["interaction_id"].(string), true); rerr == nil || rerr.Code != -32010 {
		t.Fatalf("answer after terminate: %v", rerr)
	}
	if read(t, filepath.Join(ws, orderJava)) != before {
		t.Fatal("written after terminate")
	}
}

// The reference's sample incidents (kaiak-v1-sample_incidents.json, three
// files in three languages) run as they are: one turn per file, in order.
func TestEndToEndSampleIncidents(t *testing.T) {
	dir := servertest.Shared(t, "reference/kaiak")
	data, err := os.ReadFile(filepath.Join(dir, "kaiak-v1-sample_incidents.json"))
	if err != nil {
		t.Fatal(err)
	}
	var incidents []any
	if err := json.Unmarshal(data, &incidents); err != nil {
		t.Fatal(err)
	}
	model := kaiaktest.NewMigrationModel(t)
	kaiaktest.Env(t, model.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	req := k.generate(sid, incidents)
	var files []string
	for range 3 {
		p := k.next("kaiak/stream/progress", req).content()
		if p["phase"] == "analyzing_incidents" {
			p = k.next("kaiak/stream/progress", req).content()
		}
		files = append(files, p["description"].(string))
	}
	done := k.next("kaiak/stream/system", req).content()
	if done["status"] != "success" || done["summary"].(map[string]any)["incidents_processed"] != 3.0 {
		t.Fatalf("request_completed %v", done)
	}
	want := []string{"src/example.java (file 1 of 3)", "src/unsafe_code.rs (file 2 of 3)", "scripts/migration.py (file 3 of 3)"}
	for i, w := range want {
		if !strings.HasSuffix(files[i], w) {
			t.Fatalf("progress %q, want … %s", files[i], w)
		}
	}
}
