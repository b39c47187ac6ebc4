package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/server"
	"go.lsp.dev/jsonrpc2"
)

// IDE serves the Kimi IDE extension's protocol (specs/kimi-ide-api.md).
// Each connection has one session, opened by its first sendMessage and
// closed with the connection.
type IDE struct {
	mgr   *agent.Manager
	opts  IDEOptions
	conns sync.Map // *server.Conn → *ideConn
}

// IDEOptions tunes the IDE projection; the zero value is production.
type IDEOptions struct {
	// ApprovalTimeout is how long an approval request waits before it is
	// rejected; 0 means DefaultApprovalTimeout.
	ApprovalTimeout time.Duration
	// Yolo runs every tool call without asking (--yolo).
	Yolo bool
}

// NewIDE returns the IDE projection over the runtime's sessions.
func NewIDE(rt *agent.Runtime, opts IDEOptions) *IDE {
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	return &IDE{mgr: rt.Manager(), opts: opts}
}

// MessageContext is the editor state the extension sends with a message.
type MessageContext struct {
	CurrentFile    string          `json:"current_file,omitempty"`
	SelectedText   string          `json:"selected_text,omitempty"`
	SelectionRange *SelectionRange `json:"selection_range,omitempty"`
	OpenFiles      []string        `json:"open_files,omitempty"`
	WorkspaceRoot  string          `json:"workspace_root,omitempty"`
}

// SelectionRange is a selection, lines and columns from 0.
type SelectionRange struct {
	StartLine   int `json:"start_line"`
	StartColumn int `json:"start_column"`
	EndLine     int `json:"end_line"`
	EndColumn   int `json:"end_column"`
}

type sendMessageParams struct {
	Content string         `json:"content"`
	Context MessageContext `json:"context"`
}

type interruptParams struct {
	TurnID string `json:"turn_id"`
}

type submitApprovalParams struct {
	RequestID     string                     `json:"request_id"`
	Approved      *bool                      `json:"approved"`
	Reason        string                     `json:"reason,omitempty"`
	Modifications map[string]json.RawMessage `json:"modifications,omitempty"`
}

// sendMessage starts a turn and answers null at once; the turn's events
// follow as notifications.
func (k *IDE) sendMessage(ctx context.Context, p *sendMessageParams) (*struct{}, error) {
	if strings.TrimSpace(p.Content) == "" {
		return nil, server.InvalidParams("content is empty")
	}
	c, err := k.connOf(ctx, p.Context.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	text := p.Content
	if extra := editorContext(c.workspace, p.Context); extra != "" {
		text += "\n\n" + extra
	}
	c.expect(turnInput{text: p.Content, context: p.Context})
	pol := &agent.ApprovalPolicy{Ask: askKinds, Timeout: k.opts.ApprovalTimeout}
	if k.opts.Yolo {
		pol.Ask = []agent.ToolKind{}
	}
	_, err = k.mgr.StartTurn(c.sessionID, agent.TurnRequest{Text: text, Behavior: agent.NewTurn, Approval: pol})
	if err != nil {
		c.unexpect()
		var ie *agent.InputError
		if errors.As(err, &ie) {
			return nil, server.InvalidParams("%s", ie.Message)
		}
		return nil, serverError(CodeServerError, "SERVER_ERROR", err.Error())
	}
	return nil, nil
}

// interruptTurn cancels a queued or running turn of the connection.
func (k *IDE) interruptTurn(ctx context.Context, p *interruptParams) (*struct{}, error) {
	c := k.existing(ctx)
	if p.TurnID == "" {
		return nil, server.InvalidParams("turn_id is required")
	}
	var t *agent.Turn
	if c != nil && c.owns(p.TurnID) {
		t, _ = k.mgr.Turn(p.TurnID)
	}
	if t == nil {
		return nil, serverError(CodeServerError, "TURN_NOT_FOUND", fmt.Sprintf("unknown turn %q", p.TurnID))
	}
	if t.Info().Status.Terminal() {
		return nil, serverError(CodeServerError, "TURN_FINISHED", fmt.Sprintf("turn %q has already finished", p.TurnID))
	}
	if _, err := k.mgr.CancelTurn(p.TurnID); err != nil {
		return nil, serverError(CodeServerError, "TURN_NOT_FOUND", err.Error())
	}
	return nil, nil
}

// submitApproval answers an ApprovalRequest; the extension sends it as a
// request or as a notification.
func (k *IDE) submitApproval(ctx context.Context, p *submitApprovalParams) (*struct{}, error) {
	if p.RequestID == "" || p.Approved == nil {
		return nil, server.InvalidParams("request_id and approved are required")
	}
	c := k.existing(ctx)
	if c == nil {
		return nil, approvalNotPending(p.RequestID)
	}
	d := agent.ApprovalDecision{Approved: *p.Approved, Reason: p.Reason, Modify: p.Modifications}
	if err := k.mgr.Decide(c.sessionID, p.RequestID, d); err != nil {
		return nil, approvalNotPending(p.RequestID)
	}
	return nil, nil
}

func approvalNotPending(id string) error {
	return serverError(CodeServerError, "APPROVAL_NOT_PENDING",
		fmt.Sprintf("approval request %q is not pending: it was answered, timed out, or its turn ended", id))
}

func (k *IDE) ping(context.Context, *struct{}) (string, error) { return "pong", nil }

// ideConn is one connection's session and the turns it started.
type ideConn struct {
	conn      *server.Conn
	sessionID string
	workspace string

	mu      sync.Mutex
	pending []turnInput         // inputs whose turns are not yet queued
	turns   map[string]*ideTurn // by turn id
}

type turnInput struct {
	text    string
	context MessageContext
}

// connOf returns the connection's state, opening its session in root ("":
// the launch folder) on first use.
func (k *IDE) connOf(ctx context.Context, root string) (*ideConn, error) {
	conn := server.ConnOf(ctx)
	if conn == nil {
		return nil, serverError(CodeServerError, "NO_CONNECTION", "no connection")
	}
	if c, ok := k.conns.Load(conn); ok {
		return c.(*ideConn), nil
	}
	ms, err := k.mgr.Create(root, "")
	if err != nil {
		var we *agent.WorkspaceError
		if errors.As(err, &we) {
			return nil, server.InvalidParams("context.workspace_root: %s", we.Error())
		}
		return nil, serverError(CodeServerError, "SESSION_CREATE_FAILED", err.Error())
	}
	return k.adopt(conn, ms)
}

// adopt makes ms the connection's session: its events become the
// connection's notifications, and it closes with the connection.
func (k *IDE) adopt(conn *server.Conn, ms *agent.ManagedSession) (*ideConn, error) {
	c := &ideConn{conn: conn, sessionID: ms.ID(), workspace: ms.Workspace(), turns: map[string]*ideTurn{}}
	if _, err := k.mgr.Subscribe(c.sessionID, agent.SubscribeOptions{}, c.forward); err != nil {
		_ = k.mgr.Close(ms.ID())
		return nil, serverError(CodeServerError, "SESSION_CREATE_FAILED", err.Error())
	}
	k.conns.Store(conn, c)
	go func() {
		<-conn.Done()
		k.closeConn(conn)
	}()
	return c, nil
}

// existing returns the connection's state, or nil before its first message.
func (k *IDE) existing(ctx context.Context) *ideConn {
	if conn := server.ConnOf(ctx); conn != nil {
		if c, ok := k.conns.Load(conn); ok {
			return c.(*ideConn)
		}
	}
	return nil
}

// closeConn closes the connection's session: its turns end, interrupted.
func (k *IDE) closeConn(conn *server.Conn) {
	if c, ok := k.conns.LoadAndDelete(conn); ok {
		_ = k.mgr.Close(c.(*ideConn).sessionID)
	}
}

// shutdown ends the connection's work at LSP shutdown.
func (k *IDE) shutdown(ctx context.Context) {
	if conn := server.ConnOf(ctx); conn != nil {
		k.closeConn(conn)
	}
}

func (c *ideConn) expect(in turnInput) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, in)
}

