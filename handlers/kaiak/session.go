package kaiak

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/server"
)

// sessionConfig is a session's configuration (v1 SessionConfiguration).
type sessionConfig struct {
	provider, model    string
	timeout            time.Duration // a fix request's time limit; 0 for none
	maxTurns           int           // model requests per file; 0 for the engine's default
	interactionTimeout time.Duration
}

// session is one Kaiak session: an agent session of its own, whose file
// changes are proposals, and the requests it serves.
type session struct {
	svc       *Service
	id        string
	name      string
	workspace string
	cfg       sessionConfig
	owner     *server.Conn // the connection that created it, nil in-process
	ms        *agent.ManagedSession
	sub       *agent.Subscription
	createdAt time.Time
	incidents []Incident // given at creation (the OpenAPI flow), for a generate without any

	// startMu serializes starting turns, so that each turn's queued event
	// finds the request that started it (starting).
	startMu sync.Mutex

	mu           sync.Mutex
	updatedAt    time.Time
	starting     *request
	byTurn       map[string]*request // the request each of the session's turns serves
	running      *request            // the request whose turn is running
	active       []*request          // unfinished requests, oldest first
	last         string              // the last finished request's status
	errorCount   int
	terminated   bool
	terminatedAt time.Time
	messageCount int // at termination
	statusCalls  []time.Time
	modified     []string // files changed by approved proposals
}

func (ss *session) touch() {
	ss.mu.Lock()
	ss.updatedAt = time.Now()
	ss.mu.Unlock()
}

// parseConfiguration reads session/create's configuration. Types and ranges
// are -32602; a provider or model kast cannot use, or a request to write
// without approval, is -32014.
func (s *Service) parseConfiguration(o obj) (sessionConfig, error) {
	cfg := sessionConfig{interactionTimeout: s.opts.InteractionTimeout}
	c, err := o.sub("", "configuration")
	if err != nil || c == nil {
		return cfg, err
	}
	const p = "configuration."
	if cfg.provider, err = c.str(p, "provider"); err != nil {
		return cfg, err
	}
	if cfg.model, err = c.str(p, "model"); err != nil {
		return cfg, err
	}
	if n, ok, err := c.integer(p, "timeout", 30, 3600); err != nil {
		return cfg, err
	} else if ok {
		cfg.timeout = time.Duration(n) * time.Second
	}
	if n, ok, err := c.integer(p, "max_turns", 1, 100); err != nil {
		return cfg, err
	} else if ok {
		cfg.maxTurns = n
	}
	if v, ok, err := c.number(p, "interaction_timeout"); err != nil {
		return cfg, err
	} else if ok {
		if v <= 0 || v > 3600 {
			return cfg, invalid(map[string]any{"field": p + "interaction_timeout"},
				"invalid params: configuration.interaction_timeout must be a number of seconds above 0 and at most 3600")
		}
		cfg.interactionTimeout = time.Duration(v * float64(time.Second))
	}
	if on, ok, err := c.boolean(p, "enable_tool_interception"); err != nil {
		return cfg, err
	} else if ok && !on {
		return cfg, kerr(codeConfigurationError, map[string]any{"field": p + "enable_tool_interception"},
			"configuration error: enable_tool_interception cannot be turned off: kast never changes a file without the user's approval")
	}
	if cfg.provider != "" || cfg.model != "" {
		if _, err := s.mgr.ProviderWith(cfg.provider, cfg.model); err != nil {
			return cfg, kerr(codeConfigurationError, map[string]any{"provider": cfg.provider, "model": cfg.model},
				"configuration error: %s", s.rt.Secrets().String(err.Error()))
		}
	}
	return cfg, nil
}

// checkWorkspace requires an existing, readable folder.
func checkWorkspace(path string) (string, error) {
	fail := func(format string, args ...any) (string, error) {
		return "", kerr(codeWorkspaceAccessDenied, map[string]any{"workspace_path": path}, format, args...)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("workspace access denied: %s does not exist", path)
	case err != nil:
		return fail("workspace access denied: %s: %v", path, describeErr(err))
	case !fi.IsDir():
		return fail("workspace access denied: %s is not a folder", path)
	}
	f, err := os.Open(path)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		return fail("workspace access denied: %s cannot be read: %v", path, describeErr(err))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fail("workspace access denied: %s: %v", path, describeErr(err))
	}
	return real, nil
}

