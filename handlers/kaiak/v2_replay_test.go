package kaiak_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// The v2 recordings of the reference (kaiak-v2-recording-generate_fix_basic
// and _errors) replayed through the aliases: each recorded input is sent as
// recorded (workspace/executeCommand with command kaiak/generate_fix, on
// `kast kaiak rpc`) and as the v2 method itself (on `kast lsp`), and the
// reply must have the recorded shape: the result's session_id,
// incident_count and status, a request id and a completion time; an
// error's code, message and data. The recordings name sessions kast does
// not have, so generate_fix creates them (in the launch folder, the
// fixture), as v2 does. The session conflict needs the session busy: "the
// other client" of the recording is a v1 request left waiting meanwhile.

type recording struct {
	Interactions []struct {
		RequestType string `json:"request_type"`
		Input       struct {
			Method string `json:"method"`
			Params struct {
				Command   string            `json:"command"`
				Arguments []json.RawMessage `json:"arguments"`
			} `json:"params"`
		} `json:"input"`
		Output struct {
			Result map[string]any       `json:"result"`
			Error  *servertest.RPCError `json:"error"`
		} `json:"output"`
	} `json:"interactions"`
}

func TestV2RecordingsReplay(t *testing.T) {
	dir := servertest.Shared(t, "reference/kaiak")
	for _, via := range []string{"executeCommand", "method"} {
		t.Run(via, func(t *testing.T) {
			model := kaiaktest.NewMigrationModel(t)
			kaiaktest.Env(t, model.URL)
			ws := kaiaktest.Fixture(t, "java")
			t.Chdir(ws) // the launch folder, where v2 sessions open
			h := host.New(host.Options{})
			t.Cleanup(h.Close)
			p := handlers.NewProcess(h)
			entry := handlers.KaiakRPC(p)
			if via == "method" {
				entry = handlers.LSP(p)
			}
			c, _ := servertest.Pipe(t, server.New(entry.Options("test", nil)), servertest.Header)
			k := &kc{t: t, c: c}
			if via == "method" {
				if _, err := c.Initialize(ctxT(t), ws, nil); err != nil {
					t.Fatal(err)
				}
			}
			replayed := 0
			for _, name := range []string{"kaiak-v2-recording-generate_fix_basic.json", "kaiak-v2-recording-generate_fix_errors.json"} {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				var rec recording
				if err := json.Unmarshal(data, &rec); err != nil {
					t.Fatal(err)
				}
				for _, in := range rec.Interactions {
					if in.Input.Method != "workspace/executeCommand" || in.Input.Params.Command != "kaiak/generate_fix" || len(in.Input.Params.Arguments) != 1 {
						t.Fatalf("%s: an input of another form: %+v", in.RequestType, in.Input)
					}
					var args map[string]any
					_ = json.Unmarshal(in.Input.Params.Arguments[0], &args)
					release := func() {}
					if in.RequestType == "fix_generation_session_conflict" {
						release = busy(t, k, model, args["session_id"].(string))
					}
					var res map[string]any
					var err error
					if via == "executeCommand" {
						err = c.Call(ctxT(t), "workspace/executeCommand", in.Input.Params, &res)
					} else {
						err = c.Call(ctxT(t), in.Input.Params.Command, in.Input.Params.Arguments[0], &res)
					}
					release()
					check(t, in.RequestType, in.Output.Result, in.Output.Error, res, err)
					replayed++
				}
			}
			if replayed != 6 {
				t.Fatalf("replayed %d interactions, want 6", replayed)
			}
		})
	}
}

// busy makes the session busy with a v1 request waiting for an approval;
// the returned func cancels it.
func busy(t *testing.T, k *kc, model *kaiaktest.MigrationModel, sessionID string) func() {
	t.Helper()
	req := k.call("kaiak/fix/generate", map[string]any{"session_id": sessionID, "incidents": javaIncidents(t, orderJava)})["request_id"].(string)
	k.next("kaiak/stream/user_interaction", req)
	return func() {
		k.call("kaiak/fix/cancel", map[string]any{"request_id": req})
		k.next("kaiak/stream/system", req)
	}
}

var requestID = regexp.MustCompile(`^req-[0-9a-f-]{36}$`)

// check compares a reply with the recorded one.
func check(t *testing.T, what string, wantResult map[string]any, wantErr *servertest.RPCError, got map[string]any, err error) {
	t.Helper()
	if wantErr != nil {
		var rpcErr *servertest.RPCError
		if !errors.As(err, &rpcErr) {
			t.Fatalf("%s: want error %d, got %v %v", what, wantErr.Code, got, err)
		}
		if rpcErr.Code != wantErr.Code || rpcErr.Message != wantErr.Message {
			t.Errorf("%s: want %d %q, got %d %q", what, wantErr.Code, wantErr.Message, rpcErr.Code, rpcErr.Message)
		}
		var wantData, gotData map[string]any
		_ = json.Unmarshal(wantErr.Data, &wantData)
		_ = json.Unmarshal(rpcErr.Data, &gotData)
		for key, v := range wantData {
			g, ok := gotData[key]
			switch {
			case !ok:
				t.Errorf("%s: error data lacks %s: %s", what, key, rpcErr.Data)
			case key == "issue":
				if !strings.HasPrefix(g.(string), v.(string)) {
					t.Errorf("%s: issue %q, recorded %q", what, g, v)
				}
			case key == "in_use_since":
				if _, err := time.Parse(time.RFC3339, g.(string)); err != nil {
					t.Errorf("%s: in_use_since %v", what, g)
				}
			case g != v:
				t.Errorf("%s: data.%s = %v, recorded %v", what, key, g, v)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for _, key := range []string{"session_id", "status", "incident_count"} {
		if got[key] != wantResult[key] {
			t.Errorf("%s: %s = %v, recorded %v", what, key, got[key], wantResult[key])
		}
	}
	if id, _ := got["request_id"].(string); !requestID.MatchString(id) {
		t.Errorf("%s: request_id %v", what, got["request_id"])
	}
	if at, _ := got["completed_at"].(string); at == "" {
		t.Errorf("%s: no completed_at", what)
	} else if _, err := time.Parse(time.RFC3339, at); err != nil {
		t.Errorf("%s: completed_at %q", what, at)
	}
}
