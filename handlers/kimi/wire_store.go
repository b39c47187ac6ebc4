package kimi

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/kast-dev/kast/agent"
)

// wireStore keeps a wire session as kimi-cli does, under kast's data
// folder: kimi/sessions/<md5(work dir)>/<id>/ holds context.jsonl (the
// conversation), wire.jsonl (a metadata line, then every event and request
// sent, timestamped) and state.json (written atomically). The engine's own
// session file, named in state.json, holds the history a resume restores.
type wireStore struct {
	dir string

	mu       sync.Mutex
	state    wireState
	stateRaw map[string]json.RawMessage // state.json as read
	wire     *os.File
	ctx      *os.File
	// syncFile makes a file durable (nil: the system's sync); tests watch it.
	syncFile func(*os.File) error
}

// durableEvents are the events after which both files are synced: a turn's
// start and end, and each tool's result. Their conversation records are
// written just before them, so they are made durable too.
var durableEvents = map[string]bool{"TurnBegin": true, "ToolResult": true, "TurnEnd": true}

// wireState is what kast reads and writes of state.json; the fields it
// does not know (kimi-cli's approval, additional_dirs…) are kept as they
// are (wireStore.stateRaw).
type wireState struct {
	Title       string     `json:"title"`
	PlanMode    bool       `json:"plan_mode"`
	KastSession string     `json:"kast_session,omitempty"`
	Todos       []todoItem `json:"todos"`
}

type wireRecord struct {
	Timestamp float64         `json:"timestamp"`
	Message   json.RawMessage `json:"message"`
}

// openWireStore opens the session id of the work folder, its latest with
// cont, or a new one.
func openWireStore(dataDir, workspace, id string, cont bool) (*wireStore, error) {
	sum := md5.Sum([]byte(workspace))
	base := filepath.Join(dataDir, "kimi", "sessions", hex.EncodeToString(sum[:]))
	if id == "" && cont {
		id = latest(base)
	}
	if id == "" {
		id = agent.NewID()
	}
	if filepath.Base(id) != id || id == "." || id == ".." {
		return nil, os.ErrInvalid
	}
	s := &wireStore{dir: filepath.Join(base, id)}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	if raw, err := os.ReadFile(filepath.Join(s.dir, "state.json")); err == nil {
		_ = json.Unmarshal(raw, &s.state)
		_ = json.Unmarshal(raw, &s.stateRaw)
	}
	var err error
	wirePath := filepath.Join(s.dir, "wire.jsonl")
	_, statErr := os.Stat(wirePath)
	if s.wire, err = os.OpenFile(wirePath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
		return nil, err
	}
	if os.IsNotExist(statErr) {
		_, _ = s.wire.WriteString(`{"type":"metadata","protocol_version":"` + ProtocolVersion + `"}` + "\n")
	}
	if s.ctx, err = os.OpenFile(filepath.Join(s.dir, "context.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
		s.wire.Close()
		return nil, err
	}
	return s, s.saveState()
}

// latest is the most recently changed session folder under base.
func latest(base string) string {
	entries, _ := os.ReadDir(base)
	sort.Slice(entries, func(i, j int) bool {
		a, _ := entries[i].Info()
		b, _ := entries[j].Info()
		return a != nil && b != nil && a.ModTime().After(b.ModTime())
	})
	for _, e := range entries {
		if e.IsDir() {
			return e.Name()
		}
	}
	return ""
}

// saveState writes state.json atomically: a temporary file, synced, then
// renamed over it.
func (s *wireStore) saveState() error {
	if s.state.Todos == nil {
		s.state.Todos = []todoItem{} // kimi-cli reads a list, never null
	}
	known, _ := json.Marshal(s.state)
	merged := map[string]json.RawMessage{}
	for k, v := range s.stateRaw {
		merged[k] = v
	}
	_ = json.Unmarshal(known, &merged)
	raw, _ := json.MarshalIndent(merged, "", "  ")
	tmp, err := os.CreateTemp(s.dir, ".state-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(s.dir, "state.json"))
}

func (s *wireStore) setKastSession(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.KastSession = path
	return s.saveState()
}

func (s *wireStore) setPlanMode(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.PlanMode = on
	_ = s.saveState()
}

func (s *wireStore) setTodos(items []todoItem) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Todos = items
	return s.saveState()
}

func (s *wireStore) todos() []todoItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]todoItem(nil), s.state.Todos...)
}