func (s *Service) sessionCreate(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	path, err := o.required("", "workspace_path")
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) {
		return nil, invalid(map[string]any{"field": "workspace_path"}, "invalid params: workspace_path must be an absolute path, not %q", path)
	}
	name, err := o.str("", "session_name")
	if err != nil {
		return nil, err
	}
	var incidents []Incident
	if items, ok, err := o.list("", "incidents"); err != nil {
		return nil, err
	} else if ok {
		if incidents, err = parseIncidents(items); err != nil {
			return nil, err
		}
	}
	cfg, err := s.parseConfiguration(o)
	if err != nil {
		return nil, err
	}
	workspace, err := checkWorkspace(path)
	if err != nil {
		return nil, err
	}
	if len(incidents) > 0 {
		if _, err := groupIncidents(workspace, incidents); err != nil {
			return nil, err
		}
	}
	ss, err := s.openSession(ctx, workspace, name, cfg)
	if err != nil {
		return nil, err
	}
	ss.incidents = incidents
	return map[string]any{"session_id": ss.id, "status": "created", "created_at": stamp(ss.createdAt)}, nil
}

// openSession creates the agent session of a new Kaiak session and
// subscribes to its updates.
func (s *Service) openSession(ctx context.Context, workspace, name string, cfg sessionConfig) (*session, error) {
	now := time.Now()
	ss := &session{svc: s, id: newUUID(), name: name, workspace: workspace, cfg: cfg, owner: server.ConnOf(ctx),
		createdAt: now, updatedAt: now, byTurn: map[string]*request{}}
	sc := agent.SessionConfig{Tools: &tools.Set{Code: s.opts.Code, Proposals: true}, Propose: ss.propose,
		System: systemPrompt, MaxSteps: cfg.maxTurns}
	if cfg.provider != "" || cfg.model != "" {
		sc.Provider = func() (agent.Provider, error) { return s.mgr.ProviderWith(cfg.provider, cfg.model) }
	}
	ms, err := s.mgr.CreateWith(workspace, name, sc)
	if err != nil {
		var ws *agent.WorkspaceError
		if errors.As(err, &ws) {
			return nil, kerr(codeWorkspaceAccessDenied, map[string]any{"workspace_path": workspace}, "workspace access denied: %v", err)
		}
		return nil, kerr(codeSessionCreationFailed, nil, "session creation failed: %v", err)
	}
	ss.ms = ms
	sub, err := s.mgr.Subscribe(ms.ID(), agent.SubscribeOptions{}, ss.deliver)
	if err != nil {
		_ = s.mgr.Close(ms.ID())
		return nil, kerr(codeSessionCreationFailed, nil, "session creation failed: %v", err)
	}
	ss.sub = sub
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	s.watch(ss.owner)
	return ss, nil
}

// lookup finds a session by its id (or a v2 client's id for it).
func (s *Service) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[id]; ok {
		return ss
	}
	if real, ok := s.aliases[id]; ok {
		return s.sessions[real]
	}
	return nil
}

// sessionParam reads session_id and finds the session: -32602 when absent,
// -32003 when unknown.
func (s *Service) sessionParam(o obj) (*session, error) {
	id, err := o.required("", "session_id")
	if err != nil {
		return nil, err
	}
	ss := s.lookup(id)
	if ss == nil {
		return nil, kerr(codeSessionNotFound, map[string]any{"session_id": id}, "session not found: %s", id)
	}
	return ss, nil
}

func (s *Service) sessionTerminate(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	ss, err := s.sessionParam(o)
	if err != nil {
		return nil, err
	}
	reason, err := o.str("", "reason")
	if err != nil {
		return nil, err
	}
	if reason == "" {
		reason = "the session was terminated"
	}
	count, err := s.terminate(ss, reason)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	at := ss.terminatedAt
	ss.mu.Unlock()
	return map[string]any{"session_id": ss.id, "status": "terminated", "message_count": count, "terminated_at": stamp(at),
		"terminated": true, "final_status": "terminated"}, nil
}

