package kward

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/provider"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// Kward attachment limits (spec: turns/start).
const maxAttachmentBytes = 10 << 20

var kwardImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Service is the Kward family's state: the RPC sessions of this process and
// their turns, shared by every connection of the registry.
type Service struct {
	env       agent.Env
	store     *agent.Store
	tools     *tools.Set
	launchDir string
	configDir string

	secrets   *agent.Redactor
	memory    *agent.MemoryStore
	telemetry *agent.Telemetry
	catalog   *agent.Catalog
	logins    *agent.Logins
	// loginConns routes auth/loginFinished to the connection that started
	// the login.
	loginConns sync.Map // login id → *server.Conn
	logCats    atomic.Pointer[[]string]
	// lastRetrieval is the manager-wide latest memory explanation.
	lastRetrieval atomic.Pointer[agent.Retrieval]

	mu       sync.Mutex
	sessions map[string]*kwardSession // by RPC session id
	turns    map[string]*kwardSession // turn id → its session
}

// kwardSession is one RPC session: a runtime session bound to a file.
type kwardSession struct {
	id        string
	rt        *agent.Session
	log       *agent.SessionLog
	workspace string
	// conn receives the session's notifications: the connection that last
	// created, resumed or started a turn in it.
	conn  atomic.Pointer[server.Conn]
	turns sync.Map // turn id → *agent.Turn
	// retrieval is the memory retrieval of the session's latest turn.
	retrieval atomic.Pointer[agent.Retrieval]
	k         *Service
}

// New returns the Kward projection (specs/kward-rpc.md) over the host: the
// agent's code tools answer from the host's indexes.
func New(h *host.Host) *Service {
	cwd, _ := os.Getwd()
	env := agent.Env(os.Getenv)
	data := agent.DataDir(env)
	k := &Service{
		env:       env,
		store:     &agent.Store{Dir: filepath.Join(data, "sessions")},
		tools:     &tools.Set{Code: tools.Index{Host: h}},
		launchDir: cwd,
		configDir: filepath.Dir(agent.ConfigPath(env)),
		secrets:   &agent.Redactor{},
		catalog:   &agent.Catalog{CachePath: filepath.Join(data, "cache", "openrouter_models.json"), TTL: time.Hour},
		sessions:  map[string]*kwardSession{},
		turns:     map[string]*kwardSession{},
	}
	k.memory = &agent.MemoryStore{Dir: filepath.Join(data, "memory"), Redact: k.secrets}
	k.telemetry = &agent.Telemetry{Dir: filepath.Join(data, "logs"), Enabled: k.logCategories}
	k.logins = &agent.Logins{Store: agent.AuthStore{Path: agent.AuthPath(env)}, OnFinish: k.loginFinished}
	k.reload()
	return k
}

type okResult struct {
	OK bool `json:"ok"`
}

// provider resolves the configured provider for each turn, so edits to the
// config file or environment apply without a restart.
func (k *Service) provider() (agent.Provider, error) {
	cfg, err := k.config()
	if err != nil {
		return nil, err
	}
	r, err := cfg.Resolve(k.env, agent.ConfigPath(k.env))
	if err != nil {
		return nil, err
	}
	k.secrets.Add(r.APIKey)
	return provider.New(r, provider.Options{})
}

// config loads the config file with the stored credentials.
func (k *Service) config() (*agent.Config, error) {
	cfg, err := agent.LoadConfig(agent.ConfigPath(k.env))
	if err != nil {
		return nil, err
	}
	creds, err := k.logins.Store.Load()
	if err != nil {
		return nil, err
	}
	cfg.Credentials = map[string]string{}
	for name, c := range creds {
		cfg.Credentials[name] = c.Secret()
	}
	return cfg, nil
}

// Errors.

func sessionNotFound(id string) error {
	return server.Error(jsonrpc2.InvalidParams, "SESSION_NOT_FOUND", fmt.Sprintf("unknown sessionId %q: create or resume a session first", id), map[string]any{"sessionId": id})
}

func turnNotFound(id string) error {
	return server.Error(jsonrpc2.InvalidParams, "TURN_NOT_FOUND", fmt.Sprintf("unknown turnId %q", id), map[string]any{"turnId": id})
}

func required(name string) error {
	return server.InvalidParams("missing required param: %s", name)
}

// Workspace.

type workspaceParams struct {
	WorkspaceRoot string `json:"workspaceRoot"`
}

