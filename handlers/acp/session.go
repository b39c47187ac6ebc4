package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/server"
)

// session is one ACP session open on a connection: an engine session, its
// subscription, its mode and MCP tools, and the turns its prompts run.
type session struct {
	id   string // the session file's id: what the client addresses
	ms   *agent.ManagedSession
	conn *server.Conn
	sub  *agent.Subscription
	mcp  *mcpTools

	mu           sync.Mutex
	mode         string
	rejectAlways map[string]bool // tools the user rejected for the session
	allowAlways  map[string]bool // tools the user allowed for the session
	titled       bool
	waits        map[string][]context.CancelFunc // requests to the client, by turn
	callDiffs    map[string][]any                // the diffs of edits announced, by call id

	// turnMu orders prompts against cancels (see prompt and cancel).
	turnMu     sync.Mutex
	turns      map[string]*agent.Turn
	lastCancel int64
}

// Modes: the engine's approval policies under ACP mode ids.
const (
	modeDefault     = "default"
	modeAcceptEdits = "acceptEdits"
	modePlan        = "plan"
)

var modes = []map[string]any{
	{"id": modeDefault, "name": "Ask before edits", "description": "Ask before each file change and command"},
	{"id": modeAcceptEdits, "name": "Accept edits", "description": "Change files without asking; ask before commands"},
	{"id": modePlan, "name": "Plan (read-only)", "description": "Read and search only: file changes and commands are refused"},
}

func (ss *session) modeState() map[string]any {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return map[string]any{"currentModeId": ss.mode, "availableModes": modes}
}

// policy is the approval policy of the session's next turn.
func (ss *session) policy() *agent.ApprovalPolicy {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch ss.mode {
	case modeAcceptEdits:
		return &agent.ApprovalPolicy{Ask: []agent.ToolKind{agent.KindCommand, agent.KindOther}}
	case modePlan:
		return &agent.ApprovalPolicy{Ask: []agent.ToolKind{agent.KindOther}, Deny: []agent.ToolKind{agent.KindWrite, agent.KindCommand},
			DenyReason: "the session is in plan mode: only reading and searching tools run until the user leaves it"}
	}
	return &agent.ApprovalPolicy{Ask: []agent.ToolKind{agent.KindWrite, agent.KindCommand, agent.KindOther}}
}

