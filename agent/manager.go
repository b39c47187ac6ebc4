package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Manager owns the open sessions of the process and their turns. Every
// protocol projection drives sessions through it and subscribes to their
// updates (Subscribe), holding no session state of its own, so several
// projections and connections can share one session.
type Manager struct {
	opts ManagerOptions
	// lastRetrieval is the latest memory retrieval of any session.
	lastRetrieval atomic.Pointer[Retrieval]

	// resumeMu serializes resumes, so two of one file open one session.
	resumeMu sync.Mutex

	mu       sync.Mutex
	sessions map[string]*ManagedSession // by manager session id
	turns    map[string]*Turn           // by turn id, until its session closes
}

// ManagerOptions configures a Manager.
type ManagerOptions struct {
	Env Env
	// Store holds the session files.
	Store *Store
	Tools Toolset
	// LaunchDir is the workspace of requests that name none.
	LaunchDir string
	// ConfigDir holds the user's resources (AGENTS.md, prompts, skills,
	// plugins).
	ConfigDir string
	// Auth holds the stored credentials the config is completed with.
	Auth AuthStore
	// Memory, when set, retrieves memories into turns and learns from them
	// as the config's memory settings say.
	Memory *MemoryStore
	// Telemetry, when set, observes every turn event.
	Telemetry *Telemetry
	// Secrets, when set, learns each resolved provider's key.
	Secrets *Redactor
	// NewProvider builds the provider of a resolved configuration (the
	// agent/provider package in production).
	NewProvider func(Resolved) (Provider, error)
}

// NewManager returns a manager with no open session.
func NewManager(opts ManagerOptions) *Manager {
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	return &Manager{opts: opts, sessions: map[string]*ManagedSession{}, turns: map[string]*Turn{}}
}

// NotFoundError is a session or turn id the manager does not know; a closed
// session and its turns are forgotten.
type NotFoundError struct {
	Kind string // "session" or "turn"
	ID   string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("unknown %s id %q", e.Kind, e.ID) }

// WorkspaceError is a workspace root that is not an existing directory.
type WorkspaceError struct {
	Root   string
	NotDir bool // it exists but is not a directory
}

func (e *WorkspaceError) Error() string {
	if e.NotDir {
		return fmt.Sprintf("workspace %s is not a directory", e.Root)
	}
	return fmt.Sprintf("workspace %s does not exist", e.Root)
}

// ErrEntryNotFound is returned by Fork for an entry id that is not a user
// message of the session.
var ErrEntryNotFound = errors.New("the entry is not a user message of this session")

// Configuration.

// Config loads the config file, completed with the stored credentials.
func (m *Manager) Config() (*Config, error) {
	cfg, err := LoadConfig(ConfigPath(m.opts.Env))
	if err != nil {
		return nil, err
	}
	creds, err := m.opts.Auth.Load()
	if err != nil {
		return nil, err
	}
	cfg.Credentials = map[string]string{}
	for name, c := range creds {
		cfg.Credentials[name] = c.Secret()
	}
	return cfg, nil
}

// Provider resolves the configured provider. Turns call it as they start,
// so edits to the config file or environment apply without a restart.
func (m *Manager) Provider() (Provider, error) {
	cfg, err := m.Config()
	if err != nil {
		return nil, err
	}
	r, err := cfg.Resolve(m.opts.Env, ConfigPath(m.opts.Env))
	if err != nil {
		return nil, err
	}
	if m.opts.Secrets != nil {
		m.opts.Secrets.Add(r.APIKey)
	}
	if m.opts.NewProvider == nil {
		return nil, fmt.Errorf("%w: this build has no provider implementations", ErrNoProvider)
	}
	return m.opts.NewProvider(r)
}

// ProviderWith resolves the provider as Provider does, with name and model
// (when not "") in place of the configured ones, as KAST_PROVIDER and
// KAST_MODEL would set them. The error says what is missing, as Provider's.
func (m *Manager) ProviderWith(name, model string) (Provider, error) {
	cfg, err := m.Config()
	if err != nil {
		return nil, err
	}
	env := func(k string) string {
		switch {
		case k == "KAST_PROVIDER" && name != "":
			return name
		case k == "KAST_MODEL" && model != "":
			return model
		}
		return m.opts.Env(k)
	}
	r, err := cfg.Resolve(env, ConfigPath(m.opts.Env))
	if err != nil {
		return nil, err
	}
	if m.opts.Secrets != nil {
		m.opts.Secrets.Add(r.APIKey)
	}
	if m.opts.NewProvider == nil {
		return nil, fmt.Errorf("%w: this build has no provider implementations", ErrNoProvider)
	}
	return m.opts.NewProvider(r)
}

