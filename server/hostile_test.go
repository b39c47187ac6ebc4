package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// These tests are a hostile client's probes: raw bytes no editor would send.
// After each, the connection must still answer, or end cleanly at the end of
// the input; servertest.Client fails the read of any reply that is not valid
// UTF-8.

// wantOrphanError waits for a reply to a frame sent raw and checks its codes.
func wantOrphanError(t *testing.T, ctx context.Context, c *servertest.Client, code int64, dataCode string) *servertest.Message {
	t.Helper()
	m, err := c.WaitOrphan(ctx)
	if err != nil {
		t.Fatalf("waiting for the %s reply: %v", dataCode, err)
	}
	if m.Error == nil || m.Error.Code != code || m.Error.DataCode() != dataCode {
		t.Fatalf("want error %d/%s, got %+v (%+v)", code, dataCode, m, m.Error)
	}
	return m
}

func stillAnswers(t *testing.T, ctx context.Context, c *servertest.Client) {
	t.Helper()
	var out string
	if err := c.Call(ctx, "test/fast", nil, &out); err != nil || out != "fast" {
		t.Fatalf("the connection no longer answers: %q %v", out, err)
	}
}

// A header block that ends without Content-Length used to make the reader
// take the body and every later frame for more headers.
func TestHeaderBlockWithoutContentLength(t *testing.T) {
	ctx := ctxT(t)
	c, _ := started(t, servertest.Header)
	body := `{"jsonrpc":"2.0","id":"lost","method":"test/fast"}`
	if err := c.WriteRaw([]byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body)); err != nil {
		t.Fatal(err)
	}
	m := wantOrphanError(t, ctx, c, -32700, "INVALID_HEADER")
	if !strings.Contains(m.Error.Message, "Content-Length") {
		t.Errorf("message does not say what is missing: %q", m.Error.Message)
	}
	stillAnswers(t, ctx, c)
	// A line without a colon, a header line longer than any buffer: each
	// block is answered once and skipped up to the next frame.
	for _, block := range []string{"garbage without a colon\r\n\r\n{}", strings.Repeat("X-Pad: y", 20000) + "\r\n\r\n{}"} {
		if err := c.WriteRaw([]byte(block)); err != nil {
			t.Fatal(err)
		}
		stillAnswers(t, ctx, c)
		wantOrphanError(t, ctx, c, -32700, "INVALID_HEADER")
	}
}

// A Content-Length larger than the message used to swallow the next frame,
// and then wait for bytes that never come.
func TestContentLengthLargerThanBody(t *testing.T) {
	ctx := ctxT(t)
	c, _ := started(t, servertest.Header)
	body := `{"jsonrpc":"2.0","id":"short","method":"test/fast"}`
	if err := c.WriteRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)+400, body))); err != nil {
		t.Fatal(err)
	}
	// The next frame arrives while the server still expects 400 body bytes.
	stillAnswers(t, ctx, c)
	m := wantOrphanError(t, ctx, c, -32700, "INVALID_HEADER")
	if string(m.ID) != `"short"` {
		t.Errorf("the error does not carry the message's id: %s", m.ID)
	}

	// Brackets, quotes and a header inside strings do not end the value.
	tricky := `a\"}]Content-Length: 5\r\n\r\n{\\`
	var out map[string]any
	if err := c.Call(ctx, "test/echo", map[string]any{"t": tricky}, &out); err != nil || out["t"] != tricky {
		t.Fatalf("a message with a header in a string: %v %v", out, err)
	}
	// Other bytes after the value are part of a body that is not JSON.
	body = `{"jsonrpc":"2.0","id":"junk","method":"test/fast"} xyz`
	if err := c.WriteRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))); err != nil {
		t.Fatal(err)
	}
	if m := wantOrphanError(t, ctx, c, -32700, "PARSE_ERROR"); string(m.ID) != `"junk"` {
		t.Errorf("id %s, want \"junk\"", m.ID)
	}
	stillAnswers(t, ctx, c)
}

// A frame cut short by the end of the input ends the connection without an
// error, after answering what can be answered.
func TestTruncatedFrameAtEndOfInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		framing servertest.Framing
		tail    string
		check   func(t *testing.T, m *servertest.Message)
	}{
		{"header/body", servertest.Header, "Content-Length: 100\r\n\r\n" + `{"jsonrpc":"2.0","id":"cut","method":"test/fast"`,
			func(t *testing.T, m *servertest.Message) {
				if m.Error == nil || m.Error.DataCode() != "INVALID_HEADER" || string(m.ID) != `"cut"` {
					t.Errorf("truncated body: %+v %+v", m, m.Error)
				}
			}},
		{"header/header", servertest.Header, "Content-Len", nil},
		{"header/blank lines", servertest.Header, "\r\n\r\n", nil},
		// A last line without its newline is still a message.
		{"ndjson/last line", servertest.NDJSON, `{"jsonrpc":"2.0","id":"last","method":"test/fast"}`,
			func(t *testing.T, m *servertest.Message) {
				if string(m.ID) != `"last"` || string(m.Result) != `"fast"` {
					t.Errorf("unterminated last line: %+v %+v", m, m.Error)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			c, conn := started(t, tc.framing)
			if err := c.WriteRaw([]byte(tc.tail)); err != nil {
				t.Fatal(err)
			}
			_ = c.Close() // ends the input and waits for the connection to end
			select {
			case <-conn.Done():
			case <-ctx.Done():
				t.Fatal("the connection did not end at the end of the input")
			}
			if err := conn.Err(); err != nil {
				t.Errorf("connection ended with %v, want a clean end", err)
			}
			if tc.check != nil {
				m, err := c.WaitOrphan(ctx)
				if err != nil {
					t.Fatalf("no reply before the end: %v", err)
				}
				tc.check(t, m)
			}
		})
	}
}

