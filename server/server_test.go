package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/lsp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// testRegistry registers the methods the transport tests drive.
func testRegistry() *server.Registry {
	reg := server.NewRegistry()
	type empty struct{}
	server.Handle(reg, "test/echo", server.Concurrent, func(ctx context.Context, p map[string]any) (map[string]any, error) {
		return p, nil
	})
	reg.Alias("test/echoAlias", "test/echo")
	server.Handle(reg, "test/slow", server.Concurrent, func(ctx context.Context, p empty) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(30 * time.Second):
			return "slow finished", nil
		}
	})
	server.Handle(reg, "test/sleep", server.Concurrent, func(ctx context.Context, p empty) (string, error) {
		time.Sleep(150 * time.Millisecond)
		return "slept", nil
	})
	server.Handle(reg, "test/fast", server.Concurrent, func(ctx context.Context, p empty) (string, error) {
		return "fast", nil
	})
	server.Handle(reg, "test/panic", server.Concurrent, func(ctx context.Context, p empty) (string, error) {
		panic("boom")
	})
	server.Notify(reg, "test/panicNote", server.Ordered, func(ctx context.Context, p empty) error {
		panic("boom in a notification")
	})
	type textParams struct {
		URI string `json:"uri"`
	}
	server.Handle(reg, "test/text", server.Concurrent, func(ctx context.Context, p textParams) (string, error) {
		doc, ok := server.SnapshotOf(ctx).(*document.Snapshot).Document(p.URI)
		if !ok {
			return "", server.Error(-32004, "NOT_OPEN", "document not open: "+p.URI, map[string]any{"uri": p.URI})
		}
		return string(doc.Text), nil
	})
	type countParams struct {
		Count int `json:"count"`
	}
	server.Handle(reg, "test/count", server.Concurrent, func(ctx context.Context, p countParams) (int, error) {
		if p.Count < 0 {
			return 0, server.InvalidParams("count must not be negative, got %d", p.Count)
		}
		return p.Count * 2, nil
	})
	server.Handle(reg, "test/progress", server.Concurrent, func(ctx context.Context, p empty) (string, error) {
		conn := server.ConnOf(ctx)
		_ = conn.LogMessage(ctx, protocol.MessageTypeInfo, "starting work")
		prog := conn.BeginProgress(ctx, nil, "Indexing", "", false)
		prog.Report(ctx, "half", 50)
		prog.Report(ctx, "backwards is ignored", 10)
		prog.End(ctx, "done")
		return conn.ShowMessageRequest(ctx, protocol.MessageTypeInfo, "Continue?", "Yes", "No")
	})
	reg.Family("test", map[string]any{"version": 1, "methods": []string{"test/echo"}})
	return reg
}

