package kward

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/server"
)

// Kward attachment limits (spec: turns/start).
const maxAttachmentBytes = 10 << 20

var kwardImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Service is the Kward projection: it decodes Kward's requests, calls the
// process's agent runtime and encodes the results and the sessions' updates
// in Kward's wire shapes. The sessions, their turns, secrets, memory and
// logins live in the runtime, shared with the other projections.
type Service struct {
	rt *agent.Runtime
	// Shorthands for the runtime's parts.
	env       agent.Env
	mgr       *agent.Manager
	tools     agent.Toolset
	secrets   *agent.Redactor
	memory    *agent.MemoryStore
	telemetry *agent.Telemetry
	catalog   *agent.Catalog
	logins    *agent.Logins
	// loginConns routes auth/loginFinished to the connection that started
	// the login.
	loginConns sync.Map // login id → *server.Conn
	// followers are the sessions each connection follows (notify.go).
	followers sync.Map // *server.Conn → *followed
}

// New returns the Kward projection (specs/kward-rpc.md) over the process's
// agent runtime.
func New(rt *agent.Runtime) *Service {
	k := &Service{
		rt:        rt,
		env:       rt.Env(),
		mgr:       rt.Manager(),
		tools:     rt.Tools(),
		secrets:   rt.Secrets(),
		memory:    rt.Memory(),
		telemetry: rt.Telemetry(),
		catalog:   rt.Catalog(),
		logins:    rt.Logins(),
	}
	// The service serves its entry point for the life of the process, so it
	// never unregisters.
	rt.OnLoginFinished(k.loginFinished)
	return k
}

type okResult struct {
	OK bool `json:"ok"`
}

// Errors.

func sessionNotFound(id string) error {
	return server.Error(jsonrpc2.InvalidParams, "SESSION_NOT_FOUND", fmt.Sprintf("unknown sessionId %q: create or resume a session first", id), map[string]any{"sessionId": id})
}

func turnNotFound(id string) error {
	return server.Error(jsonrpc2.InvalidParams, "TURN_NOT_FOUND", fmt.Sprintf("unknown turnId %q", id), map[string]any{"turnId": id})
}

// stateError is a request that is well formed but that the state of a
// session or of the configuration refuses (a busy session, nothing to
// compact, no provider). Kward answers such errors with -32603 (it keeps
// -32600 for messages that are not JSON-RPC requests and -32602 for bad
// params); data.code tells them apart.
func stateError(code, message string, extra map[string]any) error {
	return server.Error(jsonrpc2.InternalError, code, message, extra)
}

func required(name string) error {
	return server.InvalidParams("missing required param: %s", name)
}

// engineError maps the session manager's errors onto Kward's codes; other
// errors pass through.
func engineError(err error) error {
	var notFound *agent.NotFoundError
	if errors.As(err, &notFound) {
		if notFound.Kind == "turn" {
			return turnNotFound(notFound.ID)
		}
		return sessionNotFound(notFound.ID)
	}
	var badPath *agent.SessionPathError
	if errors.As(err, &badPath) {
		code := "SESSION_PATH_INVALID"
		if badPath.Outside {
			code = "SESSION_PATH_OUTSIDE"
		}
		return server.Error(jsonrpc2.InvalidParams, code, badPath.Error(), map[string]any{"path": badPath.Path})
	}
	var badID *agent.SessionIDError
	if errors.As(err, &badID) {
		return server.Error(jsonrpc2.InvalidParams, "SESSION_FILE_NOT_FOUND", badID.Error(), map[string]any{"persistentId": badID.ID})
	}
	if errors.Is(err, agent.ErrSessionInUse) {
		return stateError("SESSION_IN_USE", err.Error(), nil)
	}
	var ws *agent.WorkspaceError
	if errors.As(err, &ws) {
		code := "WORKSPACE_NOT_FOUND"
		if ws.NotDir {
			code = "WORKSPACE_NOT_A_DIRECTORY"
		}
		return server.Error(jsonrpc2.InvalidParams, code, ws.Error(), map[string]any{"workspaceRoot": ws.Root})
	}
	return err
}

