package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Calls under a chosen id: kimi-cli sends its requests to the client under
// the id of the request they carry (an approval's id is the JSON-RPC id), so
// the reply is matched here, by the stream, before the JSON-RPC library
// (which numbers its own calls) sees it.

// ErrIDPending refuses a chosen id that is already waiting for a reply.
var ErrIDPending = errors.New("a request with this id is already waiting for its reply")

// ErrConnEnded is a chosen-id call's error once the connection has ended.
var ErrConnEnded = errors.New("the connection ended before the reply arrived")

// chosenCalls holds the chosen-id calls waiting for replies.
type chosenCalls struct {
	mu      sync.Mutex
	waiting map[string]chan chosenReply
}

type chosenReply struct {
	result json.RawMessage
	err    *jsonrpc2.Error
}

func (cc *chosenCalls) add(id string) (chan chosenReply, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if _, taken := cc.waiting[id]; taken {
		return nil, false
	}
	if cc.waiting == nil {
		cc.waiting = map[string]chan chosenReply{}
	}
	ch := make(chan chosenReply, 1)
	cc.waiting[id] = ch
	return ch, true
}

func (cc *chosenCalls) remove(id string, ch chan chosenReply) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.waiting[id] == ch {
		delete(cc.waiting, id)
	}
}

// deliver hands a reply frame to the call waiting for its id, reporting
// whether one was; other frames go on to the library.
func (cc *chosenCalls) deliver(frame []byte) bool {
	cc.mu.Lock()
	n := len(cc.waiting)
	cc.mu.Unlock()
	if n == 0 || !bytes.Contains(frame, []byte(`"id"`)) {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc2.Error `json:"error"`
	}
	var id string
	if json.Unmarshal(frame, &m) != nil || m.Method != nil || json.Unmarshal(m.ID, &id) != nil {
		return false
	}
	cc.mu.Lock()
	ch, ok := cc.waiting[id]
	delete(cc.waiting, id)
	cc.mu.Unlock()
	if ok {
		ch <- chosenReply{result: m.Result, err: m.Error}
	}
	return ok
}

// CallAs sends a request under the caller's id and waits for its reply,
// which it decodes into result (an error reply comes back as a
// *jsonrpc2.Error). An id already waiting for a reply is refused with
// ErrIDPending, and so, on a string-id connection, is one in the "kast-N"
// form the library's own calls take. A reply to no waiting id is dropped
// as before.
func (c *Conn) CallAs(ctx context.Context, id, method string, params, result any) error {
	if c.stream.stringIDs && strings.HasPrefix(id, serverIDPrefix) {
		return fmt.Errorf("%w: %q has the form of kast's own request ids", ErrIDPending, id)
	}
	ch, ok := c.stream.chosen.add(id)
	if !ok {
		return fmt.Errorf("%w: %q", ErrIDPending, id)
	}
	defer c.stream.chosen.remove(id, ch)
	if err := c.SendCall(ctx, id, method, params); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err
		}
		if result == nil || len(r.result) == 0 {
			return nil
		}
		return json.Unmarshal(r.result, result)
	case <-ctx.Done():
		return ctx.Err()
	case <-c.Done():
		return ErrConnEnded
	case <-c.stream.inputEnded:
		return ErrConnEnded
	}
}