// newServer serves the test methods beside the real language server, which
// keeps the open documents the transport snapshots.
func newServer(lifecycle bool) *server.Server {
	reg := testRegistry()
	l := lsp.New(host.New(host.Options{}))
	l.Register(reg)
	profile := l.Profile()
	profile.Lifecycle = lifecycle
	return server.New(server.Options{Registry: reg, Profile: profile, Version: "test"})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func rpcError(t *testing.T, err error) *servertest.RPCError {
	t.Helper()
	var e *servertest.RPCError
	if !errors.As(err, &e) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return e
}

func wantError(t *testing.T, err error, code int64, dataCode string) *servertest.RPCError {
	t.Helper()
	e := rpcError(t, err)
	if e.Code != code || e.DataCode() != dataCode {
		t.Fatalf("want error %d/%s, got %d/%s: %s", code, dataCode, e.Code, e.DataCode(), e.Message)
	}
	return e
}

// both runs f once per framing.
func both(t *testing.T, f func(t *testing.T, framing servertest.Framing)) {
	t.Run("header", func(t *testing.T) { t.Parallel(); f(t, servertest.Header) })
	t.Run("ndjson", func(t *testing.T) { t.Parallel(); f(t, servertest.NDJSON) })
}

func started(t *testing.T, framing servertest.Framing) (*servertest.Client, *server.Conn) {
	c, conn := servertest.Pipe(t, newServer(true), framing)
	if _, err := c.Initialize(ctxT(t), t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	return c, conn
}

// TestExitAfterShutdown: exit after shutdown ends the connection with status
// 0 (the order of the lifecycle is in testdata/transport/transcripts).
func TestExitAfterShutdown(t *testing.T) {
	both(t, func(t *testing.T, framing servertest.Framing) {
		ctx := ctxT(t)
		c, conn := started(t, framing)
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-conn.Done():
		case <-ctx.Done():
			t.Fatal("connection did not end after exit")
		}
		if got := conn.ExitCode(); got != 0 {
			t.Errorf("exit after shutdown: code %d, want 0", got)
		}
	})
}

func TestExitWithoutShutdown(t *testing.T) {
	c, conn := started(t, servertest.Header)
	if err := c.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	<-conn.Done()
	if got := conn.ExitCode(); got != 1 {
		t.Errorf("exit without shutdown: code %d, want 1", got)
	}
}

// A pipelining client may send exit before reading the replies of calls still
// running; they must reach it before the connection closes.
func TestExitLetsRunningCallsAnswer(t *testing.T) {
	both(t, func(t *testing.T, framing servertest.Framing) {
		ctx := ctxT(t)
		c, conn := started(t, framing)
		_, reply := c.Go("test/sleep", nil)
		if err := c.Notify("exit", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-reply:
			if m.Error != nil || string(m.Result) != `"slept"` {
				t.Fatalf("reply of a call running at exit: %+v", m)
			}
		case <-ctx.Done():
			t.Fatal("the call running at exit was never answered")
		}
		select {
		case <-conn.Exited():
		case <-ctx.Done():
			t.Fatal("Exited not signalled")
		}
	})
}

// A client may write all its requests and close its input without waiting:
// calls still running when the input ends must answer all the same.
func TestEndOfInputLetsRunningCallsAnswer(t *testing.T) {
	var in strings.Builder
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"test/sleep"}`,
	} {
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	out := &closeBuffer{}
	conn := newServer(true).Serve(ctxT(t), struct {
		io.Reader
		io.WriteCloser
	}{strings.NewReader(in.String()), out})
	select {
	case <-conn.Done():
	case <-ctxT(t).Done():
		t.Fatal("the connection did not end with its input")
	}
	if got := out.String(); !strings.Contains(got, `"id":2,"result":"slept"`) {
		t.Fatalf("the call running when the input ended was not answered; output:\n%s", got)
	}
}

// closeBuffer is a concurrency-safe output that accepts Close.
type closeBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *closeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *closeBuffer) Close() error { return nil }

func (b *closeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestMalformedHeader(t *testing.T) {
	ctx := ctxT(t)
	c, _ := started(t, servertest.Header)
	if err := c.WriteRaw([]byte("Content-Length: banana\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitOrphan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.DataCode() != "INVALID_HEADER" {
		t.Fatalf("want INVALID_HEADER, got %+v", m)
	}
	var out string
	if err := c.Call(ctx, "test/fast", nil, &out); err != nil || out != "fast" {
		t.Fatalf("after bad header: %q %v", out, err)
	}
}

func TestOversizedFrame(t *testing.T) {
	both(t, func(t *testing.T, framing servertest.Framing) {
		ctx := ctxT(t)
		c, _ := started(t, framing)
		const size = 150 << 20
		head := `{"jsonrpc":"2.0","id":42,"method":"test/echo","params":{"pad":"`
		tail := `"}}`
		pad := size - len(head) - len(tail)
		w := c.Writer()
		if framing == servertest.Header {
			fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", size)
		}
		io.WriteString(w, head)
		chunk := strings.Repeat("x", 1<<20)
		for pad > 0 {
			n := min(pad, len(chunk))
			io.WriteString(w, chunk[:n])
			pad -= n
		}
		io.WriteString(w, tail)
		if framing == servertest.NDJSON {
			io.WriteString(w, "\n")
		}
		m, err := c.WaitOrphan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.ID) != "42" || m.Error == nil || m.Error.DataCode() != "FRAME_TOO_LARGE" || !strings.Contains(m.Error.Message, "limit") {
			t.Fatalf("oversized frame: %+v %+v", m, m.Error)
		}
		var out map[string]any
		if err := c.Call(ctx, "test/echo", map[string]any{"after": true}, &out); err != nil || out["after"] != true {
			t.Fatalf("next message after oversized frame: %v %v", out, err)
		}
	})
}