// terminate cancels the session's requests (their proposals and
// interactions resolve as denied), waits (bounded) for them to end, and
// closes its agent session. A session terminated already is -32004.
func (s *Service) terminate(ss *session, reason string) (int, error) {
	ss.mu.Lock()
	if ss.terminated {
		at := ss.terminatedAt
		ss.mu.Unlock()
		return 0, kerr(codeSessionTerminated, map[string]any{"session_id": ss.id, "terminated_at": stamp(at)},
			"session already terminated: %s (at %s)", ss.id, stamp(at))
	}
	ss.terminated = true
	active := append([]*request(nil), ss.active...)
	ss.mu.Unlock()
	for _, r := range active {
		r.cancel(reason)
	}
	deadline := time.After(10 * time.Second)
	for _, r := range active {
		select {
		case <-r.done:
		case <-deadline:
		}
	}
	count := len(ss.ms.History())
	_ = s.mgr.Close(ss.ms.ID())
	ss.sub.Close()
	ss.mu.Lock()
	ss.terminatedAt = time.Now()
	ss.updatedAt = ss.terminatedAt
	ss.messageCount = count
	ss.incidents = nil
	ss.mu.Unlock()
	s.mu.Lock()
	s.terminated = append(s.terminated, ss.id)
	if len(s.terminated) > keepTerminated {
		delete(s.sessions, s.terminated[0])
		s.terminated = s.terminated[1:]
	}
	for alias, id := range s.aliases {
		if id == ss.id {
			delete(s.aliases, alias)
		}
	}
	s.mu.Unlock()
	return count, nil
}

func (s *Service) sessionStatus(ctx context.Context, raw json.RawMessage) (map[string]any, error) {
	o, err := object(raw)
	if err != nil {
		return nil, err
	}
	ss, err := s.sessionParam(o)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	ss.mu.Lock()
	calls := ss.statusCalls[:0]
	for _, t := range ss.statusCalls {
		if now.Sub(t) < time.Minute {
			calls = append(calls, t)
		}
	}
	ss.statusCalls = calls
	if len(calls) >= MaxStatusPerMinute {
		ss.mu.Unlock()
		return nil, limitError("statusRequestsPerMinute", map[string]any{"session_id": ss.id, "max": MaxStatusPerMinute},
			"status request limit exceeded: at most %d kaiak/session/status requests per minute per session", MaxStatusPerMinute)
	}
	ss.statusCalls = append(ss.statusCalls, now)
	status, activeID := ss.statusLocked()
	terminated, count := ss.terminated, ss.messageCount
	res := map[string]any{"session_id": ss.id, "status": status, "active_request_id": activeID, "error_count": ss.errorCount,
		"created_at": stamp(ss.createdAt), "updated_at": stamp(ss.updatedAt), "workspace_path": ss.workspace,
		"files_modified": append([]string{}, ss.modified...)}
	ss.mu.Unlock()
	usage := agent.Usage{}
	if !terminated {
		history := ss.ms.History()
		count = len(history)
		for _, m := range history {
			if m.Usage != nil {
				usage.Add(*m.Usage)
			}
		}
	}
	res["message_count"] = count
	res["token_usage"] = map[string]any{"input_tokens": usage.InputTokens, "output_tokens": usage.OutputTokens, "total_tokens": usage.TotalTokens}
	sort.Strings(res["files_modified"].([]string))
	return res, nil
}

// statusLocked is the session's v1 status and its active request's id (nil
// when none).
func (ss *session) statusLocked() (string, any) {
	switch {
	case ss.terminated:
		return "terminated", nil
	case len(ss.active) > 0:
		return "processing", ss.active[0].id
	case ss.last == "":
		return "created", nil
	case ss.last == statusCompleted:
		return "completed", nil
	case ss.last == statusFailed:
		return "failed", nil
	}
	return "ready", nil
}

// deliver projects the session's agent updates onto the requests whose
// turns they belong to. It runs on the goroutine that produced the update.
func (ss *session) deliver(u agent.Update) {
	ss.mu.Lock()
	var r *request
	if u.Event != nil && u.Event.Kind == agent.EventQueued && ss.starting != nil {
		ss.byTurn[u.Event.TurnID] = ss.starting
	}
	r = ss.byTurn[u.TurnID()]
	if u.Event != nil && r != nil {
		switch u.Event.Kind {
		case agent.EventStarted:
			ss.running = r
		case agent.EventFinished:
			if ss.running == r {
				ss.running = nil
			}
			delete(ss.byTurn, u.Event.TurnID)
		}
	}
	ss.mu.Unlock()
	if r == nil {
		return
	}
	switch {
	case u.Event != nil:
		r.project(*u.Event)
	case u.Question != nil:
		r.ask(*u.Question)
	}
}

// current is the request whose turn is running, or nil.
func (ss *session) current() *request {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.running
}
