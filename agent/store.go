package agent

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// SessionVersion is the session file format version (Kward's store VERSION).
const SessionVersion = 2

// TimeFormat is how session files and protocols write timestamps: ISO-8601
// in UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Header is the first record of a session file.
type Header struct {
	Type            string `json:"type"` // "session"
	Version         int    `json:"version"`
	ID              string `json:"id"`
	Timestamp       string `json:"timestamp"`
	Cwd             string `json:"cwd"`
	Provider        string `json:"provider,omitempty"`
	Model           string `json:"model,omitempty"`
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	ParentID        string `json:"parentId,omitempty"`
	ParentPath      string `json:"parentPath,omitempty"`
}

// Store keeps session files under Dir, one folder per working directory, as
// Kward lays them out.
type Store struct {
	Dir string
	// Redact, when set, replaces the secret values it knows in every line
	// written (patterns are not applied: the user's words stay as typed).
	Redact *Redactor
	// write and sync replace the system calls of session files in tests.
	write writeFunc
	sync  syncFunc
}

// DirFor returns the folder holding the sessions of workspace cwd.
func (st *Store) DirFor(cwd string) string {
	safe := strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(strings.TrimPrefix(cwd, "/"))
	return filepath.Join(st.Dir, "--"+safe+"--")
}

// Create writes a new session file holding only its header. The file is
// created with O_EXCL, 0600, in a 0700 folder, its header synced, and the
// log holds its lock until closed. When the header cannot be written (a
// full disk) no file is left behind.
func (st *Store) Create(h Header) (*SessionLog, error) {
	now := time.Now().UTC()
	h.Type, h.Version = "session", SessionVersion
	if h.ID == "" {
		h.ID = newUUID()
	}
	if h.Timestamp == "" {
		h.Timestamp = now.Format(TimeFormat)
	}
	dir := st.DirFor(h.Cwd)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, writeError(dir, err)
	}
	name := strings.ReplaceAll(now.Format(TimeFormat), ":", "-") + "_" + h.ID + ".jsonl"
	path := filepath.Join(dir, name)
	line, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	f, err := createFile(path, st.write, st.sync, append(line, '\n'))
	if err != nil {
		return nil, err
	}
	_ = tryLock(f) // a file created with O_EXCL has no other holder
	return &SessionLog{path: path, header: h, lock: f, redact: st.Redact, write: st.write, sync: st.sync}, nil
}

// SessionLog appends records to one session file. It never rewrites it.
type SessionLog struct {
	path   string
	mu     sync.Mutex
	header Header
	leaf   string // id of the last tree entry
	name   string
	meta   map[string]json.RawMessage // the latest value of each client key
	// lock holds the file's lock while the log is open (nil for a log
	// opened with Open).
	lock   *os.File
	redact *Redactor
	write  writeFunc
	sync   syncFunc
}

// Close releases the file's lock; the log still appends afterwards, but
// another process may then open the file too.
func (l *SessionLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock == nil {
		return nil
	}
	err := l.lock.Close()
	l.lock = nil
	return err
}

// Path returns the file's absolute path.
func (l *SessionLog) Path() string { return l.path }

// Header returns the file's header record.
func (l *SessionLog) Header() Header { return l.header }

// Name returns the session's current name.
func (l *SessionLog) Name() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.name
}

// AppendMessage appends a message record whose parent is the previous
// entry, and returns the message with its id stamped in.
func (l *SessionLog) AppendMessage(m Message) (Message, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.ID == "" {
		m.ID = NewID()
	}
	var parent *string
	if l.leaf != "" {
		parent = &l.leaf
	}
	rec := struct {
		Type      string  `json:"type"`
		ID        string  `json:"id"`
		ParentID  *string `json:"parentId"`
		Timestamp string  `json:"timestamp"`
		Message   Message `json:"message"`
	}{"message", m.ID, parent, time.Now().UTC().Format(TimeFormat), m}
	if err := l.appendLocked(rec, needsSync(m)); err != nil {
		return m, err
	}
	l.leaf = m.ID
	return m, nil
}

// CompactionDetails are the files a compacted conversation touched.
type CompactionDetails struct {
	ReadFiles     []string `json:"read_files"`
	ModifiedFiles []string `json:"modified_files"`
}

