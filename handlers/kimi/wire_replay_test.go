package kimi_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
)

// rawWire is a wire client that sees every line as kast wrote it, ids
// included.
type rawWire struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Scanner
}

func newRawWire(t *testing.T, opts kimi.WireOptions) *rawWire {
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	srv := server.New(handlers.KimiWire(handlers.NewProcess(h), opts).Options("test", nil))
	client, side := net.Pipe()
	conn := srv.Serve(context.Background(), side)
	t.Cleanup(func() {
		_ = client.Close()
		<-conn.Done()
	})
	in := bufio.NewScanner(client)
	in.Buffer(make([]byte, 64<<10), 8<<20)
	return &rawWire{t: t, conn: client, in: in}
}

func (r *rawWire) send(line string) {
	r.t.Helper()
	if _, err := r.conn.Write([]byte(line + "\n")); err != nil {
		r.t.Fatal(err)
	}
}

type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Type    string         `json:"type"`
		Payload map[string]any `json:"payload"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// until reads messages up to the reply to id, and returns those before it
// and the reply.
func (r *rawWire) until(id string) ([]rawMessage, rawMessage) {
	r.t.Helper()
	var before []rawMessage
	for r.in.Scan() {
		var m rawMessage
		if err := json.Unmarshal(r.in.Bytes(), &m); err != nil {
			r.t.Fatalf("kast wrote %q: %v", r.in.Text(), err)
		}
		if m.Method == "" && string(m.ID) == `"`+id+`"` {
			return before, m
		}
		before = append(before, m)
	}
	r.t.Fatalf("the connection ended before the reply to %s: %v", id, r.in.Err())
	return nil, rawMessage{}
}

// Replay sends recorded requests as kimi-cli does: JSON-RPC requests whose
// id is the request's own (the payload's id), so a client that tells
// requests by their id (kimi-agent-sdk) sees them. A client that answers
// one anyway has its answer dropped: nothing is sent back, nothing is
// recorded, no approval is decided, and the connection goes on.
func TestWireReplayedRequestsKeepTheirIDs(t *testing.T) {
	data := testEnv(t, "")
	work := t.TempDir()
	real, _ := filepath.EvalSymlinks(work)
	sum := md5.Sum([]byte(real))
	dir := filepath.Join(data, "kast", "kimi", "sessions", hex.EncodeToString(sum[:]), "rec")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	wire := `{"type":"metadata","protocol_version":"1.10"}
{"timestamp":1.5,"message":{"type":"TurnBegin","payload":{"user_input":"x"}}}
{"timestamp":1.6,"message":{"type":"ApprovalRequest","payload":{"id":"a1","tool_call_id":"c1","sender":"Shell","action":"run shell command","description":"Run command ` + "`ls`" + `","display":[]}}}
{"timestamp":1.7,"message":{"type":"ApprovalResponse","payload":{"request_id":"a1","response":"approve"}}}
{"timestamp":1.8,"message":{"type":"ToolCallRequest","payload":{"id":"c2","name":"open_in_ide","arguments":"{}"}}}
{"timestamp":1.9,"message":{"type":"TurnEnd","payload":{}}}
`
	wirePath := filepath.Join(dir, "wire.jsonl")
	if err := os.WriteFile(wirePath, []byte(wire), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRawWire(t, kimi.WireOptions{WorkDir: work, SessionID: "rec", Version: "test"})
	r.send(`{"jsonrpc":"2.0","id":"r1","method":"replay"}`)
	sent, reply := r.until("r1")
	if !bytes.Contains(reply.Result, []byte(`"events":3`)) || !bytes.Contains(reply.Result, []byte(`"requests":2`)) {
		t.Fatalf("replay answered %s %s", reply.Result, reply.Error)
	}
	var ids []string
	for _, m := range sent {
		if m.Method != "request" {
			continue
		}
		if string(m.ID) != `"`+m.Params.Payload["id"].(string)+`"` {
			t.Errorf("replayed %s has id %s, want its payload's id %q", m.Params.Type, m.ID, m.Params.Payload["id"])
		}
		ids = append(ids, string(m.ID))
	}
	if len(ids) != 2 || ids[0] != `"a1"` || ids[1] != `"c2"` {
		t.Fatalf("replayed requests %v, want \"a1\" then \"c2\", in order", ids)
	}
	before, _ := os.ReadFile(wirePath)

	// The client answers them although it must not.
	r.send(`{"jsonrpc":"2.0","id":"a1","result":{"request_id":"a1","response":"reject"}}`)
	r.send(`{"jsonrpc":"2.0","id":"c2","result":{"tool_call_id":"c2","return_value":{"is_error":false,"output":"ok","message":"","display":[]}}}`)
	r.send(`{"jsonrpc":"2.0","id":"k1","method":"cancel"}`)
	between, cancelReply := r.until("k1")
	if len(between) > 0 {
		t.Fatalf("kast answered the answers: %+v", between)
	}
	if !bytes.Contains(cancelReply.Error, []byte(`-32000`)) {
		t.Fatalf("cancel with no turn: %s %s", cancelReply.Result, cancelReply.Error)
	}
	after, _ := os.ReadFile(wirePath)
	if !bytes.Equal(before, after) {
		t.Fatalf("answering replayed requests changed wire.jsonl:\n%s", after[len(before):])
	}
}
