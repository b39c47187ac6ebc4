package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Memory limits, as Kward applies them.
const (
	maxMemoryTags      = 10
	maxRetrievedCore   = 6
	maxRetrievedSoft   = 6
	softTTLDays        = 60
	manualConfidence   = 0.65
	inferredConfidence = 0.55
)

// CoreMemory is an explicit, pinned memory (core.json).
type CoreMemory struct {
	ID        string   `json:"id"`
	Text      string   `json:"text"`
	Scope     string   `json:"scope"`
	Tags      []string `json:"tags"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
	Source    string   `json:"source"` // explicit_user_instruction, promoted_soft_memory
	Pinned    bool     `json:"pinned"`
}

// SoftMemory is a weaker memory that expires (soft.jsonl).
type SoftMemory struct {
	ID         string   `json:"id"`
	Text       string   `json:"text"`
	Scope      string   `json:"scope"`
	Tags       []string `json:"tags"`
	Confidence float64  `json:"confidence"`
	Hits       int      `json:"hits"`
	CreatedAt  string   `json:"created_at"`
	UpdatedAt  string   `json:"updated_at"`
	LastSeenAt string   `json:"last_seen_at"`
	TTLDays    int      `json:"ttl_days"`
	Source     string   `json:"source"` // manual, inferred
	Status     string   `json:"status"` // active, forgotten
}

// MemoryStore keeps memories in Dir: core.json (a JSON array), soft.jsonl and
// events.jsonl (which records ids, never memory text), all 0600.
type MemoryStore struct {
	Dir string
	// Redact scrubs secrets from memory text before it is stored.
	Redact *Redactor

	mu sync.Mutex
}

// MemoryPaths are the store's files.
type MemoryPaths struct {
	Core   string `json:"core"`
	Soft   string `json:"soft"`
	Events string `json:"events"`
}

// Paths returns the store's files.
func (m *MemoryStore) Paths() MemoryPaths {
	return MemoryPaths{filepath.Join(m.Dir, "core.json"), filepath.Join(m.Dir, "soft.jsonl"), filepath.Join(m.Dir, "events.jsonl")}
}

// Ensure creates missing storage files.
func (m *MemoryStore) Ensure() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ensure()
}

func (m *MemoryStore) ensure() error {
	if err := os.MkdirAll(m.Dir, 0o700); err != nil {
		return err
	}
	p := m.Paths()
	for path, empty := range map[string]string{p.Core: "[]\n", p.Soft: "", p.Events: ""} {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = f.WriteString(empty)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Event appends a record to events.jsonl.
func (m *MemoryStore) Event(kind string, fields map[string]any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.event(kind, fields)
}

func (m *MemoryStore) event(kind string, fields map[string]any) error {
	if err := m.ensure(); err != nil {
		return err
	}
	rec := map[string]any{"type": kind, "timestamp": now()}
	for k, v := range fields {
		rec[k] = v
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(m.Paths().Events, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// List returns core memories and soft memories (forgotten ones too when
// inactive is set).
func (m *MemoryStore) List(inactive bool) ([]CoreMemory, []SoftMemory, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	core, err := m.readCore()
	if err != nil {
		return nil, nil, err
	}
	soft, err := m.readSoft()
	if err != nil {
		return nil, nil, err
	}
	if !inactive {
		active := soft[:0]
		for _, s := range soft {
			if s.Status == "active" {
				active = append(active, s)
			}
		}
		soft = active
	}
	return core, soft, nil
}

// MemoryInput is a memory to add.
type MemoryInput struct {
	Text  string
	Scope string // global (default) or workspace:<absolute path>
	Tags  []string
}

func (m *MemoryStore) clean(in MemoryInput) (MemoryInput, error) {
	in.Text = m.Redact.String(strings.Join(strings.Fields(in.Text), " "))
	if in.Text == "" {
		return in, &InputError{"memory text is empty"}
	}
	if in.Scope == "" {
		in.Scope = "global"
	}
	if in.Scope != "global" {
		root, ok := strings.CutPrefix(in.Scope, "workspace:")
		if !ok || !filepath.IsAbs(root) {
			return in, &InputError{fmt.Sprintf("invalid scope %q: want global or workspace:<absolute path>", in.Scope)}
		}
		in.Scope = "workspace:" + filepath.Clean(root)
	}
	if len(in.Tags) > maxMemoryTags {
		return in, &InputError{fmt.Sprintf("at most %d tags, not %d", maxMemoryTags, len(in.Tags))}
	}
	tags := []string{}
	for _, t := range in.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, m.Redact.String(t))
		}
	}
	in.Tags = tags
	return in, nil
}

// AddCore stores an explicit core memory.
func (m *MemoryStore) AddCore(in MemoryInput) (CoreMemory, error) {
	in, err := m.clean(in)
	if err != nil {
		return CoreMemory{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addCore(in, "explicit_user_instruction")
}

func (m *MemoryStore) addCore(in MemoryInput, source string) (CoreMemory, error) {
	core, err := m.readCore()
	if err != nil {
		return CoreMemory{}, err
	}
	ids := make([]string, len(core))
	for i, c := range core {
		ids[i] = c.ID
	}
	t := now()
	c := CoreMemory{ID: nextID("core", ids), Text: in.Text, Scope: in.Scope, Tags: in.Tags, CreatedAt: t, UpdatedAt: t, Source: source, Pinned: true}
	if err := m.writeCore(append(core, c)); err != nil {
		return CoreMemory{}, err
	}
	return c, m.event("add", map[string]any{"id": c.ID, "layer": "core", "scope": c.Scope, "tags": c.Tags})
}

// AddSoft stores a soft memory; inferred ones get a lower confidence and
// are not stored twice.
func (m *MemoryStore) AddSoft(in MemoryInput, inferred bool) (SoftMemory, error) {
	in, err := m.clean(in)
	if err != nil {
		return SoftMemory{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	soft, err := m.readSoft()
	if err != nil {
		return SoftMemory{}, err
	}
	ids := make([]string, len(soft))
	for i, s := range soft {
		ids[i] = s.ID
		// Inference sees the same statement again on every summary.
		if inferred && s.Status == "active" && s.Text == in.Text && s.Scope == in.Scope {
			return s, nil
		}
	}
	t := now()
	s := SoftMemory{ID: nextID("soft", ids), Text: in.Text, Scope: in.Scope, Tags: in.Tags, Confidence: manualConfidence,
		CreatedAt: t, UpdatedAt: t, LastSeenAt: t, TTLDays: softTTLDays, Source: "manual", Status: "active"}
	if inferred {
		s.Confidence, s.Source = inferredConfidence, "inferred"
	}
	if err := m.writeSoft(append(soft, s)); err != nil {
		return SoftMemory{}, err
	}
	return s, m.event("add", map[string]any{"id": s.ID, "layer": "soft", "scope": s.Scope, "tags": s.Tags})
}

// Forget removes a core memory, or marks a soft memory forgotten and
// redacts its text, tags, confidence and hits. It reports whether id existed.
func (m *MemoryStore) Forget(id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.forget(id)
}

func (m *MemoryStore) forget(id string) (bool, error) {
	switch {
	case strings.HasPrefix(id, "core_"):
		core, err := m.readCore()
		if err != nil {
			return false, err
		}
		for i, c := range core {
			if c.ID == id {
				if err := m.writeCore(append(core[:i:i], core[i+1:]...)); err != nil {
					return false, err
				}
				return true, m.event("forget", map[string]any{"id": id, "layer": "core"})
			}
		}
	case strings.HasPrefix(id, "soft_"):
		soft, err := m.readSoft()
		if err != nil {
			return false, err
		}
		for i, s := range soft {
			if s.ID == id && s.Status == "active" {
				soft[i].Status, soft[i].Text, soft[i].Tags = "forgotten", Redacted, []string{}
				soft[i].Confidence, soft[i].Hits, soft[i].UpdatedAt = 0, 0, now()
				if err := m.writeSoft(soft); err != nil {
					return false, err
				}
				return true, m.event("forget", map[string]any{"id": id, "layer": "soft"})
			}
		}
	}
	return false, nil
}

// Promote turns an active soft memory into a new core memory and forgets
// the soft one.
func (m *MemoryStore) Promote(id string) (CoreMemory, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	soft, err := m.readSoft()
	if err != nil {
		return CoreMemory{}, err
	}
	for _, s := range soft {
		if s.ID == id && s.Status == "active" {
			c, err := m.addCore(MemoryInput{Text: s.Text, Scope: s.Scope, Tags: s.Tags}, "promoted_soft_memory")
			if err != nil {
				return CoreMemory{}, err
			}
			if _, err := m.forget(id); err != nil {
				return CoreMemory{}, err
			}
			return c, m.event("promote", map[string]any{"from_id": id, "to_id": c.ID})
		}
	}
	return CoreMemory{}, &InputError{fmt.Sprintf("no active soft memory %q", id)}
}

// Retrieval is what was injected into a turn, and why.
type Retrieval struct {
	Scopes  []string          `json:"scopes"`
	Core    []CoreMemory      `json:"core"`
	Soft    []SoftMemory      `json:"soft"`
	Reasons []RetrievalReason `json:"reasons"`
}

// RetrievalReason explains one retrieved memory.
type RetrievalReason struct {
	ID      string   `json:"id"`
	Layer   string   `json:"layer"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
}