type mcpServer struct {
	Type    string      `json:"type"`
	Name    string      `json:"name"`
	Command string      `json:"command"`
	Args    []string    `json:"args"`
	Env     []nameValue `json:"env"`
	URL     string      `json:"url"`
	Headers []nameValue `json:"headers"`
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type sessionParams struct {
	SessionID             string      `json:"sessionId"`
	Cwd                   *string     `json:"cwd"`
	AdditionalDirectories []string    `json:"additionalDirectories"`
	MCPServers            []mcpServer `json:"mcpServers"`
}

// checkDirs applies ACP's rule that cwd (required) and the additional
// directories are absolute.
func (p *sessionParams) checkDirs() error {
	if p.Cwd == nil || *p.Cwd == "" {
		return server.InvalidParams("cwd is required")
	}
	if !filepath.IsAbs(*p.Cwd) {
		return server.InvalidParams("cwd must be an absolute path, not %q", *p.Cwd)
	}
	for i, d := range p.AdditionalDirectories {
		if !filepath.IsAbs(d) {
			return server.InvalidParams("additionalDirectories must be absolute paths, not %q", d)
		}
		// Links resolved, as confinement compares real paths.
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return server.InvalidParams("additionalDirectories[%d] %q is not a directory kast can open: %v", i, d, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return server.InvalidParams("additionalDirectories[%d] %q is not a directory", i, d)
		}
		p.AdditionalDirectories[i] = real
	}
	return nil
}

// open makes the ACP session over an engine session that create or resume
// returns, given the session's own configuration, and subscribes to it.
func (s *Service) open(ctx context.Context, p *sessionParams, replay bool,
	start func(cfg agent.SessionConfig) (*agent.ManagedSession, error)) (*session, error) {
	if err := p.checkDirs(); err != nil {
		return nil, err
	}
	conn, cs, err := s.stateOf(ctx)
	if err != nil {
		return nil, err
	}
	if p.SessionID != "" {
		cs.mu.Lock()
		open := cs.sessions[p.SessionID]
		cs.mu.Unlock()
		if open != nil {
			return nil, server.Error(-32600, "SESSION_OPEN", "session "+p.SessionID+" is open on this connection already", nil)
		}
	}
	mcp, warnings, err := connectMCP(p.MCPServers, *p.Cwd)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		conn.Logger().Warn("acp: "+w, "cwd", *p.Cwd)
	}
	ss := &session{conn: conn, mcp: mcp, mode: modeDefault, rejectAlways: map[string]bool{}, allowAlways: map[string]bool{},
		waits: map[string][]context.CancelFunc{}, callDiffs: map[string][]any{}, turns: map[string]*agent.Turn{}}
	cs.mu.Lock()
	caps := cs.caps
	cs.mu.Unlock()
	// The additional directories are further roots of the session's tools:
	// confinement admits them and the code tools query their index.
	cfg := agent.SessionConfig{Roots: p.AdditionalDirectories}
	if base := s.rt.Tools(); base != nil && (caps.readTextFile && caps.writeTextFile || caps.terminal) {
		ct := &tools.ClientTools{Base: base, Texts: &tools.EditorTexts{}}
		if caps.readTextFile && caps.writeTextFile {
			ct.Files = clientFiles{ss}
		}
		if caps.terminal {
			ct.Terminal = clientTerminal{ss}
		}
		cfg.Tools = ct
	}
	// Each turn resolves the provider anew, so an authenticate after a
	// prompt that needed it serves the session's next prompt.
	cfg.Provider = func() (agent.Provider, error) {
		cs.mu.Lock()
		provider := cs.provider
		cs.mu.Unlock()
		if provider == "" {
			return s.mgr.Provider()
		}
		return s.mgr.ProviderWith(provider, "")
	}
	ms, err := start(cfg)
	if err != nil {
		mcp.close()
		return nil, engineError(err)
	}
	ss.ms, ss.id = ms, ms.Header().ID
	ss.restore()
	ss.titled = ms.Name() != ""
	if replay {
		ss.replay(ms.History())
	}
	sub, err := s.mgr.Subscribe(ms.ID(), agent.SubscribeOptions{}, func(u agent.Update) { ss.forward(s, u) })
	if err != nil {
		mcp.close()
		_ = s.mgr.Close(ms.ID())
		return nil, engineError(err)
	}
	ss.sub = sub
	cs.mu.Lock()
	cs.sessions[ss.id] = ss
	cs.mu.Unlock()
	server.AfterReply(ctx, func() {
		ss.notify(ss.commandsUpdate(s))
		for _, w := range warnings {
			ss.notify(chunk("agent_message_chunk", "⚠ "+w+"\n"))
		}
	})
	return ss, nil
}

func (s *Service) newSession(ctx context.Context, p *sessionParams) (map[string]any, error) {
	p.SessionID = ""
	ss, err := s.open(ctx, p, false, func(cfg agent.SessionConfig) (*agent.ManagedSession, error) {
		return s.mgr.CreateWith(*p.Cwd, "", cfg)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessionId": ss.id, "modes": ss.modeState()}, nil
}

// loadSession opens a stored session and replays its whole history as
// session/update before it answers.
func (s *Service) loadSession(ctx context.Context, p *sessionParams) (map[string]any, error) {
	return s.reopen(ctx, p, true)
}

// resumeSession opens a stored session without replaying it.
func (s *Service) resumeSession(ctx context.Context, p *sessionParams) (map[string]any, error) {
	return s.reopen(ctx, p, false)
}

func (s *Service) reopen(ctx context.Context, p *sessionParams, replay bool) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, server.InvalidParams("sessionId is required")
	}
	ss, err := s.open(ctx, p, replay, func(cfg agent.SessionConfig) (*agent.ManagedSession, error) {
		return s.mgr.ResumeIDWith(p.SessionID, *p.Cwd, cfg)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"modes": ss.modeState()}, nil
}

type listParams struct {
	Cwd    *string `json:"cwd"`
	Cursor *string `json:"cursor"`
}

// listPage is how many sessions session/list answers at once.
const listPage = 50

// listSessions lists the stored sessions of cwd (the launch folder when
// absent), newest first; the cursor is the offset of the next page.
func (s *Service) listSessions(ctx context.Context, p *listParams) (map[string]any, error) {
	root := ""
	if p.Cwd != nil {
		if !filepath.IsAbs(*p.Cwd) {
			return nil, server.InvalidParams("cwd must be an absolute path, not %q", *p.Cwd)
		}
		root = *p.Cwd
	}
	offset := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return nil, server.InvalidParams("cursor %q is not one session/list gave", *p.Cursor)
		}
		offset = n
	}
	workspace, err := s.mgr.Workspace(root)
	if err != nil {
		return nil, engineError(err)
	}
	all, err := s.mgr.List(workspace, offset+listPage+1)
	if err != nil {
		return nil, engineError(err)
	}
	out := []map[string]any{}
	for i := offset; i < len(all) && i < offset+listPage; i++ {
		sum := all[i]
		title := sum.Name
		if title == "" {
			title = titleOf(sum.FirstMessage)
		}
		out = append(out, map[string]any{"sessionId": sum.ID, "cwd": sum.Cwd, "title": title,
			"updatedAt": sum.ModifiedAt.UTC().Format(time.RFC3339)})
	}
	res := map[string]any{"sessions": out}
	if len(all) > offset+listPage {
		res["nextCursor"] = strconv.Itoa(offset + listPage)
	}
	return res, nil
}

