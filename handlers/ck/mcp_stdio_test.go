package ck

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// mcpPeer is a raw MCP client over the guarded stdio transport.
type mcpPeer struct {
	t     *testing.T
	w     io.WriteCloser
	lines chan []byte
	done  chan error // the server's Run result
}

func startMCP(t *testing.T, maxLine int) *mcpPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &mcpPeer{t: t, w: inW, lines: make(chan []byte, 16), done: make(chan error, 1)}
	go func() {
		p.done <- NewMCPServer(&Service{Version: "test"}).Run(context.Background(), StdioTransport(inR, outW, maxLine))
		outW.Close()
	}()
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(p.lines)
				return
			}
			p.lines <- line
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *mcpPeer) send(lines ...string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, strings.Join(lines, "\n")+"\n"); err != nil {
		p.t.Fatalf("the server stopped reading: %v", err)
	}
}

type mcpReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

// next reads one reply line; a bounded wait only detects a server that
// stopped answering.
func (p *mcpPeer) next() (mcpReply, []byte) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the server ended the session: %v", <-p.done)
		}
		if !utf8.Valid(line) {
			p.t.Fatalf("reply is not valid UTF-8: %q", line)
		}
		var r mcpReply
		if line[0] == '[' {
			return r, line // a batch reply
		}
		if err := json.Unmarshal(line, &r); err != nil {
			p.t.Fatalf("reply %q: %v", line, err)
		}
		return r, line
	case <-time.After(20 * time.Second):
		p.t.Fatal("no reply")
	}
	return mcpReply{}, nil
}

func (p *mcpPeer) wantError(code int64, dataCode, id string) mcpReply {
	p.t.Helper()
	r, line := p.next()
	if r.Error == nil || r.Error.Code != code || (dataCode != "" && r.Error.Data.Code != dataCode) || (id != "" && string(r.ID) != id) {
		p.t.Fatalf("want error %d/%s id %s, got %s", code, dataCode, id, line)
	}
	return r
}

func (p *mcpPeer) wantResult(id string) json.RawMessage {
	p.t.Helper()
	r, line := p.next()
	if r.Error != nil || r.Result == nil || string(r.ID) != id {
		p.t.Fatalf("want the result of %s, got %s", id, line)
	}
	return r.Result
}

func initialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`

// What ended the SDK's session is answered, and the session goes on.
func TestMCPStdioGuard(t *testing.T) {
	p := startMCP(t, 4096)
	// A batch sent right behind initialize is judged by the version
	// initialize negotiates.
	// The two answers come from different writers (the SDK answers
	// initialize, the guard the batch), so in either order.
	p.send(initialize("2025-06-18"), `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	for range 2 {
		r, line := p.next()
		switch {
		case string(r.ID) == "1" && r.Error == nil:
			if !strings.Contains(string(r.Result), `"protocolVersion":"2025-06-18"`) {
				t.Fatalf("initialize: %s", line)
			}
		case r.Error != nil && r.Error.Code == -32600 && r.Error.Data.Code == "INVALID_REQUEST" && string(r.ID) == "null":
			if !strings.Contains(r.Error.Message, "2025-06-18") {
				t.Errorf("batch error does not say why: %q", r.Error.Message)
			}
		default:
			t.Fatalf("want initialize's result and the batch's -32600, got %s", line)
		}
	}
	p.send(initialized)

	p.send(`{"jsonrpc":"2.0","id":3,"method":`)
	p.wantError(-32700, "PARSE_ERROR", "")
	p.send(`{not json}`)
	p.wantError(-32700, "PARSE_ERROR", "null")
	p.send(`{"jsonrpc":"1.0","id":4,"method":"ping"}`)
	p.wantError(-32600, "INVALID_REQUEST", "4")
	p.send(`{"jsonrpc":"2.0","id":{"no":"objects"},"method":"ping"}`)
	p.wantError(-32600, "INVALID_REQUEST", "")
	p.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	p.wantError(-32700, "PARSE_ERROR", "")

	p.send(`{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`)
	p.wantError(-32600, "FRAME_TOO_LARGE", `"big"`)

	// Whitespace around a message is not trailing data.
	p.send(`   {"jsonrpc":"2.0","id":7,"method":"ping"}` + "  \t\r")
	p.wantResult("7")
	p.send("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"no/such\xc3\"}")
	p.next() // checked to be valid UTF-8

	p.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	if res := p.wantResult("8"); !strings.Contains(string(res), "regex_search") {
		t.Fatalf("tools/list: %s", res)
	}
	p.w.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("Run ended with %v at the end of the input", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end at the end of the input")
	}
}

// Before 2025-06-18 batches are served by the SDK; the malformed ones it
// would end the session on are answered instead.
func TestMCPStdioGuardBatches(t *testing.T) {
	p := startMCP(t, 0)
	p.send(initialize("2025-03-26"), initialized)
	p.wantResult("1")
	p.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","id":11,"method":"ping"}]`)
	_, line := p.next()
	var batch []mcpReply
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch reply: %s", line)
	}
	for _, bad := range []string{
		`[]`,
		`[{"jsonrpc":"2.0","id":12,"method":"ping"},{"jsonrpc":"2.0","id":12,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":13,"method":"ping"},5]`,
	} {
		p.send(bad)
		p.wantError(-32600, "INVALID_REQUEST", "null")
	}
	p.send(`{"jsonrpc":"2.0","id":14,"method":"ping"}`)
	p.wantResult("14")
}