// CompactionPolicy reads the automatic compaction settings and the current
// model's context window.
func (m *Manager) CompactionPolicy() CompactionPolicy {
	cfg, err := m.Config()
	if err != nil {
		return CompactionPolicy{}
	}
	c := cfg.Compaction
	pol := CompactionPolicy{Auto: !c.Disabled, ContextWindow: c.ContextWindow, ReserveTokens: c.ReserveTokens, KeepRecentTokens: c.KeepRecentTokens}
	if pol.ContextWindow == 0 {
		if r, err := cfg.Resolve(m.opts.Env, ConfigPath(m.opts.Env)); err == nil {
			model, _ := LookupModel(r.Name, r.Model)
			pol.ContextWindow = model.ContextWindow
		}
	}
	return pol
}

// Workspace resolves an optional root ("" is the launch directory) to a
// real, existing directory.
func (m *Manager) Workspace(root string) (string, error) {
	if root == "" {
		root = m.opts.LaunchDir
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", &WorkspaceError{Root: root}
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", &WorkspaceError{Root: root, NotDir: true}
	}
	return abs, nil
}

// Sessions.

// ManagedSession is an open session: a runtime session bound to its file,
// with the subscribers of its updates. Its methods only read.
type ManagedSession struct {
	id        string
	rt        *Session
	log       *SessionLog
	workspace string
	hub       hub
	// retrieval is the memory retrieval of the session's latest turn.
	retrieval atomic.Pointer[Retrieval]
	// finished lists the ids of its ended turns still addressable, oldest
	// first (guarded by the manager's mu; see keepFinishedTurns).
	finished []string
}

// ID returns the manager's id of the session, which clients address and
// events carry; the file's own id is Header().ID.
func (ms *ManagedSession) ID() string { return ms.id }

// Workspace returns the session's workspace root.
func (ms *ManagedSession) Workspace() string { return ms.workspace }

// Path returns the session file's path.
func (ms *ManagedSession) Path() string { return ms.log.Path() }

// Header returns the session file's header.
func (ms *ManagedSession) Header() Header { return ms.log.Header() }

// Name returns the session's name, or "".
func (ms *ManagedSession) Name() string { return ms.log.Name() }

// SetMeta keeps a client's value with the session, in its file (see
// SessionLog.SetMeta); Meta reads it back, also after a resume.
func (ms *ManagedSession) SetMeta(key string, value json.RawMessage) error {
	return ms.log.SetMeta(key, value)
}

// Meta returns the session's latest value of key, or nil.
func (ms *ManagedSession) Meta(key string) json.RawMessage { return ms.log.Meta(key) }

// ModifiedAt returns when the session file last changed.
func (ms *ManagedSession) ModifiedAt() time.Time {
	if fi, err := os.Stat(ms.log.Path()); err == nil {
		return fi.ModTime()
	}
	created, _ := time.Parse(TimeFormat, ms.log.Header().Timestamp)
	return created
}

// History returns a copy of the conversation.
func (ms *ManagedSession) History() []Message { return ms.rt.History() }

// Streaming reports whether a turn is running.
func (ms *ManagedSession) Streaming() bool { return ms.rt.Running() != nil }

// Pending is how many inputs wait: queued turns and steering not yet taken.
func (ms *ManagedSession) Pending() int { return ms.rt.Pending() }

// Compacting reports whether a compaction is running.
func (ms *ManagedSession) Compacting() bool { return ms.rt.Compacting() }

// Retrieval returns the memory retrieval of the session's latest turn, or
// nil.
func (ms *ManagedSession) Retrieval() *Retrieval { return ms.retrieval.Load() }

// Session returns the open session with id.
func (m *Manager) Session(id string) (*ManagedSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, ok := m.sessions[id]
	if !ok {
		return nil, &NotFoundError{Kind: "session", ID: id}
	}
	return ms, nil
}

// SessionConfig is what one session has of its own instead of what the
// manager gives every session (Manager.CreateWith); zero fields keep the
// manager's.
type SessionConfig struct {
	// Tools replace the manager's tools.
	Tools Toolset
	// Propose, when set, turns the session's file changes into proposals a
	// person approves (see Proposal): every tool call runs with
	// ToolEnv.Propose set to it.
	Propose ProposeFunc
	// Provider resolves the session's provider as each turn starts, in
	// place of Manager.Provider (see Manager.ProviderWith).
	Provider func() (Provider, error)
	// System replaces the default system prompt.
	System string
	// Roots are further workspace roots the session's tools may use (ACP's
	// additional directories); they are not stored with the session.
	Roots []string
	// MaxSteps caps the model requests of each turn (default 100).
	MaxSteps int
}