var termRE = regexp.MustCompile(`[a-z0-9_-]{3,}`)

// Retrieve picks the memories relevant to query in the global scope and the
// workspace's: up to six core memories, then up to six unexpired soft
// memories ranked by confidence, term overlap and tag overlap.
func (m *MemoryStore) Retrieve(query, workspace string) (Retrieval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	scopes := []string{"global", "workspace:" + filepath.Clean(workspace)}
	r := Retrieval{Scopes: scopes, Core: []CoreMemory{}, Soft: []SoftMemory{}, Reasons: []RetrievalReason{}}
	core, err := m.readCore()
	if err != nil {
		return r, err
	}
	soft, err := m.readSoft()
	if err != nil {
		return r, err
	}
	for _, c := range core {
		if containsString(scopes, c.Scope) && len(r.Core) < maxRetrievedCore {
			r.Core = append(r.Core, c)
			r.Reasons = append(r.Reasons, RetrievalReason{ID: c.ID, Layer: "core", Score: 1, Reasons: []string{"core memory in scope " + c.Scope}})
		}
	}
	terms := map[string]bool{}
	for _, t := range termRE.FindAllString(strings.ToLower(query), -1) {
		terms[t] = true
	}
	type scored struct {
		i      int
		score  float64
		reason []string
	}
	var ranked []scored
	nowT := time.Now().UTC()
	for i, s := range soft {
		if s.Status != "active" || !containsString(scopes, s.Scope) {
			continue
		}
		if seen, err := time.Parse(TimeFormat, s.LastSeenAt); err == nil && nowT.After(seen.AddDate(0, 0, s.TTLDays)) {
			continue
		}
		sc := scored{i: i, score: s.Confidence, reason: []string{fmt.Sprintf("confidence %.2f", s.Confidence)}}
		overlap := 0
		for _, t := range termRE.FindAllString(strings.ToLower(s.Text), -1) {
			if terms[t] {
				overlap++
			}
		}
		if overlap > 0 {
			sc.score += min(0.15*float64(overlap), 0.45)
			sc.reason = append(sc.reason, fmt.Sprintf("%d matching terms", overlap))
		}
		for _, tag := range s.Tags {
			if terms[strings.ToLower(tag)] {
				sc.score += 0.25
				sc.reason = append(sc.reason, "tag "+tag)
				break
			}
		}
		ranked = append(ranked, sc)
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
	t := now()
	for _, sc := range ranked[:min(len(ranked), maxRetrievedSoft)] {
		soft[sc.i].Hits++
		soft[sc.i].LastSeenAt = t
		r.Soft = append(r.Soft, soft[sc.i])
		r.Reasons = append(r.Reasons, RetrievalReason{ID: soft[sc.i].ID, Layer: "soft", Score: sc.score, Reasons: sc.reason})
	}
	if len(r.Soft) > 0 {
		if err := m.writeSoft(soft); err != nil {
			return r, err
		}
	}
	var coreIDs, softIDs []string
	for _, c := range r.Core {
		coreIDs = append(coreIDs, c.ID)
	}
	for _, s := range r.Soft {
		softIDs = append(softIDs, s.ID)
	}
	return r, m.event("retrieve", map[string]any{"core_ids": coreIDs, "soft_ids": softIDs, "scopes": scopes})
}

// Prompt renders a retrieval for the system prompt; "" when it is empty.
func (r Retrieval) Prompt() string {
	if len(r.Core) == 0 && len(r.Soft) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<kast_memory>\nCore Memories:\n")
	for _, c := range r.Core {
		fmt.Fprintf(&b, "- [%s] %s\n", c.ID, c.Text)
	}
	b.WriteString("Relevant Soft Memories:\n")
	for _, s := range r.Soft {
		fmt.Fprintf(&b, "- [%s] %s\n", s.ID, s.Text)
	}
	b.WriteString("Rules: core memories are the user's explicit instructions; soft memories are hints that may be stale. The user's current request wins.\n</kast_memory>")
	return b.String()
}

// inferRE finds statements of lasting preference in user messages.
var inferRE = regexp.MustCompile(`(?i)\b(?:i (?:always |usually )?prefer|please always|always use|never use|i like to|remember that|we use|our convention is)\b[^.!?\n]{3,200}`)

// sensitiveRE refuses inferred memories about personal matters.
var sensitiveRE = regexp.MustCompile(`(?i)love|romantic|intimate|dependency|lonely|health|diagnos|religio|politic|password|secret|token|api[_ -]?key`)

// Infer finds conservative soft-memory candidates in the user messages of a
// conversation: explicit statements of preference or convention, no
// personal or secret matters.
func Infer(history []Message) []string {
	var out []string
	for _, msg := range history {
		if msg.Role != RoleUser {
			continue
		}
		for _, match := range inferRE.FindAllString(msg.Text, -1) {
			match = strings.TrimSpace(match)
			if !sensitiveRE.MatchString(match) && !containsString(out, match) {
				out = append(out, match)
			}
		}
	}
	return out
}

func (m *MemoryStore) readCore() ([]CoreMemory, error) {
	data, err := os.ReadFile(m.Paths().Core)
	if errors.Is(err, os.ErrNotExist) || len(bytes.TrimSpace(data)) == 0 {
		return []CoreMemory{}, nil
	}
	if err != nil {
		return nil, err
	}
	var core []CoreMemory
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) { // legacy {memories: [...]}
		var legacy struct {
			Memories []CoreMemory `json:"memories"`
		}
		err = json.Unmarshal(data, &legacy)
		core = legacy.Memories
	} else {
		err = json.Unmarshal(data, &core)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Paths().Core, err)
	}
	if core == nil {
		core = []CoreMemory{}
	}
	return core, nil
}