// record appends a sent event or request to wire.jsonl, and syncs the
// files after a durable event.
func (s *wireStore) record(msg wireMessage) {
	raw, err := json.Marshal(msg)
	if err != nil {
		return
	}
	line, _ := json.Marshal(wireRecord{Timestamp: float64(time.Now().UnixNano()) / 1e9, Message: raw})
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.wire.Write(append(line, '\n'))
	if durableEvents[msg.Type] {
		s.syncLocked()
	}
}

// context appends a conversation record to context.jsonl.
func (s *wireStore) context(rec map[string]any) {
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.ctx.Write(append(line, '\n'))
}

// sync makes the turn's records durable at its end.
func (s *wireStore) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncLocked()
}

func (s *wireStore) syncLocked() {
	sync := s.syncFile
	if sync == nil {
		sync = (*os.File).Sync
	}
	_ = sync(s.wire)
	_ = sync(s.ctx)
}

func (s *wireStore) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.wire.Close()
	_ = s.ctx.Close()
}

// requestTypes are the recorded messages that were requests.
var requestTypes = map[string]bool{"ApprovalRequest": true, "QuestionRequest": true, "ToolCallRequest": true, "HookRequest": true}

// eventTypes are the event types of protocol 1.10 (ApprovalRequestResolved
// is ApprovalResponse's name before 1.1). Replay skips any other type, as
// kimi-cli skips records it cannot read: a newer writer's, say.
var eventTypes = map[string]bool{"TurnBegin": true, "TurnEnd": true, "SteerInput": true, "StepBegin": true,
	"StepInterrupted": true, "StepRetry": true, "CompactionBegin": true, "CompactionEnd": true, "MCPLoadingBegin": true,
	"MCPLoadingEnd": true, "StatusUpdate": true, "Notification": true, "ContentPart": true, "ToolCall": true,
	"ToolCallPart": true, "ToolResult": true, "ApprovalResponse": true, "ApprovalRequestResolved": true,
	"SubagentEvent": true, "PlanDisplay": true, "BtwBegin": true, "BtwEnd": true, "HookTriggered": true, "HookResolved": true}

// replay sends every recorded event, and every request whose resolution
// was recorded (an approval nobody answered is not resurrected) with its
// id, the payload's, as kimi-cli sends its requests live and in replay.
// Lines that do not parse, the metadata line, records of unknown types and
// requests without an id are skipped.
func (s *wireStore) replay(send func(msg wireMessage, requestID string)) (events, requests int, err error) {
	f, err := os.Open(filepath.Join(s.dir, "wire.jsonl"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var msgs []wireMessage
	resolved := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 100<<20)
	for sc.Scan() {
		var rec wireRecord
		var msg struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Message == nil || json.Unmarshal(rec.Message, &msg) != nil ||
			!eventTypes[msg.Type] && !requestTypes[msg.Type] {
			continue
		}
		var p map[string]any
		_ = json.Unmarshal(msg.Payload, &p)
		if msg.Type == "ApprovalResponse" || msg.Type == "ApprovalRequestResolved" {
			resolved[str(p, "request_id")] = true
		}
		msgs = append(msgs, wireMessage{Type: msg.Type, Payload: p})
	}
	for _, m := range msgs {
		if requestTypes[m.Type] {
			p, _ := m.Payload.(map[string]any)
			id := str(p, "id")
			if id == "" || m.Type == "ApprovalRequest" && !resolved[id] {
				continue
			}
			send(m, id)
			requests++
			continue
		}
		send(m, "")
		events++
	}
	return events, requests, sc.Err()
}
