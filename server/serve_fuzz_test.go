package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// panicLog counts the transport's "handler panic" records: a panic in a
// notification is only logged, and a panic in a call looks like any other
// -32603 on the wire.
type panicLog struct {
	panics *atomic.Int64
}

func (h panicLog) Enabled(context.Context, slog.Level) bool { return true }

func (h panicLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "handler panic" {
		h.panics.Add(1)
	}
	return nil
}

func (h panicLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h panicLog) WithGroup(string) slog.Handler      { return h }

// fuzzRegistry is a few well-behaved methods, so that whatever goes wrong
// is the transport's.
func fuzzRegistry() *Registry {
	reg := NewRegistry()
	Handle(reg, "test/echo", Concurrent, func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
		return p, nil
	})
	Handle(reg, "test/typed", Exclusive, func(_ context.Context, p *struct {
		N    int      `json:"n"`
		S    []string `json:"s"`
		Deep struct {
			B bool `json:"b"`
		} `json:"deep"`
	}) (int, error) {
		return p.N + len(p.S), nil
	})
	Handle(reg, "test/fail", Ordered, func(context.Context, struct{}) (any, error) {
		return nil, errors.New("plain failure")
	})
	Notify(reg, "test/note", Ordered, func(context.Context, map[string]any) error { return nil })
	reg.Family("test", map[string]any{"methods": []string{"test/echo"}})
	return reg
}

// FuzzServe serves arbitrary bytes on a whole connection, with and without
// the LSP lifecycle. The connection must end at the end of the input; all it
// writes is valid UTF-8 in its framing; every reply is a JSON-RPC response
// (or a batch of them) whose error, if any, carries data.code; and no
// handler panics.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"test/echo","params":{"a":[1,"\u00e9"]}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8"]}}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"initialized","params":{}}` + "\n" +
			`{"jsonrpc":"2.0","id":"s","method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","method":"exit"}` + "\n",
		`[{"jsonrpc":"2.0","id":1,"method":"test/typed","params":{"n":"x"}},{"jsonrpc":"2.0","id":2,"method":"nope"}]` + "\n",
		header(`{"jsonrpc":"2.0","id":2,"method":"test/fail","params":null}`) + header(`{"jsonrpc":"2.0","method":"test/note","params":7}`),
		header("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"test/echo\",\"params\":[\"\xc3\x28\"]}"),
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"test/note"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":null}` + "\n" + `{"jsonrpc":"2.0","id":{},"method":"test/echo"}` + "\n",
	} {
		f.Add([]byte(seed), uint8(0))
		f.Add([]byte(seed), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		var panics atomic.Int64
		srv := New(Options{
			Registry:       fuzzRegistry(),
			Profile:        Profile{Lifecycle: mode&1 == 1},
			MaxFrame:       4096,
			EndOfInputWait: -1, // every call read answers before the end
			Logger:         slog.New(panicLog{panics: &panics}),
		})
		conn := &fuzzConn{in: bytes.NewReader(data)}
		var c *Conn
		withBound(t, "serving the input", func() {
			c = srv.Serve(context.Background(), conn)
			<-c.Done()
		})
		if n := panics.Load(); n > 0 {
			t.Fatalf("%d handler panics", n)
		}
		out := conn.output()
		if !utf8.Valid(out) {
			t.Fatalf("the output is not valid UTF-8: %q", out)
		}
		for _, body := range splitReplies(t, c.stream.Framing(), out) {
			var batch []json.RawMessage
			if json.Unmarshal(body, &batch) != nil {
				batch = []json.RawMessage{body}
			}
			for _, m := range batch {
				checkResponse(t, m)
			}
		}
	})
}

// header frames body with a Content-Length header.
func header(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// checkResponse checks one message the server wrote: a response with a
// result or an error carrying data.code. The server sends no requests or
// notifications to this registry's clients.
func checkResponse(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code int64 `json:"code"`
			Data struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.JSONRPC != "2.0" || m.Method != nil || len(m.ID) == 0 {
		t.Fatalf("not a JSON-RPC response (%v): %s", err, raw)
	}
	switch {
	case m.Error != nil && m.Result != nil:
		t.Fatalf("a response with a result and an error: %s", raw)
	case m.Error != nil && m.Error.Data.Code == "":
		t.Fatalf("an error without data.code: %s", raw)
	case m.Error == nil && m.Result == nil:
		t.Fatalf("a response with neither result nor error: %s", raw)
	}
}