// Invalid UTF-8 in a method, an id or a rejected frame is never echoed raw.
func TestRepliesAreValidUTF8(t *testing.T) {
	both(t, func(t *testing.T, framing servertest.Framing) {
		ctx := ctxT(t)
		c, _ := started(t, framing)
		frames := []struct {
			body, dataCode string
		}{
			{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\xff\xfe\"}", "METHOD_NOT_FOUND"},
			{"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\x28\",\"method\":\"nope\"}", "METHOD_NOT_FOUND"},
			{"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":", "PARSE_ERROR"},
			{"{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82\",\"method\":\"test/echo\",\"params\":{\"k\":\"\xf0\x28\x8c\xbc\"}}", ""},
		}
		for _, f := range frames {
			if err := c.WriteFrame([]byte(f.body)); err != nil {
				t.Fatal(err)
			}
			m, err := c.WaitOrphan(ctx)
			if err != nil {
				t.Fatalf("%q: %v", f.body, err)
			}
			if f.dataCode != "" && (m.Error == nil || m.Error.DataCode() != f.dataCode) {
				t.Errorf("%q: %+v %+v", f.body, m, m.Error)
			}
		}
		stillAnswers(t, ctx, c)
	})
}

// A line over the frame limit is answered FRAME_TOO_LARGE with its id and
// discarded; the next line is read normally.
func TestNDJSONLineLimit(t *testing.T) {
	ctx := ctxT(t)
	reg := testRegistry()
	c, _ := servertest.Pipe(t, server.New(server.Options{Registry: reg, MaxFrame: 4096}), servertest.NDJSON)
	w := c.Writer()
	head := `{"jsonrpc":"2.0","id":"big","method":"test/echo","params":{"pad":"`
	fmt.Fprint(w, head)
	chunk := strings.Repeat("x", 64<<10)
	for range 64 { // 4 MiB, a thousand times the limit
		fmt.Fprint(w, chunk)
	}
	fmt.Fprint(w, `"}}`+"\n")
	m := wantOrphanError(t, ctx, c, -32600, "FRAME_TOO_LARGE")
	if string(m.ID) != `"big"` {
		t.Errorf("id %s, want \"big\"", m.ID)
	}
	// Exactly at the limit is still a message.
	params := `{"pad":"` + strings.Repeat("y", 4096-len(`{"jsonrpc":"2.0","id":"edge","method":"test/echo","params":`)-len(`"}}`)-len(`{"pad":"`)) + `"}`
	line := `{"jsonrpc":"2.0","id":"edge","method":"test/echo","params":` + params + `}`
	if len(line) != 4096 {
		t.Fatalf("line is %d bytes", len(line))
	}
	if err := c.WriteRaw([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	if m, err := c.WaitOrphan(ctx); err != nil || m.Error != nil || string(m.ID) != `"edge"` {
		t.Fatalf("a line at the limit: %+v %v", m, err)
	}
	var out map[string]any
	if err := c.Call(ctx, "test/echo", map[string]any{"after": true}, &out); err != nil || out["after"] != true {
		t.Fatalf("after the long line: %v %v", out, err)
	}
}

// A didChange with thousands of edits on a large document is applied at once:
// the next request answers within a bound that only a hang would exceed.
func TestDidChangeManyEdits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _ := started(t, servertest.Header)
	const lines = 40000
	var text strings.Builder
	for i := range lines {
		fmt.Fprintf(&text, "line %05d: the quick brown fox jumps over the lazy dog\n", i)
	}
	uri := "file:///many.txt"
	if err := c.DidOpen(uri, "plaintext", 1, text.String()); err != nil {
		t.Fatal(err)
	}
	// Each edit renames "fox" on one line, top to bottom, as multi-cursor
	// editing does; earlier edits do not move later lines.
	var changes []map[string]any
	for i := 0; i < lines; i += 2 {
		changes = append(changes, map[string]any{
			"range": map[string]any{"start": map[string]int{"line": i, "character": 28}, "end": map[string]int{"line": i, "character": 31}},
			"text":  "cat",
		})
	}
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": changes,
	}); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := c.Call(ctx, "test/text", map[string]string{"uri": uri}, &got); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "brown cat"); n != lines/2 || strings.Count(got, "brown fox") != lines/2 {
		t.Fatalf("%d lines changed, want %d", n, lines/2)
	}
	raw, _ := json.Marshal(got[:60])
	if !strings.HasPrefix(got, "line 00000: the quick brown cat") {
		t.Errorf("first line: %s", raw)
	}
}
