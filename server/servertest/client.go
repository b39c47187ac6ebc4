// Package servertest drives a kast server the way an editor does, for tests:
// in-process over a pipe, or as a subprocess of the built binary. It speaks the
// raw wire so tests can also send what no well-behaved client would.
package servertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kast-dev/kast/server"
)

// Framing selects how the client frames messages.
type Framing int

const (
	Header Framing = iota // LSP Content-Length
	NDJSON                // newline-delimited JSON
)

// Message is any JSON-RPC message received from the server.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error object as received.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// DataCode returns error.data.code, or "".
func (e *RPCError) DataCode() string {
	var d struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Code
}

// Client is a scripted JSON-RPC peer.
type Client struct {
	t       testing.TB
	w       io.WriteCloser
	framing Framing
	writeMu sync.Mutex
	nextID  atomic.Int64

	mu       sync.Mutex
	pending  map[string]chan *Message // by raw id
	orphans  []*Message               // responses to no pending call (e.g. id null)
	notes    []*Message
	requests []*Message    // server→client requests, answered or not
	changed  chan struct{} // closed and replaced whenever orphans, notes or requests grow
	handlers map[string]func(params json.RawMessage) (any, error)

	done    chan struct{}
	readErr error
	closer  func() error
}

// Pipe serves srv in-process and returns a client connected to it, with
// *server.Conn for inspecting the server side.
func Pipe(t testing.TB, srv *server.Server, framing Framing) (*Client, *server.Conn) {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	conn := srv.Serve(context.Background(), rwc{sr, sw, func() error { sr.Close(); return sw.Close() }})
	c := newClient(t, cr, cw, framing)
	c.closer = func() error {
		cw.Close()
		select {
		case <-conn.Done():
		case <-time.After(5 * time.Second):
			t.Errorf("server connection did not end after the client closed")
		}
		return nil
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, conn
}

// Process starts the binary at path with args and talks to its stdio. Its
// stderr goes to the test log. Wait returns its exit status.
func Process(t testing.TB, path string, framing Framing, args ...string) (*Client, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(path, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, stdout, stdin, framing)
	c.closer = func() error {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		return nil
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, cmd
}

// Dial talks to a server over an established connection (a socket).
func Dial(t testing.TB, conn io.ReadWriteCloser, framing Framing) *Client {
	c := newClient(t, conn, conn, framing)
	c.closer = func() error {
		err := conn.Close()
		<-c.done
		return err
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("server: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

type rwc struct {
	io.Reader
	io.Writer
	close func() error
}

func (r rwc) Close() error { return r.close() }

func newClient(t testing.TB, r io.Reader, w io.WriteCloser, framing Framing) *Client {
	c := &Client{
		t: t, w: w, framing: framing,
		pending:  map[string]chan *Message{},
		changed:  make(chan struct{}),
		handlers: map[string]func(json.RawMessage) (any, error){},
		done:     make(chan struct{}),
	}
	go c.readLoop(bufio.NewReaderSize(r, 1<<20))
	return c
}

// Close ends the connection and waits for the server side to finish.
func (c *Client) Close() error {
	if c.closer == nil {
		return nil
	}
	closer := c.closer
	c.closer = nil
	return closer()
}

// Done is closed when the server's output ends.
func (c *Client) Done() <-chan struct{} { return c.done }

// Handle answers server→client requests for method. Without a handler a
// request gets a null result, as a permissive editor would answer.
func (c *Client) Handle(method string, h func(params json.RawMessage) (any, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[method] = h
}

// Call sends a request with a fresh numeric id and decodes the result into
// result (which may be nil). A JSON-RPC error is returned as *RPCError.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	resp, err := c.CallID(ctx, id, method, params)
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return resp.Error
	}
	if result != nil {
		return json.Unmarshal(resp.Result, result)
	}
	return nil
}

// CallID sends a request with exactly the given raw id and returns the whole
// response, so tests can check the id was echoed unchanged.
func (c *Client) CallID(ctx context.Context, id json.RawMessage, method string, params any) (*Message, error) {
	ch := make(chan *Message, 1)
	key := canonicalID(id)
	c.mu.Lock()
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no response: %w", method, ctx.Err())
	case <-c.done:
		// The reply may have arrived just before the end of the stream.
		select {
		case m := <-ch:
			return m, nil
		default:
			return nil, fmt.Errorf("%s: connection ended: %v", method, c.readErr)
		}
	}
}

// Go sends a request and returns a channel for its response; it lets a test
// have several requests in flight.
func (c *Client) Go(method string, params any) (id json.RawMessage, response <-chan *Message) {
	id = json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	ch := make(chan *Message, 1)
	c.mu.Lock()
	c.pending[canonicalID(id)] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		c.t.Errorf("send %s: %v", method, err)
	}
	return id, ch
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Cancel sends $/cancelRequest for id.
func (c *Client) Cancel(id json.RawMessage) error {
	return c.Notify("$/cancelRequest", map[string]any{"id": id})
}

func (c *Client) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.WriteFrame(body)
}

// WriteFrame frames body with the client's framing and writes it as is.
func (c *Client) WriteFrame(body []byte) error {
	if c.framing == NDJSON {
		return c.WriteRaw(append(append([]byte(nil), body...), '\n'))
	}
	return c.WriteRaw(append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...))
}

// WriteRaw writes bytes to the server unframed.
func (c *Client) WriteRaw(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(b)
	return err
}

// Writer returns the raw writer, for streaming a huge frame in pieces. Hold
// no other writes meanwhile.
func (c *Client) Writer() io.Writer { return lockedWriter{c} }

type lockedWriter struct{ c *Client }

func (l lockedWriter) Write(p []byte) (int, error) {
	l.c.writeMu.Lock()
	defer l.c.writeMu.Unlock()
	return l.c.w.Write(p)
}

// WaitOrphan waits for a response that matched no pending call, such as the
// reply to a malformed frame (id null).
func (c *Client) WaitOrphan(ctx context.Context) (*Message, error) {
	return c.wait(ctx, func() (*Message, bool) {
		if len(c.orphans) == 0 {
			return nil, false
		}
		m := c.orphans[0]
		c.orphans = c.orphans[1:]
		return m, true
	})
}

// WaitNotification waits for the next notification of method, consuming it
// and any earlier ones of the same method.
func (c *Client) WaitNotification(ctx context.Context, method string) (*Message, error) {
	return c.wait(ctx, func() (*Message, bool) {
		for i, m := range c.notes {
			if m.Method == method {
				c.notes = append(c.notes[:i:i], c.notes[i+1:]...)
				return m, true
			}
		}
		return nil, false
	})
}

// WaitNotificationFunc waits for a notification of method that match
// accepts, and consumes it; the others stay for later waits.
func (c *Client) WaitNotificationFunc(ctx context.Context, method string, match func(*Message) bool) (*Message, error) {
	return c.wait(ctx, func() (*Message, bool) {
		for i, m := range c.notes {
			if m.Method == method && match(m) {
				c.notes = append(c.notes[:i:i], c.notes[i+1:]...)
				return m, true
			}
		}
		return nil, false
	})
}

// AwaitNotifications waits until cond holds for the notifications of method
// received so far, in order, without consuming any: for a test that reads
// the latest state a server pushes.
func (c *Client) AwaitNotifications(ctx context.Context, method string, cond func([]*Message) bool) error {
	_, err := c.wait(ctx, func() (*Message, bool) {
		var of []*Message
		for _, m := range c.notes {
			if m.Method == method {
				of = append(of, m)
			}
		}
		return nil, cond(of)
	})
	return err
}

// Notifications returns the notifications received so far of method ("" for all).
func (c *Client) Notifications(method string) []*Message { return c.received(&c.notes, method) }

// Requests returns the server→client requests received so far of method ("" for
// all). They are recorded as they are read, before any handler answers them, so
// a request the server sent before its response to a call is already here when
// the call returns.
func (c *Client) Requests(method string) []*Message { return c.received(&c.requests, method) }

// received returns the messages of list (c.notes or c.requests) of method
// ("" for all).
func (c *Client) received(list *[]*Message, method string) []*Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Message
	for _, m := range *list {
		if method == "" || m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

func (c *Client) wait(ctx context.Context, take func() (*Message, bool)) (*Message, error) {
	for {
		c.mu.Lock()
		m, ok := take()
		changed := c.changed
		c.mu.Unlock()
		if ok {
			return m, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.done:
			c.mu.Lock()
			m, ok := take() // what arrived just before the end of the stream
			c.mu.Unlock()
			if ok {
				return m, nil
			}
			return nil, fmt.Errorf("connection ended: %v", c.readErr)
		}
	}
}

func (c *Client) readLoop(r *bufio.Reader) {
	defer close(c.done)
	for {
		body, err := c.readFrame(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			return
		}
		if !utf8.Valid(body) {
			// Every reply must be valid UTF-8, whatever the client sent.
			c.readErr = fmt.Errorf("server sent invalid UTF-8 %q", truncate(body))
			return
		}
		var msgs []*Message
		if bytes.HasPrefix(body, []byte("[")) {
			err = json.Unmarshal(body, &msgs) // a batch reply
		} else {
			msgs = []*Message{{}}
			err = json.Unmarshal(body, msgs[0])
		}
		if err != nil {
			c.readErr = fmt.Errorf("server sent invalid JSON %q: %w", truncate(body), err)
			return
		}
		for _, m := range msgs {
			c.route(m)
		}
	}
}

func (c *Client) readFrame(r *bufio.Reader) ([]byte, error) {
	if c.framing == NDJSON {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		return bytes.TrimSpace(line), nil
	}
	hdr, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil {
		return nil, fmt.Errorf("bad Content-Length from server: %v", err)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(r, body)
	return body, err
}

func (c *Client) route(m *Message) {
	switch {
	case m.Method != "" && len(m.ID) > 0: // server→client request
		c.mu.Lock()
		h := c.handlers[m.Method]
		c.requests = append(c.requests, m)
		c.signal()
		c.mu.Unlock()
		go c.answer(m, h)
	case m.Method != "":
		c.mu.Lock()
		c.notes = append(c.notes, m)
		c.signal()
		c.mu.Unlock()
	default:
		c.mu.Lock()
		ch, ok := c.pending[canonicalID(m.ID)]
		if ok {
			delete(c.pending, canonicalID(m.ID))
		} else {
			c.orphans = append(c.orphans, m)
			c.signal()
		}
		c.mu.Unlock()
		if ok {
			ch <- m
		}
	}
}

func (c *Client) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *Client) answer(m *Message, h func(json.RawMessage) (any, error)) {
	var result any
	var err error
	if h != nil {
		result, err = h(m.Params)
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if err != nil {
		reply["error"] = map[string]any{"code": -32603, "message": err.Error()}
	} else {
		reply["result"] = result
	}
	if err := c.send(reply); err != nil {
		c.t.Logf("answering %s: %v", m.Method, err)
	}
}

// canonicalID keys ids so that 7 and "7" stay distinct but spacing does not matter.
func canonicalID(id json.RawMessage) string {
	var v any
	if err := json.Unmarshal(id, &v); err != nil {
		return string(id)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func truncate(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