func TestStringIDCancel(t *testing.T) {
	ctx := ctxT(t)
	c, _ := started(t, servertest.Header)
	done := make(chan *servertest.Message, 1)
	go func() {
		m, err := c.CallID(ctx, json.RawMessage(`"slow-1"`), "test/slow", nil)
		if err != nil {
			t.Error(err)
		}
		done <- m
	}()
	// Cancel until it lands: the request may not have been read yet.
	for {
		if err := c.Cancel(json.RawMessage(`"slow-1"`)); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-done:
			if m == nil || m.Error == nil || m.Error.Code != -32800 || string(m.ID) != `"slow-1"` {
				t.Fatalf("string-id cancel: %+v", m)
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestDidChangeThenRequestSeesNewText(t *testing.T) {
	both(t, func(t *testing.T, framing servertest.Framing) {
		ctx := ctxT(t)
		c, _ := started(t, framing)
		uri := "file:///ws/a.kt"
		if err := c.DidOpen(uri, "kotlin", 1, "fun a() = 0\n"); err != nil {
			t.Fatal(err)
		}
		want := "fun a() = 0\n"
		for v := 2; v < 60; v++ {
			insert := fmt.Sprintf("// v%d 😀\n", v)
			if err := c.DidChangeRange(uri, v, 0, 0, 0, 0, insert); err != nil {
				t.Fatal(err)
			}
			want = insert + want
			var got string
			if err := c.Call(ctx, "test/text", map[string]any{"uri": uri}, &got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("version %d: request saw stale text\n got %q\nwant %q", v, got, want)
			}
		}
		// A UTF-16 range after the emoji (2 code units) replaces exactly "v59".
		if err := c.DidChangeRange(uri, 100, 0, 3, 0, 6, "new"); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := c.Call(ctx, "test/text", map[string]any{"uri": uri}, &got); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got, "// new 😀\n") {
			t.Fatalf("utf-16 edit: %q", got[:20])
		}
		if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
			t.Fatal(err)
		}
		e := wantError(t, c.Call(ctx, "test/text", map[string]any{"uri": uri}, nil), -32004, "NOT_OPEN")
		if !strings.Contains(string(e.Data), `"uri":"file:///ws/a.kt"`) {
			t.Errorf("error data lost its extra fields: %s", e.Data)
		}
	})
}

func TestNoLifecycleProfile(t *testing.T) {
	ctx := ctxT(t)
	c, _ := servertest.Pipe(t, newServer(false), servertest.NDJSON)
	var out string
	if err := c.Call(ctx, "test/fast", nil, &out); err != nil || out != "fast" {
		t.Fatalf("daemon profile needs no initialize: %q %v", out, err)
	}
}

func TestHeaderNamesCaseInsensitive(t *testing.T) {
	ctx := ctxT(t)
	c, _ := started(t, servertest.Header)
	for i, name := range []string{"content-length", "CONTENT-LENGTH", "Content-length"} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"h%d","method":"test/fast"}`, i)
		frame := fmt.Sprintf("%s: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", name, len(body), body)
		if err := c.WriteRaw([]byte(frame)); err != nil {
			t.Fatal(err)
		}
		m, err := c.WaitOrphan(ctx) // sent raw, so the reply matches no pending call
		if err != nil {
			t.Fatal(err)
		}
		if string(m.ID) != fmt.Sprintf(`"h%d"`, i) || string(m.Result) != `"fast"` {
			t.Fatalf("header %q: %+v", name, m)
		}
	}
}

// The reply to a request that ends the connection is always delivered.
func TestCloseAfterReply(t *testing.T) {
	reg := server.NewRegistry()
	server.Handle(reg, "test/bye", server.Ordered, func(ctx context.Context, _ struct{}) (string, error) {
		server.CloseAfterReply(ctx)
		return "bye", nil
	})
	for i := 0; i < 50; i++ {
		ctx := ctxT(t)
		c, conn := servertest.Pipe(t, server.New(server.Options{Registry: reg}), servertest.NDJSON)
		var out string
		if err := c.Call(ctx, "test/bye", nil, &out); err != nil || out != "bye" {
			t.Fatalf("run %d: reply lost: %q %v", i, out, err)
		}
		select {
		case <-conn.Done():
		case <-ctx.Done():
			t.Fatalf("run %d: connection did not close after the reply", i)
		}
	}
}