// open starts a session over log with history.
func (m *Manager) open(log *SessionLog, workspace string, history []Message, cfg SessionConfig) *ManagedSession {
	ms := &ManagedSession{id: NewID(), log: log, workspace: workspace}
	publish := func(u Update) {
		u.SessionID = ms.id
		ms.hub.publish(u)
	}
	provider, tools := m.Provider, m.opts.Tools
	if cfg.Provider != nil {
		provider = cfg.Provider
	}
	if cfg.Tools != nil {
		tools = cfg.Tools
	}
	if cfg.Propose != nil && tools != nil {
		tools = ProposeTools(tools, cfg.Propose)
	}
	ms.rt = NewSession(SessionOptions{
		ID:                 ms.id,
		Workspace:          workspace,
		Log:                log,
		History:            history,
		Provider:           provider,
		Tools:              tools,
		System:             cfg.System,
		Roots:              cfg.Roots,
		MaxSteps:           cfg.MaxSteps,
		Sink:               func(ev Event) { m.observe(ms, ev); publish(Update{Event: &ev}) },
		OnTurn:             m.addTurn,
		OnQuestion:         func(q QuestionRequest) { publish(Update{Question: &q}) },
		OnApproval:         func(r ApprovalRequest) { publish(Update{Approval: &r}) },
		OnApprovalResolved: func(r ApprovalResolution) { publish(Update{ApprovalResolved: &r}) },
		OnStep:             func(st StepEvent) { publish(Update{Step: &st}) },
		OnToolCallDelta:    func(p ToolCallPart) { publish(Update{ToolCallPart: &p}) },
		OnCompaction:       func(ev CompactionEvent) { publish(Update{Compaction: &ev}) },
		Compaction:         m.CompactionPolicy,
		Context:            func(in Input) string { return m.turnContext(ms, in) },
	})
	m.mu.Lock()
	m.sessions[ms.id] = ms
	m.mu.Unlock()
	return ms
}

// header starts a session file header, naming the configured provider when
// there is one.
func (m *Manager) header(cwd string) Header {
	h := Header{Cwd: cwd}
	if p, err := m.Provider(); err == nil {
		h.Provider, h.Model = p.Info().Name, p.Info().Model
	}
	return h
}

// Create opens a new session file in the workspace root (see Workspace),
// named name when it is not "".
func (m *Manager) Create(root, name string) (*ManagedSession, error) {
	return m.CreateWith(root, name, SessionConfig{})
}

// CreateWith is Create for a session with its own tools, proposals,
// provider, system prompt or step limit (see SessionConfig). A resumed,
// cloned or forked copy of its file gets the manager's defaults.
func (m *Manager) CreateWith(root, name string, cfg SessionConfig) (*ManagedSession, error) {
	workspace, err := m.Workspace(root)
	if err != nil {
		return nil, err
	}
	log, err := m.opts.Store.Create(m.header(workspace))
	if err != nil {
		return nil, fmt.Errorf("creating the session file: %w", err)
	}
	if name != "" {
		if err := log.SetName(name); err != nil {
			return nil, err
		}
	}
	return m.open(log, workspace, nil, cfg), nil
}

// Resume opens the session file at path, relative to the sessions folder
// of the workspace root (see Workspace) when not absolute. Only files in
// kast's sessions folder are opened (see Store.Locate); a session already
// open is returned as it is, so a file never has two writers. The session
// keeps the file's workspace unless root is given or the file names none.
func (m *Manager) Resume(path, root string) (*ManagedSession, error) {
	if !filepath.IsAbs(path) {
		workspace, err := m.Workspace(root)
		if err != nil {
			return nil, err
		}
		path = filepath.Join(m.opts.Store.DirFor(workspace), path)
	}
	real, err := m.opts.Store.Locate(path)
	if err != nil {
		return nil, err
	}
	return m.resume(real, root, SessionConfig{})
}

// ResumeID opens the stored session whose file id (Header().ID) is id, as
// Resume does; an unknown id is a *SessionIDError.
func (m *Manager) ResumeID(id, root string) (*ManagedSession, error) {
	return m.ResumeIDWith(id, root, SessionConfig{})
}

// ResumeIDWith is ResumeID for a session with its own configuration (see
// SessionConfig), as CreateWith is Create's; a session already open keeps
// the configuration it has.
func (m *Manager) ResumeIDWith(id, root string, cfg SessionConfig) (*ManagedSession, error) {
	path, err := m.opts.Store.Find(id)
	if err != nil {
		return nil, err
	}
	return m.resume(path, root, cfg)
}