func (m *MemoryStore) writeCore(core []CoreMemory) error {
	data, err := json.MarshalIndent(core, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(m.Paths().Core, append(data, '\n'))
}

func (m *MemoryStore) readSoft() ([]SoftMemory, error) {
	data, err := os.ReadFile(m.Paths().Soft)
	if errors.Is(err, os.ErrNotExist) {
		return []SoftMemory{}, nil
	}
	if err != nil {
		return nil, err
	}
	soft := []SoftMemory{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var s SoftMemory
		if json.Unmarshal(sc.Bytes(), &s) == nil && s.ID != "" {
			soft = append(soft, s)
		}
	}
	return soft, nil
}

func (m *MemoryStore) writeSoft(soft []SoftMemory) error {
	var b bytes.Buffer
	for _, s := range soft {
		line, err := json.Marshal(s)
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	}
	return writePrivate(m.Paths().Soft, b.Bytes())
}

// nextID returns prefix_NNN one above the highest existing number.
func nextID(prefix string, ids []string) string {
	n := 0
	for _, id := range ids {
		if v, err := strconv.Atoi(strings.TrimPrefix(id, prefix+"_")); err == nil && v > n {
			n = v
		}
	}
	return fmt.Sprintf("%s_%03d", prefix, n+1)
}

func now() string { return time.Now().UTC().Format(TimeFormat) }
