package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// errHang is a request without an answer past the bound.
var errHang = errors.New("no answer within the bound")

// rpcError is a JSON-RPC error as received.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// outcome names an error by its data.code, else its numeric code.
func (e *rpcError) outcome() string {
	var d struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(e.Data, &d) == nil && d.Code != "" {
		return d.Code
	}
	return strconv.FormatInt(e.Code, 10)
}

type reply struct {
	Result json.RawMessage
	Error  *rpcError
}

// outcome is "ok" or the error's code.
func (r *reply) outcome() string {
	if r.Error != nil {
		return r.Error.outcome()
	}
	return "ok"
}

type call struct {
	method string
	start  time.Time
	done   chan *reply
}

// client is one editor-like connection: Content-Length framing, calls
// matched by id, server requests answered with null, Kward turn events
// routed to whoever waits for the turn.
type client struct {
	name string
	conn net.Conn
	wmu  sync.Mutex
	next atomic.Int64

	mu      sync.Mutex
	pending map[int64]*call
	turns   map[string]chan string // turn id → its final status
	closed  chan struct{}
	readErr error
}

func dial(name, socket string) (*client, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err
	}
	c := &client{name: name, conn: conn, pending: map[int64]*call{}, turns: map[string]chan string{}, closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

func (c *client) write(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	_, err = fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// start sends a request and returns its id and the call to wait on.
func (c *client) start(method string, params any) (int64, *call, error) {
	id := c.next.Add(1)
	ca := &call{method: method, start: time.Now(), done: make(chan *reply, 1)}
	c.mu.Lock()
	c.pending[id] = ca
	c.mu.Unlock()
	if err := c.write(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		c.forget(id)
		return 0, nil, fmt.Errorf("%s: sending %s: %w", c.name, method, err)
	}
	return id, ca, nil
}

func (c *client) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// wait returns the call's reply, errHang past bound, or an error when the
// connection ends first.
func (c *client) wait(id int64, ca *call, bound time.Duration) (*reply, error) {
	timer := time.NewTimer(bound - time.Since(ca.start))
	defer timer.Stop()
	select {
	case r := <-ca.done:
		return r, nil
	case <-c.closed:
		select {
		case r := <-ca.done:
			return r, nil
		default:
		}
		return nil, fmt.Errorf("%s: the connection ended before %s #%d was answered: %v", c.name, ca.method, id, c.readErr)
	case <-timer.C:
		return nil, fmt.Errorf("%s: %s #%d: %w (%s)", c.name, ca.method, id, errHang, bound)
	}
}

func (c *client) request(method string, params any, bound time.Duration) (*reply, time.Duration, error) {
	id, ca, err := c.start(method, params)
	if err != nil {
		return nil, 0, err
	}
	r, err := c.wait(id, ca, bound)
	return r, time.Since(ca.start), err
}

func (c *client) notify(method string, params any) error {
	return c.write(map[string]any{"method": method, "params": params})
}

func (c *client) cancel(id int64) error {
	return c.notify("$/cancelRequest", map[string]any{"id": id})
}

// oldest is the pending call waiting the longest.
func (c *client) oldest() (string, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var method string
	var age time.Duration
	for id, ca := range c.pending {
		if a := time.Since(ca.start); a > age {
			method, age = fmt.Sprintf("%s #%d", ca.method, id), a
		}
	}
	return method, age
}

// turn returns the channel that receives the turn's final status.
func (c *client) turn(id string) chan string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.turns[id]
	if !ok {
		ch = make(chan string, 1)
		c.turns[id] = ch
	}
	return ch
}

func (c *client) endTurn(id string) {
	c.mu.Lock()
	delete(c.turns, id)
	c.mu.Unlock()
}

func (c *client) close() {
	_ = c.conn.Close()
	<-c.closed
}

func (c *client) readLoop() {
	defer close(c.closed)
	r := bufio.NewReaderSize(c.conn, 1<<20)
	tp := textproto.NewReader(r)
	for {
		header, err := tp.ReadMIMEHeader()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.readErr = err
			}
			return
		}
		n, err := strconv.Atoi(header.Get("Content-Length"))
		if err != nil {
			c.readErr = fmt.Errorf("bad Content-Length %q", header.Get("Content-Length"))
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			c.readErr = err
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			c.readErr = fmt.Errorf("invalid JSON from the server: %v: %.200s", err, body)
			return
		}
		switch {
		case m.Method != "" && len(m.ID) > 0: // a server request: progress, configuration
			_ = c.write(map[string]any{"id": m.ID, "result": nil})
		case m.Method == "turn/event":
			c.turnEvent(m.Params)
		case m.Method != "":
		default:
			id, err := strconv.ParseInt(strings.TrimSpace(string(m.ID)), 10, 64)
			if err != nil {
				continue
			}
			c.mu.Lock()
			ca := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ca != nil {
				ca.done <- &reply{Result: m.Result, Error: m.Error}
			}
		}
	}
}

func (c *client) turnEvent(params json.RawMessage) {
	var ev struct {
		TurnID  string `json:"turnId"`
		Type    string `json:"type"`
		Payload struct {
			Status string `json:"status"`
		} `json:"payload"`
	}
	if json.Unmarshal(params, &ev) != nil || ev.Type != "turnFinished" {
		return
	}
	select {
	case c.turn(ev.TurnID) <- ev.Payload.Status:
	default:
	}
}