func (c *ideConn) unexpect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) > 0 {
		c.pending = c.pending[:len(c.pending)-1]
	}
}

func (c *ideConn) owns(turnID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turns[turnID] != nil
}

// Editor context: what the model is told of the editor besides the message.

const (
	contextLines = 20      // lines shown on each side of the selection
	contextBytes = 8 << 10 // bound of the file excerpt
)

// editorContext renders the editor state for the model: the current file,
// the selection and the file's lines around it, the open files. A file
// outside the workspace is named but not read.
func editorContext(workspace string, mc MessageContext) string {
	var b strings.Builder
	if mc.CurrentFile != "" {
		fmt.Fprintf(&b, "Current file: %s\n", mc.CurrentFile)
	}
	if r := mc.SelectionRange; r != nil {
		fmt.Fprintf(&b, "Selection: line %d, column %d to line %d, column %d (from 0)\n", r.StartLine, r.StartColumn, r.EndLine, r.EndColumn)
	}
	if mc.SelectedText != "" {
		fmt.Fprintf(&b, "Selected text:\n```\n%s\n```\n", clip(mc.SelectedText, contextBytes))
	}
	if excerpt := fileExcerpt(workspace, mc); excerpt != "" {
		b.WriteString(excerpt)
	}
	if len(mc.OpenFiles) > 0 {
		fmt.Fprintf(&b, "Open files: %s\n", strings.Join(mc.OpenFiles, ", "))
	}
	if b.Len() == 0 {
		return ""
	}
	return "<editor_context>\n" + b.String() + "</editor_context>"
}

// fileExcerpt is the current file's lines around the selection (or its
// start), bounded.
func fileExcerpt(workspace string, mc MessageContext) string {
	if mc.CurrentFile == "" {
		return ""
	}
	real, err := confine.Check([]string{workspace}, mc.CurrentFile, confine.Read)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	from, to := 0, 0
	if r := mc.SelectionRange; r != nil {
		from, to = r.StartLine, r.EndLine
	}
	from, to = max(0, from-contextLines), min(len(lines), to+contextLines+1)
	if from >= to {
		return ""
	}
	return fmt.Sprintf("Lines %d-%d of the current file:\n```\n%s\n```\n", from+1, to, clip(strings.Join(lines[from:to], "\n"), contextBytes))
}

// errorCode maps a turn failure to the spec's codes: a model that cannot
// be reached or is not configured is a failed connection.
func errorCode(e *agent.TurnError) jsonrpc2.Code {
	if e != nil && (e.Code == "PROVIDER_NOT_CONFIGURED" || strings.Contains(e.Message, "connection refused")) {
		return CodeConnectionFailed
	}
	return CodeServerError
}