type sessionIDParams struct {
	SessionID string `json:"sessionId"`
}

// closeSession cancels the session's turns and closes it.
func (s *Service) closeSession(ctx context.Context, p *sessionIDParams) (map[string]any, error) {
	ss, err := s.sessionOf(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	_, cs, _ := s.stateOf(ctx)
	cs.mu.Lock()
	delete(cs.sessions, ss.id)
	cs.mu.Unlock()
	ss.close(s)
	return map[string]any{}, nil
}

// close ends the session's turns, its subscription, its MCP servers and the
// engine session.
func (ss *session) close(s *Service) {
	for _, t := range ss.runningTurns() {
		_, _ = s.mgr.CancelTurn(t.ID())
		<-t.Done()
	}
	if ss.sub != nil {
		ss.sub.Close()
	}
	ss.mcp.close()
	_ = s.mgr.Close(ss.ms.ID())
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// setMode switches the approval policy of the session's next turns.
func (s *Service) setMode(ctx context.Context, p *setModeParams) (map[string]any, error) {
	ss, err := s.sessionOf(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	known := false
	for _, m := range modes {
		known = known || m["id"] == p.ModeID
	}
	if !known {
		return nil, server.InvalidParams("unknown mode %q: use default, acceptEdits or plan", p.ModeID)
	}
	ss.mu.Lock()
	ss.mode = p.ModeID
	ss.mu.Unlock()
	ss.persist()
	server.AfterReply(ctx, func() {
		ss.notify(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": p.ModeID})
	})
	return map[string]any{}, nil
}

// sessionMetaKey is the session file's meta record of the ACP state that
// outlives a process: the mode and the "always" answers.
const sessionMetaKey = "acp"

type persisted struct {
	Mode         string   `json:"mode"`
	AllowAlways  []string `json:"allowAlways,omitempty"`
	RejectAlways []string `json:"rejectAlways,omitempty"`
}

// restore takes the mode and "always" answers a session/load or resume
// finds in the session file.
func (ss *session) restore() {
	var p persisted
	if raw := ss.ms.Meta(sessionMetaKey); raw == nil || json.Unmarshal(raw, &p) != nil {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, m := range modes {
		if m["id"] == p.Mode {
			ss.mode = p.Mode
		}
	}
	for _, t := range p.AllowAlways {
		ss.allowAlways[t] = true
	}
	for _, t := range p.RejectAlways {
		ss.rejectAlways[t] = true
	}
}

// persist writes the mode and "always" answers to the session file.
func (ss *session) persist() {
	ss.mu.Lock()
	p := persisted{Mode: ss.mode, AllowAlways: sortedKeys(ss.allowAlways), RejectAlways: sortedKeys(ss.rejectAlways)}
	ss.mu.Unlock()
	raw, _ := json.Marshal(p)
	if err := ss.ms.SetMeta(sessionMetaKey, raw); err != nil {
		ss.conn.Logger().Warn("acp: the session's mode and answers were not saved", "err", err)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