// workspaceRoot resolves an optional root to a real, existing directory.
func (k *Service) workspaceRoot(root string) (string, error) {
	if root == "" {
		root = k.launchDir
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", server.Error(jsonrpc2.InvalidParams, "WORKSPACE_NOT_FOUND", fmt.Sprintf("workspace %s does not exist", root), map[string]any{"workspaceRoot": root})
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", server.Error(jsonrpc2.InvalidParams, "WORKSPACE_NOT_A_DIRECTORY", fmt.Sprintf("workspace %s is not a directory", root), map[string]any{"workspaceRoot": root})
	}
	return abs, nil
}

func (k *Service) workspaceValidate(ctx context.Context, p workspaceParams) (map[string]any, error) {
	root, err := k.workspaceRoot(p.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	return map[string]any{"root": root}, nil
}

func (k *Service) workspaceInfo(ctx context.Context, p workspaceParams) (map[string]any, error) {
	root, err := k.workspaceRoot(p.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	probe, err := os.CreateTemp(root, ".kast-writable-*")
	writable := err == nil
	if writable {
		probe.Close()
		os.Remove(probe.Name())
	}
	return map[string]any{"root": root, "basename": filepath.Base(root), "writable": writable}, nil
}

// Sessions.

// open starts an RPC session over log with history, bound to the caller's
// connection.
func (k *Service) open(ctx context.Context, log *agent.SessionLog, workspace string, history []agent.Message) *kwardSession {
	ks := &kwardSession{id: agent.NewID(), log: log, workspace: workspace, k: k}
	ks.conn.Store(server.ConnOf(ctx))
	ks.rt = agent.NewSession(agent.SessionOptions{
		ID:           ks.id,
		Workspace:    workspace,
		Log:          log,
		History:      history,
		Provider:     k.provider,
		Tools:        k.tools,
		Sink:         ks.notifyEvent,
		OnQuestion:   ks.notifyQuestion,
		OnApproval:   ks.notifyApproval,
		OnCompaction: ks.notifyCompaction,
		Compaction:   k.compactionPolicy,
		Context:      ks.turnContext,
	})
	k.mu.Lock()
	k.sessions[ks.id] = ks
	k.mu.Unlock()
	return ks
}

func (ks *kwardSession) notify(method string, params any) {
	ks.k.notify(ks.conn.Load(), method, params)
}

// notify sends a redacted notification on conn.
func (k *Service) notify(conn *server.Conn, method string, params any) {
	if conn == nil {
		return
	}
	if err := conn.RPC().Notify(context.Background(), method, k.redactParams(params)); err != nil {
		conn.Logger().Debug("kward notification not delivered", "method", method, "err", err)
	}
}

// notifyEvent projects ev; a completed turn's memories are summarized
// before its terminal event goes out, so clients see them once it has.
func (ks *kwardSession) notifyEvent(ev agent.Event) {
	ks.k.telemetry.Observe(ev)
	if ev.Kind == agent.EventFinished && ev.Status == agent.StatusCompleted {
		ks.k.autoSummarize(ks)
	}
	ks.notify("turn/event", projectEvent(ev))
}

func (ks *kwardSession) notifyQuestion(q agent.QuestionRequest) {
	ks.notify("ui/question", map[string]any{"sessionId": ks.id, "questionRequestId": q.ID, "questions": q.Questions})
}

func (k *Service) session(id string) (*kwardSession, error) {
	if id == "" {
		return nil, required("sessionId")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	ks, ok := k.sessions[id]
	if !ok {
		return nil, sessionNotFound(id)
	}
	return ks, nil
}

// payload is Kward's session object.
func (ks *kwardSession) payload() map[string]any {
	h := ks.log.Header()
	created, _ := time.Parse(agent.TimeFormat, h.Timestamp)
	modified := created
	if fi, err := os.Stat(ks.log.Path()); err == nil {
		modified = fi.ModTime()
	}
	p := map[string]any{
		"id": ks.id, "persistentId": h.ID, "path": ks.log.Path(), "workspaceRoot": ks.workspace, "cwd": h.Cwd,
		"name": nilIfEmpty(ks.log.Name()), "createdAt": h.Timestamp, "modifiedAt": kwardTime(modified),
		"parentId": nilIfEmpty(h.ParentID), "parentPath": nilIfEmpty(h.ParentPath),
	}
	return p
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type createParams struct {
	WorkspaceRoot string `json:"workspaceRoot"`
	Name          string `json:"name"`
}

func (k *Service) sessionsCreate(ctx context.Context, p createParams) (map[string]any, error) {
	root, err := k.workspaceRoot(p.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	log, err := k.store.Create(k.header(root))
	if err != nil {
		return nil, fmt.Errorf("creating the session file: %w", err)
	}
	if p.Name != "" {
		if err := log.SetName(p.Name); err != nil {
			return nil, err
		}
	}
	return k.open(ctx, log, root, nil).payload(), nil
}

// header starts a session file header, naming the configured provider when
// there is one.
func (k *Service) header(cwd string) agent.Header {
	h := agent.Header{Cwd: cwd}
	if p, err := k.provider(); err == nil {
		h.Provider, h.Model = p.Info().Name, p.Info().Model
	}
	return h
}

type resumeParams struct {
	Path          string `json:"path"`
	WorkspaceRoot string `json:"workspaceRoot"`
}

func (k *Service) sessionsResume(ctx context.Context, p resumeParams) (map[string]any, error) {
	if p.Path == "" {
		return nil, required("path")
	}
	path := p.Path
	if !filepath.IsAbs(path) {
		root, err := k.workspaceRoot(p.WorkspaceRoot)
		if err != nil {
			return nil, err
		}
		path = filepath.Join(root, path)
	}
	log, ld, err := agent.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, server.Error(jsonrpc2.InvalidParams, "SESSION_FILE_NOT_FOUND", fmt.Sprintf("no session file at %s", path), map[string]any{"path": path})
	}
	if err != nil {
		return nil, err
	}
	root := ld.Header.Cwd
	if p.WorkspaceRoot != "" || root == "" {
		if root, err = k.workspaceRoot(p.WorkspaceRoot); err != nil {
			return nil, err
		}
	}
	return k.open(ctx, log, root, ld.Messages).payload(), nil
}

type listParams struct {
	WorkspaceRoot string `json:"workspaceRoot"`
	Limit         int    `json:"limit"`
}

func (k *Service) sessionsList(ctx context.Context, p listParams) (map[string]any, error) {
	root, err := k.workspaceRoot(p.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	if p.Limit <= 0 {
		p.Limit = 20
	}
	// Listing never deletes anything: a UI listing sessions while another
	// starts its first turn must not lose that session's file.
	summaries, err := k.store.List(root, p.Limit)
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessions": sessionTree(summaries, root)}, nil
}

// sessionTree orders summaries depth-first under their parents (newest
// first among siblings) and adds Kward's tree display fields.
func sessionTree(summaries []agent.Summary, root string) []map[string]any {
	byPath := map[string]bool{}
	for _, s := range summaries {
		byPath[s.Path] = true
	}
	children := map[string][]agent.Summary{}
	for _, s := range summaries {
		parent := s.ParentPath
		if !byPath[parent] {
			parent = ""
		}
		children[parent] = append(children[parent], s)
	}
	var out []map[string]any
	var walk func(parent string, depth int, continues []bool)
	walk = func(parent string, depth int, continues []bool) {
		kids := children[parent]
		for i, s := range kids {
			last := i == len(kids)-1
			out = append(out, map[string]any{
				"id": s.ID, "path": s.Path, "cwd": s.Cwd, "workspaceRoot": root, "createdAt": s.CreatedAt,
				"modifiedAt": kwardTime(s.ModifiedAt), "name": nilIfEmpty(s.Name), "firstMessage": s.FirstMessage,
				"messageCount": s.MessageCount, "parentId": nilIfEmpty(s.ParentID), "parentPath": nilIfEmpty(s.ParentPath),
				"depth": depth, "isLast": last, "ancestorContinues": append([]bool{}, continues...),
			})
			walk(s.Path, depth+1, append(continues, !last))
		}
	}
	walk("", 0, []bool{})
	return out
}

type sessionParams struct {
	SessionID string `json:"sessionId"`
}

type renameParams struct {
	SessionID string  `json:"sessionId"`
	Name      *string `json:"name"`
}

func (k *Service) sessionsRename(ctx context.Context, p renameParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	name := ""
	if p.Name != nil {
		name = strings.TrimSpace(*p.Name)
	}
	if err := ks.log.SetName(name); err != nil {
		return nil, err
	}
	return ks.payload(), nil
}

// branch creates a new session file whose header points at ks and holds
// history, and opens it as a new RPC session.
func (k *Service) branch(ctx context.Context, ks *kwardSession, history []agent.Message) (*kwardSession, error) {
	src := ks.log.Header()
	h := agent.Header{Cwd: src.Cwd, Provider: src.Provider, Model: src.Model, ParentID: src.ID, ParentPath: ks.log.Path()}
	log, err := k.store.Create(h)
	if err != nil {
		return nil, err
	}
	var copied []agent.Message
	for _, m := range history {
		m.ID = "" // fresh entry ids: the copy is its own tree
		stored, err := log.AppendMessage(m)
		if err != nil {
			return nil, err
		}
		copied = append(copied, stored)
	}
	return k.open(ctx, log, ks.workspace, copied), nil
}

func (k *Service) sessionsClone(ctx context.Context, p sessionParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	clone, err := k.branch(ctx, ks, ks.rt.History())
	if err != nil {
		return nil, err
	}
	return clone.payload(), nil
}

func (k *Service) sessionsForkMessages(ctx context.Context, p sessionParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	msgs := []map[string]any{}
	for _, m := range ks.rt.History() {
		if m.Role == agent.RoleUser {
			msgs = append(msgs, map[string]any{"entryId": m.ID, "text": compactText(typedText(m))})
		}
	}
	return map[string]any{"messages": msgs}, nil
}

type forkParams struct {
	SessionID string `json:"sessionId"`
	EntryID   string `json:"entryId"`
}

func (k *Service) sessionsFork(ctx context.Context, p forkParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.EntryID == "" {
		return nil, required("entryId")
	}
	history := ks.rt.History()
	for i, m := range history {
		if m.ID == p.EntryID && m.Role == agent.RoleUser {
			fork, err := k.branch(ctx, ks, history[:i])
			if err != nil {
				return nil, err
			}
			return map[string]any{"session": fork.payload(), "text": typedText(m), "cancelled": false}, nil
		}
	}
	return nil, server.Error(jsonrpc2.InvalidParams, "ENTRY_NOT_FOUND",
		fmt.Sprintf("entryId %q is not a user message of this session; use sessions/forkMessages", p.EntryID), map[string]any{"entryId": p.EntryID})
}

// closeSession cancels the session's turns and forgets it.
func (k *Service) closeSession(ks *kwardSession) {
	ks.rt.Close()
	k.mu.Lock()
	delete(k.sessions, ks.id)
	for id, s := range k.turns {
		if s == ks {
			delete(k.turns, id)
		}
	}
	k.mu.Unlock()
}

func (k *Service) sessionsDelete(ctx context.Context, p sessionParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	k.closeSession(ks)
	if err := os.Remove(ks.log.Path()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return map[string]any{"deleted": true, "path": ks.log.Path()}, nil
}

func (k *Service) sessionsClose(ctx context.Context, p sessionParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	k.closeSession(ks)
	// Only this session's own file, now closed, may be cleaned up, and only
	// when it holds nothing.
	if len(ks.rt.History()) == 0 && ks.log.Name() == "" {
		os.Remove(ks.log.Path())
	}
	return map[string]any{"closed": true}, nil
}

func (k *Service) sessionsTranscript(ctx context.Context, p sessionParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session": ks.payload(), "messages": transcriptMessages(ks.rt.History())}, nil
}

// typedText is what the user typed: the slash command rather than its
// expansion.
func typedText(m agent.Message) string {
	var display string
	if json.Unmarshal(m.Extra["display_content"], &display) == nil && display != "" {
		return display
	}
	return m.Text
}

// compactText is display text: whitespace collapsed, at most 200 runes.
func compactText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}

// Turns.

type attachment struct {
	Type      string `json:"type"`
	Data      string `json:"data"`
	MimeType  string `json:"mimeType"`
	Name      string `json:"name"`
	SizeBytes int64  `json:"sizeBytes"`
}

type startParams struct {
	SessionID         string       `json:"sessionId"`
	Input             string       `json:"input"`
	StreamingBehavior string       `json:"streamingBehavior"`
	Attachments       []attachment `json:"attachments"`
	Options           struct {
		ApprovalMode string `json:"approvalMode"`
	} `json:"options"`
}

// images validates attachments: images only, four MIME types, raw base64
// (no data: prefix), at most 10 MB declared and decoded.
func images(atts []attachment) ([]agent.Image, error) {
	var out []agent.Image
	for i, a := range atts {
		if a.Type != "image" {
			return nil, server.InvalidParams("attachments[%d]: unsupported type %q; only image is accepted", i, a.Type)
		}
		if !contains(kwardImageTypes, a.MimeType) {
			return nil, server.InvalidParams("attachments[%d]: unsupported mimeType %q; want one of %s", i, a.MimeType, strings.Join(kwardImageTypes, ", "))
		}
		if strings.HasPrefix(a.Data, "data:") {
			return nil, server.InvalidParams("attachments[%d]: data must be raw base64 without a data: prefix", i)
		}
		if a.SizeBytes > maxAttachmentBytes || base64.StdEncoding.DecodedLen(len(a.Data)) > maxAttachmentBytes+2 {
			return nil, server.InvalidParams("attachments[%d]: image exceeds %d bytes", i, maxAttachmentBytes)
		}
		decoded, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil || len(decoded) == 0 {
			return nil, server.InvalidParams("attachments[%d]: data is not valid base64", i)
		}
		if len(decoded) > maxAttachmentBytes {
			return nil, server.InvalidParams("attachments[%d]: image exceeds %d bytes", i, maxAttachmentBytes)
		}
		out = append(out, agent.Image{Data: a.Data, MimeType: a.MimeType, Alt: a.Name})
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (k *Service) turnsStart(ctx context.Context, p startParams) (kwardTurn, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return kwardTurn{}, err
	}
	imgs, err := images(p.Attachments)
	if err != nil {
		return kwardTurn{}, err
	}
	switch p.Options.ApprovalMode {
	case "", "none", agent.ApprovalAsk:
	default:
		return kwardTurn{}, server.InvalidParams("unsupported options.approvalMode %q; want none or ask", p.Options.ApprovalMode)
	}
	if conn := server.ConnOf(ctx); conn != nil {
		ks.conn.Store(conn)
	}
	in := k.expandInput(ks, p.Input)
	in.Images, in.ApprovalMode = imgs, p.Options.ApprovalMode
	turn, err := ks.rt.Start(in, agent.Behavior(p.StreamingBehavior))
	var inputErr *agent.InputError
	if errors.As(err, &inputErr) {
		return kwardTurn{}, server.InvalidParams("%s", inputErr.Message)
	}
	if err != nil {
		return kwardTurn{}, err
	}
	ks.turns.Store(turn.ID(), turn)
	k.mu.Lock()
	k.turns[turn.ID()] = ks
	k.mu.Unlock()
	return projectTurn(turn.Info()), nil
}

type turnParams struct {
	TurnID        string `json:"turnId"`
	AfterSequence int64  `json:"afterSequence"`
}

func (k *Service) turn(id string) (*kwardSession, *agent.Turn, error) {
	if id == "" {
		return nil, nil, required("turnId")
	}
	k.mu.Lock()
	ks, ok := k.turns[id]
	k.mu.Unlock()
	if !ok {
		return nil, nil, turnNotFound(id)
	}
	t, ok := ks.turns.Load(id)
	if !ok {
		return nil, nil, turnNotFound(id)
	}
	return ks, t.(*agent.Turn), nil
}

func (k *Service) turnsCancel(ctx context.Context, p turnParams) (kwardTurn, error) {
	ks, t, err := k.turn(p.TurnID)
	if err != nil {
		return kwardTurn{}, err
	}
	return projectTurn(ks.rt.Cancel(t)), nil
}

func (k *Service) turnsStatus(ctx context.Context, p turnParams) (kwardTurn, error) {
	_, t, err := k.turn(p.TurnID)
	if err != nil {
		return kwardTurn{}, err
	}
	return projectTurn(t.Info()), nil
}

func (k *Service) turnsEvents(ctx context.Context, p turnParams) (map[string]any, error) {
	_, t, err := k.turn(p.TurnID)
	if err != nil {
		return nil, err
	}
	events := []kwardEvent{}
	for _, ev := range t.Events(p.AfterSequence) {
		events = append(events, projectEvent(ev))
	}
	return map[string]any{"turn": projectTurn(t.Info()), "events": events}, nil
}

// Tools, runtime, questions.

func (k *Service) toolsList(ctx context.Context, _ struct{}) (map[string]any, error) {
	list := []map[string]any{}
	for _, s := range k.tools.Specs() {
		list = append(list, map[string]any{
			"type":     "function",
			"function": map[string]any{"name": s.Name, "description": s.Description, "parameters": s.Parameters},
			"metadata": map[string]any{"source": "builtin", "displayName": tools.NormalizedName(s.Name)},
		})
	}
	return map[string]any{"tools": list}, nil
}

type answerParams struct {
	SessionID         string         `json:"sessionId"`
	QuestionRequestID string         `json:"questionRequestId"`
	Answers           []agent.Answer `json:"answers"`
}

func (k *Service) answerQuestion(ctx context.Context, p answerParams) (okResult, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return okResult{}, err
	}
	if p.QuestionRequestID == "" {
		return okResult{}, required("questionRequestId")
	}
	if !ks.rt.Answer(p.QuestionRequestID, p.Answers) {
		return okResult{}, server.Error(jsonrpc2.InvalidParams, "QUESTION_NOT_PENDING",
			fmt.Sprintf("question %q is not pending: it was answered, or its turn ended", p.QuestionRequestID), nil)
	}
	return okResult{OK: true}, nil
}