func (m *Manager) resume(path, root string, cfg SessionConfig) (*ManagedSession, error) {
	m.resumeMu.Lock()
	defer m.resumeMu.Unlock()
	if ms := m.openAt(path); ms != nil {
		return ms, nil
	}
	log, ld, err := m.opts.Store.open(path)
	if err != nil {
		return nil, err
	}
	workspace := ld.Header.Cwd
	if root != "" || workspace == "" {
		if workspace, err = m.Workspace(root); err != nil {
			log.Close()
			return nil, err
		}
	}
	return m.open(log, workspace, ld.Messages, cfg), nil
}

// openAt returns the open session whose file is path, or nil.
func (m *Manager) openAt(path string) *ManagedSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ms := range m.sessions {
		if ms.log.Path() == path || sameFile(ms.log.Path(), path) {
			return ms
		}
	}
	return nil
}

// List summarizes up to limit session files of a workspace root as
// Workspace returned it. It first deletes the files that hold nothing (no
// message, no name) unless a session has them open, here or in another
// process: a client listing sessions while another starts its first turn
// must not lose that file.
func (m *Manager) List(workspace string, limit int) ([]Summary, error) {
	m.opts.Store.RemoveEmpty(workspace, func(path string) bool { return m.openAt(path) != nil })
	return m.opts.Store.List(workspace, limit)
}

// Rename names the session; a blank name clears it.
func (m *Manager) Rename(id, name string) (*ManagedSession, error) {
	ms, err := m.Session(id)
	if err != nil {
		return nil, err
	}
	if err := ms.log.SetName(strings.TrimSpace(name)); err != nil {
		return nil, err
	}
	return ms, nil
}

// branch creates a session file whose header points at ms and holds
// history, and opens it.
func (m *Manager) branch(ms *ManagedSession, history []Message) (*ManagedSession, error) {
	src := ms.log.Header()
	h := Header{Cwd: src.Cwd, Provider: src.Provider, Model: src.Model, ParentID: src.ID, ParentPath: ms.log.Path()}
	log, err := m.opts.Store.Create(h)
	if err != nil {
		return nil, err
	}
	var copied []Message
	for _, msg := range history {
		msg.ID = "" // fresh entry ids: the copy is its own tree
		stored, err := log.AppendMessage(msg)
		if err != nil {
			return nil, err
		}
		copied = append(copied, stored)
	}
	return m.open(log, ms.workspace, copied, SessionConfig{}), nil
}

// Clone opens a copy of the session's conversation as a child session.
func (m *Manager) Clone(id string) (*ManagedSession, error) {
	ms, err := m.Session(id)
	if err != nil {
		return nil, err
	}
	return m.branch(ms, ms.rt.History())
}

// Fork opens a child session holding the conversation before the user
// message entryID, and returns that message (ErrEntryNotFound when entryID
// is not a user message of the session).
func (m *Manager) Fork(id, entryID string) (*ManagedSession, Message, error) {
	ms, err := m.Session(id)
	if err != nil {
		return nil, Message{}, err
	}
	history := ms.rt.History()
	for i, msg := range history {
		if msg.ID == entryID && msg.Role == RoleUser {
			fork, err := m.branch(ms, history[:i])
			return fork, msg, err
		}
	}
	return nil, Message{}, ErrEntryNotFound
}

// forget closes the session: its turns are cancelled (waiting, bounded,
// for the running one to stop), then it and its turns are forgotten and its
// subscriptions end.
func (m *Manager) forget(id string) (*ManagedSession, error) {
	ms, err := m.Session(id)
	if err != nil {
		return nil, err
	}
	ms.rt.Close()
	ms.log.Close()
	m.mu.Lock()
	delete(m.sessions, id)
	for turnID, t := range m.turns {
		if t.sessionID == id {
			delete(m.turns, turnID)
		}
	}
	m.mu.Unlock()
	ms.hub.close()
	return ms, nil
}

// Close closes the session. Its file is removed only when it holds nothing:
// no message and no name.
func (m *Manager) Close(id string) error {
	ms, err := m.forget(id)
	if err != nil {
		return err
	}
	if len(ms.rt.History()) == 0 && ms.log.Name() == "" {
		_ = m.opts.Store.remove(ms.log.Path())
	}
	return nil
}

// Delete closes the session and removes its file, returning the file's
// path.
func (m *Manager) Delete(id string) (string, error) {
	ms, err := m.forget(id)
	if err != nil {
		return "", err
	}
	if err := m.opts.Store.remove(ms.log.Path()); err != nil {
		return "", err
	}
	return ms.log.Path(), nil
}