// AppendCompaction appends a compaction record: a tree entry whose message
// is the summary, replacing on load everything before firstKept. The
// summarized records stay in the file.
func (l *SessionLog) AppendCompaction(summary, firstKept string, tokensBefore int, details CompactionDetails) (Message, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := NewID()
	var parent *string
	if l.leaf != "" {
		parent = &l.leaf
	}
	body := compactionBody{Role: RoleCompactionSummary, Summary: summary, FirstKept: firstKept, TokensBefore: tokensBefore, Details: details}
	rec := struct {
		Type      string         `json:"type"`
		ID        string         `json:"id"`
		ParentID  *string        `json:"parentId"`
		Timestamp string         `json:"timestamp"`
		Message   compactionBody `json:"message"`
	}{"compaction", id, parent, time.Now().UTC().Format(TimeFormat), body}
	if err := l.appendLocked(rec, true); err != nil {
		return Message{}, err
	}
	l.leaf = id
	return body.message(id), nil
}

// compactionBody is the message of a compaction record.
type compactionBody struct {
	Role         string            `json:"role"`
	Summary      string            `json:"summary"`
	FirstKept    string            `json:"first_kept_entry_id"`
	TokensBefore int               `json:"tokens_before"`
	FromHook     bool              `json:"from_hook"`
	Details      CompactionDetails `json:"details"`
}

// message is the summary as it sits in the conversation.
func (b compactionBody) message(id string) Message {
	tb, _ := json.Marshal(b.TokensBefore)
	details, _ := json.Marshal(b.Details)
	return Message{ID: id, Role: RoleCompactionSummary, Text: b.Summary,
		Extra: map[string]json.RawMessage{"tokens_before": tb, "details": details}}
}

// SetName appends a session_info record renaming the session ("" clears).
func (l *SessionLog) SetName(name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec := map[string]any{"type": "session_info", "timestamp": time.Now().UTC().Format(TimeFormat), "name": name}
	if err := l.appendLocked(rec, true); err != nil {
		return err
	}
	l.name = name
	return nil
}

// SetMeta appends a meta record: a value a client keeps with the session
// (ACP's mode and "always" answers), the latest per key winning on load.
func (l *SessionLog) SetMeta(key string, value json.RawMessage) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec := map[string]any{"type": "meta", "timestamp": time.Now().UTC().Format(TimeFormat), "key": key, "value": value}
	if err := l.appendLocked(rec, true); err != nil {
		return err
	}
	if l.meta == nil {
		l.meta = map[string]json.RawMessage{}
	}
	l.meta[key] = value
	return nil
}

// Meta returns the latest value of key, or nil.
func (l *SessionLog) Meta(key string) json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.meta[key]
}

// Loaded is a session file read back.
type Loaded struct {
	Path     string
	Header   Header
	Name     string
	Meta     map[string]json.RawMessage // see SessionLog.SetMeta
	Messages []Message                  // the active branch, oldest first
	// Entries counts the tree entries of every branch.
	Entries int
	ModTime time.Time

	// unsaved counts the synthesized tool results ending Messages, which
	// the file does not hold yet (see RepairToolCalls).
	unsaved int
	// cut and addNewline mend a torn last line (see tornTail).
	cut        int64
	addNewline bool
}

// Open loads the session file at path and returns a log that appends to it.
// Being the file's writer, it first mends what a crash left: a torn last
// line is cut off, and the tool calls of the last step that have no result
// get one saying they were interrupted, so a transcript shows what the
// model is told.
func Open(path string) (*SessionLog, *Loaded, error) {
	return openLog(path, nil, nil, nil)
}

func openLog(path string, redact *Redactor, write writeFunc, sync syncFunc) (*SessionLog, *Loaded, error) {
	ld, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	l := &SessionLog{path: ld.Path, header: ld.Header, name: ld.Name, meta: ld.Meta, redact: redact, write: write, sync: sync}
	if err := l.mendTail(ld.cut, ld.addNewline); err != nil {
		return nil, nil, fmt.Errorf("mending the end of the session file: %w", err)
	}
	saved := len(ld.Messages) - ld.unsaved
	if saved > 0 {
		l.leaf = ld.Messages[saved-1].ID
	}
	for i := saved; i < len(ld.Messages); i++ {
		if _, err := l.AppendMessage(ld.Messages[i]); err != nil {
			return nil, nil, fmt.Errorf("recording the interrupted tool calls: %w", err)
		}
	}
	ld.unsaved = 0
	return l, ld, nil
}

type entry struct {
	id, parent string
	msg        Message
	kind       string
	firstKept  string
}

