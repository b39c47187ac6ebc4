package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
)

// LogMessage sends window/logMessage. It never blocks on the client.
func (c *Conn) LogMessage(ctx context.Context, typ protocol.MessageType, message string) error {
	return c.client.LogMessage(ctx, &protocol.LogMessageParams{Type: typ, Message: message})
}

// ShowMessageRequest asks the user to pick one of actions and returns the
// chosen title, or "" when the user dismissed it. It awaits the client, so it
// may only be called from a concurrent or exclusive method (one released from
// the read loop), never from an ordered one.
func (c *Conn) ShowMessageRequest(ctx context.Context, typ protocol.MessageType, message string, actions ...string) (string, error) {
	items := make([]protocol.MessageActionItem, len(actions))
	for i, a := range actions {
		items[i] = protocol.MessageActionItem{Title: a}
	}
	choice, err := c.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: typ, Message: message, Actions: items})
	if err != nil || choice == nil {
		return "", err
	}
	return choice.Title, nil
}

// Progress reports one long operation through $/progress. A nil *Progress
// (the client cannot show progress) accepts every call and does nothing, so
// callers never need to check.
type Progress struct {
	conn  *Conn
	token protocol.ProgressToken
	mu    sync.Mutex
	ended bool
	last  uint32
}

// BeginProgress starts a work-done progress titled title. When token is nil
// (the request carried no workDoneToken) the server creates one with
// window/workDoneProgress/create if the client supports it; that awaits the
// client, so the same rule as ShowMessageRequest applies.
func (c *Conn) BeginProgress(ctx context.Context, token protocol.ProgressToken, title, message string, cancellable bool) *Progress {
	if token == nil {
		caps := c.ClientCapabilities()
		if caps.Window == nil || caps.Window.WorkDoneProgress == nil || !*caps.Window.WorkDoneProgress {
			return nil
		}
		token = protocol.String(fmt.Sprintf("kast-progress-%d", c.progress.Add(1)))
		if err := c.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
			c.log.Debug("client refused a progress token", "err", err)
			return nil
		}
	}
	p := &Progress{conn: c, token: token}
	p.send(ctx, map[string]any{"kind": "begin", "title": title, "message": message, "cancellable": cancellable, "percentage": 0})
	return p
}

// Report updates the message and percentage (0–100; it never goes backwards).
func (p *Progress) Report(ctx context.Context, message string, percentage uint32) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	percentage = max(min(percentage, 100), p.last)
	p.last = percentage
	p.mu.Unlock()
	p.send(ctx, map[string]any{"kind": "report", "message": message, "percentage": percentage})
}

// End finishes the progress; later calls do nothing.
func (p *Progress) End(ctx context.Context, message string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	p.ended = true
	p.mu.Unlock()
	p.send(ctx, map[string]any{"kind": "end", "message": message})
}

func (p *Progress) send(ctx context.Context, value map[string]any) {
	if value["message"] == "" {
		delete(value, "message")
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return
	}
	if err := p.conn.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: p.token, Value: raw}); err != nil {
		p.conn.log.Debug("progress notification failed", "err", err)
	}
}