// session returns the open session a request names.
func (k *Service) session(id string) (*agent.ManagedSession, error) {
	if id == "" {
		return nil, required("sessionId")
	}
	return k.mgr.Session(id)
}

// Workspace.

type workspaceParams struct {
	WorkspaceRoot string `json:"workspaceRoot"`
}

func (k *Service) workspaceValidate(ctx context.Context, p workspaceParams) (map[string]any, error) {
	root, err := k.mgr.Workspace(p.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	return map[string]any{"root": root}, nil
}

func (k *Service) workspaceInfo(ctx context.Context, p workspaceParams) (map[string]any, error) {
	root, err := k.mgr.Workspace(p.WorkspaceRoot)
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

// payload is Kward's session object.
func payload(ms *agent.ManagedSession) map[string]any {
	h := ms.Header()
	return map[string]any{
		"id": ms.ID(), "persistentId": h.ID, "path": ms.Path(), "workspaceRoot": ms.Workspace(), "cwd": h.Cwd,
		"name": nilIfEmpty(ms.Name()), "createdAt": h.Timestamp, "modifiedAt": kwardTime(ms.ModifiedAt()),
		"parentId": nilIfEmpty(h.ParentID), "parentPath": nilIfEmpty(h.ParentPath),
	}
}

// opened subscribes the caller's connection to a session it opened and
// returns the session's payload.
func (k *Service) opened(ctx context.Context, ms *agent.ManagedSession, err error) (map[string]any, error) {
	if err != nil {
		return nil, err
	}
	if err := k.follow(ctx, ms.ID()); err != nil {
		return nil, err
	}
	return payload(ms), nil
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
	ms, err := k.mgr.Create(p.WorkspaceRoot, p.Name)
	return k.opened(ctx, ms, err)
}

type resumeParams struct {
	// Path is a session file in kast's sessions folder (relative: in
	// workspaceRoot's folder of it); ID (or its alias persistentId) is the
	// stored session's id, as sessions/list reports it, or an open
	// session's RPC id.
	Path          string `json:"path"`
	ID            string `json:"id"`
	PersistentID  string `json:"persistentId"`
	WorkspaceRoot string `json:"workspaceRoot"`
}

// sessionsResume opens a stored session, or returns it when it is open
// already (one writer per session file).
func (k *Service) sessionsResume(ctx context.Context, p resumeParams) (map[string]any, error) {
	id := firstNonEmptyString(p.ID, p.PersistentID)
	var ms *agent.ManagedSession
	var err error
	switch {
	case id != "":
		// An open session's RPC id names it too.
		if ms, err = k.mgr.Session(id); err != nil {
			ms, err = k.mgr.ResumeID(id, p.WorkspaceRoot)
		}
	case p.Path != "":
		ms, err = k.mgr.Resume(p.Path, p.WorkspaceRoot)
	default:
		return nil, required("path (or persistentId)")
	}
	var missing *fs.PathError
	if errors.As(err, &missing) && errors.Is(err, fs.ErrNotExist) {
		return nil, server.Error(jsonrpc2.InvalidParams, "SESSION_FILE_NOT_FOUND", fmt.Sprintf("no session file at %s", missing.Path), map[string]any{"path": missing.Path})
	}
	return k.opened(ctx, ms, err)
}

type listParams struct {
	WorkspaceRoot string `json:"workspaceRoot"`
	Limit         int    `json:"limit"`
}

func (k *Service) sessionsList(ctx context.Context, p listParams) (map[string]any, error) {
	root, err := k.mgr.Workspace(p.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	if p.Limit <= 0 {
		p.Limit = 20
	}
	summaries, err := k.mgr.List(root, p.Limit)
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
	out := []map[string]any{} // never null: clients iterate it
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
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	name := ""
	if p.Name != nil {
		name = *p.Name
	}
	ms, err := k.mgr.Rename(p.SessionID, name)
	if err != nil {
		return nil, err
	}
	return payload(ms), nil
}

func (k *Service) sessionsClone(ctx context.Context, p sessionParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	clone, err := k.mgr.Clone(p.SessionID)
	return k.opened(ctx, clone, err)
}

func (k *Service) sessionsForkMessages(ctx context.Context, p sessionParams) (map[string]any, error) {
	ms, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	msgs := []map[string]any{}
	for _, m := range ms.History() {
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
	if _, err := k.session(p.SessionID); err != nil {
		return nil, err
	}
	if p.EntryID == "" {
		return nil, required("entryId")
	}
	fork, entry, err := k.mgr.Fork(p.SessionID, p.EntryID)
	if errors.Is(err, agent.ErrEntryNotFound) {
		return nil, server.Error(jsonrpc2.InvalidParams, "ENTRY_NOT_FOUND",
			fmt.Sprintf("entryId %q is not a user message of this session; use sessions/forkMessages", p.EntryID), map[string]any{"entryId": p.EntryID})
	}
	session, err := k.opened(ctx, fork, err)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session": session, "text": typedText(entry), "cancelled": false}, nil
}

func (k *Service) sessionsDelete(ctx context.Context, p sessionParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	path, err := k.mgr.Delete(p.SessionID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"deleted": true, "path": path}, nil
}

func (k *Service) sessionsClose(ctx context.Context, p sessionParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	if err := k.mgr.Close(p.SessionID); err != nil {
		return nil, err
	}
	return map[string]any{"closed": true}, nil
}

func (k *Service) sessionsTranscript(ctx context.Context, p sessionParams) (map[string]any, error) {
	ms, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session": payload(ms), "messages": transcriptMessages(ms.History())}, nil
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
	if _, err := k.session(p.SessionID); err != nil {
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
	// The caller receives the session's notifications from here on, the
	// turn's queued event included.
	if err := k.follow(ctx, p.SessionID); err != nil {
		return kwardTurn{}, err
	}
	turn, err := k.mgr.StartTurn(p.SessionID, agent.TurnRequest{Text: p.Input, Images: imgs,
		ApprovalMode: p.Options.ApprovalMode, Behavior: agent.Behavior(p.StreamingBehavior)})
	if err != nil {
		return kwardTurn{}, err
	}
	return projectTurn(turn.Info()), nil
}

type turnParams struct {
	TurnID        string `json:"turnId"`
	AfterSequence int64  `json:"afterSequence"`
}

func (k *Service) turnsCancel(ctx context.Context, p turnParams) (kwardTurn, error) {
	if p.TurnID == "" {
		return kwardTurn{}, required("turnId")
	}
	info, err := k.mgr.CancelTurn(p.TurnID)
	if err != nil {
		return kwardTurn{}, err
	}
	return projectTurn(info), nil
}

func (k *Service) turnsStatus(ctx context.Context, p turnParams) (kwardTurn, error) {
	if p.TurnID == "" {
		return kwardTurn{}, required("turnId")
	}
	t, err := k.mgr.Turn(p.TurnID)
	if err != nil {
		return kwardTurn{}, err
	}
	return projectTurn(t.Info()), nil
}

func (k *Service) turnsEvents(ctx context.Context, p turnParams) (map[string]any, error) {
	if p.TurnID == "" {
		return nil, required("turnId")
	}
	info, evs, err := k.mgr.TurnEvents(p.TurnID, p.AfterSequence)
	if err != nil {
		return nil, err
	}
	events := []kwardEvent{}
	for _, ev := range evs {
		events = append(events, projectEvent(ev))
	}
	return map[string]any{"turn": projectTurn(info), "events": events}, nil
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
	if _, err := k.session(p.SessionID); err != nil {
		return okResult{}, err
	}
	if p.QuestionRequestID == "" {
		return okResult{}, required("questionRequestId")
	}
	err := k.mgr.Answer(p.SessionID, p.QuestionRequestID, p.Answers)
	if errors.Is(err, agent.ErrQuestionNotPending) {
		return okResult{}, server.Error(jsonrpc2.InvalidParams, "QUESTION_NOT_PENDING",
			fmt.Sprintf("question %q is not pending: it was answered, or its turn ended", p.QuestionRequestID), nil)
	}
	if err != nil {
		return okResult{}, err
	}
	return okResult{OK: true}, nil
}