// Load reads a session file leniently: lines that do not parse and record
// types it does not know are skipped, and the active branch is rebuilt by
// walking parentId links back from the leaf. A tool call stored without
// its result (kast stopped while the tool ran) gets an InterruptedResult,
// which Open records.
func Load(path string) (*Loaded, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	ld := &Loaded{Path: path, ModTime: fi.ModTime()}
	entries := map[string]*entry{}
	leaf := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for sc.Scan() {
		var rec struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			ParentID  *string         `json:"parentId"`
			TargetID  *string         `json:"targetId"`
			Name      *string         `json:"name"`
			Summary   string          `json:"summary"`
			Message   json.RawMessage `json:"message"`
			Timestamp string          `json:"timestamp"`
			Key       string          `json:"key"`
			Value     json.RawMessage `json:"value"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		switch rec.Type {
		case "session":
			if json.Unmarshal(sc.Bytes(), &ld.Header) != nil {
				continue
			}
		case "message", "compaction", "branch_summary":
			e := &entry{id: rec.ID, kind: rec.Type}
			if rec.ParentID != nil {
				e.parent = *rec.ParentID
			}
			switch rec.Type {
			case "message":
				if json.Unmarshal(rec.Message, &e.msg) != nil {
					continue
				}
			case "compaction":
				var c compactionBody
				_ = json.Unmarshal(rec.Message, &c)
				e.msg = c.message(rec.ID)
				e.firstKept = c.FirstKept
			case "branch_summary":
				e.msg = Message{Role: "branchSummary", Text: rec.Summary}
			}
			if e.id == "" {
				e.id = NewID()
			}
			e.msg.ID = e.id
			entries[e.id] = e
			ld.Entries++
			leaf = e.id // the newest of a tree entry and a leaf record wins
		case "leaf":
			leaf = ""
			if rec.TargetID != nil {
				leaf = *rec.TargetID
			}
		case "session_info":
			if rec.Name != nil {
				ld.Name = *rec.Name
			}
		case "meta":
			if rec.Key != "" {
				if ld.Meta == nil {
					ld.Meta = map[string]json.RawMessage{}
				}
				ld.Meta[rec.Key] = rec.Value
			}
		}
	}
	if ld.Header.ID == "" {
		ld.Header = headerFromFilename(path)
	}
	ld.Messages, ld.unsaved = repairToolCalls(branch(entries, leaf))
	ld.cut, ld.addNewline = tornTail(data)
	return ld, nil
}

// branch walks from leaf to the root (cycle-safe) and replays the entries:
// messages accumulate, a compaction keeps its summary and what follows its
// first kept entry.
func branch(entries map[string]*entry, leaf string) []Message {
	var path []*entry
	seen := map[string]bool{}
	for id := leaf; id != "" && !seen[id]; {
		e, ok := entries[id]
		if !ok {
			break
		}
		seen[id] = true
		path = append(path, e)
		id = e.parent
	}
	var msgs []Message
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.kind == "compaction" {
			kept := []Message{e.msg}
			for j, m := range msgs {
				if m.ID == e.firstKept {
					kept = append(kept, msgs[j:]...)
					break
				}
			}
			msgs = kept
			continue
		}
		msgs = append(msgs, e.msg)
	}
	return msgs
}

// headerFromFilename recovers a header from <created>_<id>.jsonl.
func headerFromFilename(path string) Header {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	created, id, _ := strings.Cut(base, "_")
	h := Header{Type: "session", Version: SessionVersion, ID: id}
	if date, clock, ok := strings.Cut(created, "T"); ok {
		h.Timestamp = date + "T" + strings.Replace(strings.Replace(clock, "-", ":", 1), "-", ":", 1)
	}
	return h
}

// Summary describes a stored session for listings.
type Summary struct {
	Path         string
	ID           string
	Cwd          string
	CreatedAt    string
	ModifiedAt   time.Time
	Name         string
	FirstMessage string
	MessageCount int
	ParentID     string
	ParentPath   string
}

// Summarize describes a loaded session.
func (ld *Loaded) Summarize() Summary {
	s := Summary{Path: ld.Path, ID: ld.Header.ID, Cwd: ld.Header.Cwd, CreatedAt: ld.Header.Timestamp,
		ModifiedAt: ld.ModTime, Name: ld.Name, ParentID: ld.Header.ParentID, ParentPath: ld.Header.ParentPath}
	for _, m := range ld.Messages {
		switch m.Role {
		case RoleUser, RoleAssistant, RoleTool:
			s.MessageCount++
			if m.Role == RoleUser && s.FirstMessage == "" {
				s.FirstMessage = compact(m.Text, 200)
			}
		}
	}
	return s
}

// List returns the sessions stored for workspace cwd, newest first.
func (st *Store) List(cwd string, limit int) ([]Summary, error) {
	dir := st.DirFor(cwd)
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, de := range names {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		ld, err := Load(filepath.Join(dir, de.Name()))
		if err != nil {
			continue
		}
		out = append(out, ld.Summarize())
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ModifiedAt.After(out[j].ModifiedAt) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// compact collapses whitespace and truncates s to max runes.
func compact(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
