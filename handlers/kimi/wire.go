package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// ProtocolVersion is the kimi-cli wire protocol version kast speaks.
const ProtocolVersion = "1.10"

// Wire serves kimi-cli's wire mode (protocol 1.10) for one work folder and
// session, as `kimi --wire` does.
type Wire struct {
	rt    *agent.Runtime
	mgr   *agent.Manager
	opts  WireOptions
	conns sync.Map // *server.Conn → *wireConn
}

// WireOptions are kimi-cli's flags.
type WireOptions struct {
	WorkDir   string // --work-dir; "" is the launch folder
	SessionID string // --session: resume (or create) this session
	Continue  bool   // --continue: resume the work folder's latest session
	Yolo      bool   // --yolo: approve every tool call
	Version   string // the server version initialize reports
}

// NewWire returns the wire projection over the runtime's sessions.
func NewWire(rt *agent.Runtime, opts WireOptions) *Wire {
	return &Wire{rt: rt, mgr: rt.Manager(), opts: opts}
}

type userInput struct {
	Text string
}

// UnmarshalJSON takes user_input as a string or as content parts, whose
// text parts are joined.
func (u *userInput) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &u.Text); err == nil {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return errors.New("user_input must be a string or a list of content parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	u.Text = strings.Join(texts, "\n")
	return nil
}

type initializeParams struct {
	ProtocolVersion string `json:"protocol_version"`
	Client          *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"client"`
	ExternalTools []externalTool `json:"external_tools"`
	Capabilities  struct {
		SupportsQuestion bool `json:"supports_question"`
		SupportsPlanMode bool `json:"supports_plan_mode"`
	} `json:"capabilities"`
}

func (w *Wire) initialize(ctx context.Context, p *initializeParams) (map[string]any, error) {
	c, err := w.connOf(ctx)
	if err != nil {
		return nil, err
	}
	if c.running() != "" {
		return nil, turnInProgress()
	}
	accepted, rejected := w.acceptTools(p.ExternalTools)
	c.mu.Lock()
	c.supportsQuestion = p.Capabilities.SupportsQuestion
	if p.ExternalTools != nil {
		c.external = accepted
	}
	c.mu.Unlock()
	commands := []map[string]any{}
	res := agent.LoadResources(c.workspace, "")
	if r, _, err := w.mgr.Resources(c.sessionID); err == nil {
		res = r
	}
	for _, pr := range res.Prompts {
		commands = append(commands, map[string]any{"name": pr.Name, "description": pr.Description, "aliases": []string{}})
	}
	for _, sk := range res.Skills {
		commands = append(commands, map[string]any{"name": "skill:" + sk.Name, "description": sk.Description, "aliases": []string{}})
	}
	out := map[string]any{"protocol_version": ProtocolVersion, "server": map[string]any{"name": "kast", "version": w.opts.Version},
		"slash_commands": commands, "capabilities": map[string]any{"supports_question": true}}
	if p.ExternalTools != nil {
		names := []string{}
		for _, t := range accepted {
			names = append(names, t.Name)
		}
		out["external_tools"] = map[string]any{"accepted": names, "rejected": rejected}
	}
	return out, nil
}

type promptParams struct {
	UserInput *userInput `json:"user_input"`
}

// prompt runs a turn and answers when it ends.
func (w *Wire) prompt(ctx context.Context, p *promptParams) (map[string]any, error) {
	if p.UserInput == nil || strings.TrimSpace(p.UserInput.Text) == "" {
		return nil, server.InvalidParams("user_input is empty")
	}
	c, err := w.connOf(ctx)
	if err != nil {
		return nil, err
	}
	t, err := c.start(w, p.UserInput.Text)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.Done():
	case <-ctx.Done():
		_, _ = w.mgr.CancelTurn(t.ID())
		<-t.Done()
	case <-c.conn.InputEnded():
		// The client went away, as kimi-cli's stdin closing: the turn is
		// cancelled, and the connection can end.
		_, _ = w.mgr.CancelTurn(t.ID())
		<-t.Done()
	}
	steps := c.steps(t.ID())
	c.finished(t.ID())
	info := t.Info()
	switch info.Status {
	case agent.StatusCompleted:
		return map[string]any{"status": "finished", "steps": steps}, nil
	case agent.StatusCanceled:
		return map[string]any{"status": "cancelled", "steps": steps}, nil
	}
	switch {
	case info.Err != nil && info.Err.Code == "MAX_STEPS":
		return map[string]any{"status": "max_steps_reached", "steps": steps}, nil
	case info.Err != nil && info.Err.Code == "PROVIDER_NOT_CONFIGURED":
		return nil, serverError(CodeConnectionFailed, "LLM_NOT_SET", "LLM is not set")
	case info.Err != nil:
		return nil, serverError(CodeProviderError, info.Err.Code, info.Err.Message)
	}
	return nil, serverError(CodeServerError, "TURN_FAILED", "the turn failed")
}

// steer injects input into the running turn after its current step.
func (w *Wire) steer(ctx context.Context, p *promptParams) (map[string]any, error) {
	if p.UserInput == nil || strings.TrimSpace(p.UserInput.Text) == "" {
		return nil, server.InvalidParams("user_input is empty")
	}
	c := w.existing(ctx)
	if c == nil || c.running() == "" {
		return nil, noTurn()
	}
	// The engine accepts steering atomically: a turn already finishing
	// refuses it, and it then runs as a turn of its own, never lost.
	if _, err := w.mgr.StartTurn(c.sessionID, agent.TurnRequest{Text: p.UserInput.Text, Behavior: agent.Steer,
		Approval: c.policy(w), External: c.wireTools()}); err != nil {
		return nil, serverError(CodeServerError, "STEER_FAILED", err.Error())
	}
	return map[string]any{"status": "steered"}, nil
}

// cancel cancels the running turn; its prompt then answers cancelled.
func (w *Wire) cancel(ctx context.Context, _ *struct{}) (map[string]any, error) {
	c := w.existing(ctx)
	id := ""
	if c != nil {
		id = c.running()
	}
	if id == "" {
		return nil, noTurn()
	}
	if _, err := w.mgr.CancelTurn(id); err != nil {
		return nil, noTurn()
	}
	return map[string]any{}, nil
}

func turnInProgress() error {
	return serverError(CodeServerError, "TURN_IN_PROGRESS", "An agent turn is already in progress")
}

func noTurn() error {
	return serverError(CodeServerError, "NO_TURN", "No agent turn is in progress")
}

type planModeParams struct {
	Enabled *bool `json:"enabled"`
}

// setPlanMode turns plan mode on or off for the turns that start next: in
// plan mode file writes and commands are refused without asking.
func (w *Wire) setPlanMode(ctx context.Context, p *planModeParams) (map[string]any, error) {
	if p.Enabled == nil {
		return nil, server.InvalidParams("enabled is required")
	}
	c, err := w.connOf(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.planMode = *p.Enabled
	c.mu.Unlock()
	c.store.setPlanMode(*p.Enabled)
	c.event("StatusUpdate", map[string]any{"plan_mode": *p.Enabled})
	return map[string]any{"status": "ok", "plan_mode": *p.Enabled}, nil
}

// replay re-sends the session's recorded events and resolved requests.
// The requests go out as requests with their recorded ids, as kimi-cli
// sends them (a client that tells requests by their id, as kimi-agent-sdk
// does, would drop them as notifications); the client must not answer
// them, and an answer is dropped: nothing waits for it.
func (w *Wire) replay(ctx context.Context, _ *struct{}) (map[string]any, error) {
	c, err := w.connOf(ctx)
	if err != nil {
		return nil, err
	}
	if c.running() != "" {
		return nil, turnInProgress()
	}
	events, requests, err := c.store.replay(func(msg wireMessage, requestID string) {
		if requestID == "" {
			c.send("event", msg)
			return
		}
		if err := c.conn.SendCall(ctx, requestID, "request", msg); err != nil {
			c.conn.Logger().Debug("kimi wire replayed request not delivered", "err", err)
		}
	})
	if err != nil {
		return nil, serverError(CodeServerError, "REPLAY_FAILED", err.Error())
	}
	return map[string]any{"status": "finished", "events": events, "requests": requests}, nil
}

// methods is the wire's methods table. prompt and replay run off the read
// loop: prompt answers only when its turn ends.
func (w *Wire) methods() []server.Spec {
	return []server.Spec{
		server.Request("initialize", server.Ordered, w.initialize).Advertise("methods"),
		server.Request("prompt", server.Concurrent, w.prompt).Advertise("methods"),
		server.Request("steer", server.Ordered, w.steer).Advertise("methods"),
		server.Request("cancel", server.Ordered, w.cancel).Advertise("methods"),
		server.Request("set_plan_mode", server.Ordered, w.setPlanMode).Advertise("methods"),
		server.Request("replay", server.Concurrent, w.replay).Advertise("methods"),
	}
}

// Register adds the wire's methods to reg.
func (w *Wire) Register(reg *server.Registry) { reg.Register(w.methods()) }

// Advertised lists the methods initialize's peers may call.
func (w *Wire) Advertised() []string {
	var names []string
	for _, m := range w.methods() {
		if m.Capability == "methods" {
			names = append(names, m.Name())
		}
	}
	return names
}

// Profile is `kast kimi --wire`: NDJSON, string ids, no LSP lifecycle.
func (w *Wire) Profile() server.Profile {
	return server.Profile{Name: "kast", Framing: server.FramingNDJSON, StringIDs: true}
}
