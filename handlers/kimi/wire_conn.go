package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// wireConn is one wire connection: its session, its store and the turn
// state the projection keeps.
type wireConn struct {
	conn      *server.Conn
	sessionID string
	workspace string
	store     *wireStore

	mu               sync.Mutex
	supportsQuestion bool
	external         []agent.ToolSpec // the client's accepted external tools
	planMode         bool
	turnID           string         // the prompt's running turn, or ""
	stepsOf          map[string]int // model steps per turn
	cancels          map[string]context.CancelFunc
	streamedCalls    map[string]bool         // tool calls announced while streaming, by id
	feedback         map[string]string       // a rejected call's feedback, by call id
	clientReturns    map[string]clientReturn // external tools' results as the client gave them, by call id
}

// connOf returns the connection's state, opening (or resuming) the
// session the flags name on first use.
func (w *Wire) connOf(ctx context.Context) (*wireConn, error) {
	conn := server.ConnOf(ctx)
	if conn == nil {
		return nil, serverError(CodeServerError, "NO_CONNECTION", "no connection")
	}
	if c, ok := w.conns.Load(conn); ok {
		return c.(*wireConn), nil
	}
	workspace, err := w.mgr.Workspace(w.opts.WorkDir)
	if err != nil {
		return nil, serverError(CodeServerError, "WORK_DIR", err.Error())
	}
	store, err := openWireStore(agent.DataDir(w.rt.Env()), workspace, w.opts.SessionID, w.opts.Continue)
	if err != nil {
		return nil, serverError(CodeServerError, "SESSION_STORE", err.Error())
	}
	var ms *agent.ManagedSession
	if path := store.state.KastSession; path != "" {
		ms, err = w.mgr.Resume(path, workspace)
	} else if history, _ := store.history(); len(history) > 0 {
		// A session kimi-cli wrote: its conversation goes on in kast.
		if ms, err = w.mgr.Import(workspace, history); err == nil {
			err = store.setKastSession(ms.Path())
		}
	}
	if ms == nil {
		if ms, err = w.mgr.Create(workspace, ""); err == nil {
			err = store.setKastSession(ms.Path())
		}
	}
	if err != nil {
		store.close()
		return nil, serverError(CodeServerError, "SESSION_OPEN", err.Error())
	}
	c := &wireConn{conn: conn, sessionID: ms.ID(), workspace: workspace, store: store, planMode: store.state.PlanMode,
		stepsOf: map[string]int{}, cancels: map[string]context.CancelFunc{}}
	if actual, loaded := w.conns.LoadOrStore(conn, c); loaded {
		store.close()
		return actual.(*wireConn), nil
	}
	if _, err := w.mgr.Subscribe(c.sessionID, agent.SubscribeOptions{}, func(u agent.Update) { c.forward(w, u) }); err != nil {
		return nil, serverError(CodeServerError, "SESSION_OPEN", err.Error())
	}
	go func() {
		<-conn.Done()
		w.conns.Delete(conn)
		_ = w.mgr.Close(c.sessionID)
		c.store.close()
	}()
	return c, nil
}

// existing returns the connection's state, or nil before it has one.
func (w *Wire) existing(ctx context.Context) *wireConn {
	if conn := server.ConnOf(ctx); conn != nil {
		if c, ok := w.conns.Load(conn); ok {
			return c.(*wireConn)
		}
	}
	return nil
}

// policy is the approval policy of the connection's next turn.
func (c *wireConn) policy(w *Wire) *agent.ApprovalPolicy {
	c.mu.Lock()
	defer c.mu.Unlock()
	pol := &agent.ApprovalPolicy{Ask: askKinds}
	if w.opts.Yolo {
		pol.Ask = []agent.ToolKind{}
	}
	if c.planMode {
		pol.Deny = []agent.ToolKind{agent.KindWrite, agent.KindCommand}
		pol.DenyReason = "plan mode is on: only read-only tools run until it is turned off"
	}
	return pol
}

// start begins the prompt's turn; a turn already running is an error, as
// in kimi-cli.
func (c *wireConn) start(w *Wire, text string) (*agent.Turn, error) {
	c.mu.Lock()
	if c.turnID != "" {
		c.mu.Unlock()
		return nil, turnInProgress()
	}
	c.turnID = "starting"
	c.mu.Unlock()
	t, err := w.mgr.StartTurn(c.sessionID, agent.TurnRequest{Text: text, Behavior: agent.NewTurn, Approval: c.policy(w), External: c.wireTools()})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.turnID = ""
		var ie *agent.InputError
		if errors.As(err, &ie) {
			return nil, server.InvalidParams("%s", ie.Message)
		}
		return nil, serverError(CodeServerError, "TURN_FAILED", err.Error())
	}
	c.turnID = t.ID()
	return t, nil
}

// finished clears the prompt's turn once it has ended, before the prompt
// answers: the client may send the next prompt as soon as it has the reply.
func (c *wireConn) finished(turnID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turnID == turnID {
		c.turnID = ""
	}
	delete(c.stepsOf, turnID)
}

// running is the prompt's turn while it has not finished, or "".
func (c *wireConn) running() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turnID == "starting" {
		return ""
	}
	return c.turnID
}

func (c *wireConn) steps(turnID string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stepsOf[turnID]
}

// wireMessage is a recorded wire message: an event's or a request's type
// and payload.
type wireMessage struct {
	Type    string `json:"type"`
	Payload any    `json:"payload"`
}

// event sends and records an event.
func (c *wireConn) event(typ string, payload any) {
	msg := wireMessage{Type: typ, Payload: payload}
	c.store.record(msg)
	c.send("event", msg)
}

func (c *wireConn) send(method string, msg wireMessage) {
	if err := c.conn.RPC().Notify(context.Background(), method, msg); err != nil {
		c.conn.Logger().Debug("kimi wire message not delivered", "method", method, "err", err)
	}
}

// request sends and records a request, under its payload's id as kimi-cli
// sends it, and hands the client's reply to answer: its result, or the
// error it answered with. It runs off the producing goroutine: the reply
// may take long. The turn's end cancels the wait, and answer is not called.
func (c *wireConn) request(turnID, typ, id string, payload any, answer func(json.RawMessage, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	prev := c.cancels[turnID]
	c.cancels[turnID] = func() {
		if prev != nil {
			prev()
		}
		cancel()
	}
	c.mu.Unlock()
	c.requestCtx(ctx, typ, id, payload, func(raw json.RawMessage, err error) {
		defer cancel()
		answer(raw, err)
	})
}

// requestCtx sends and records a request whose wait ends with ctx (the
// turn's context, cancelled when it ends); see request.
func (c *wireConn) requestCtx(ctx context.Context, typ, id string, payload any, answer func(json.RawMessage, error)) {
	msg := wireMessage{Type: typ, Payload: payload}
	c.store.record(msg)
	go func() {
		var result json.RawMessage
		err := c.conn.CallAs(ctx, id, "request", msg, &result)
		if ctx.Err() != nil || errors.Is(err, server.ErrConnEnded) {
			c.conn.Logger().Debug("kimi wire request ended without a reply", "type", typ, "id", id, "err", err)
			return // the turn's end resolves it
		}
		answer(result, err)
	}()
}

// endRequests stops waiting for the replies to a finished turn's requests.
func (c *wireConn) endRequests(turnID string) {
	c.mu.Lock()
	cancel := c.cancels[turnID]
	delete(c.cancels, turnID)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
