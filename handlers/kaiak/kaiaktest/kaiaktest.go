// Package kaiaktest holds what Kaiak's tests and benchmark share: loopback
// chat-completions models (a script replayed in order, and a migration
// model that proposes javax → jakarta edits for whatever file it is asked
// about), the environment that points kast at them, and the Java fixture.
package kaiaktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// Env points kast's config and data at temporary folders and its provider
// at baseURL (an OpenAI-compatible endpoint); "" configures no provider.
// It returns the data folder.
func Env(t testing.TB, baseURL string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	for _, k := range []string{"KAST_PROVIDER", "KAST_MODEL", "KAST_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
		"OPENROUTER_API_KEY", "MOONSHOT_API_KEY", "KAST_LOGGING"} {
		t.Setenv(k, "")
	}
	if baseURL != "" {
		t.Setenv("KAST_PROVIDER", "openai")
		t.Setenv("KAST_BASE_URL", baseURL)
		t.Setenv("KAST_MODEL", "test-model")
		t.Setenv("OPENAI_API_KEY", "sk-test-key-123456")
	}
	return filepath.Join(dir, "data")
}

// Testdata is the repository's testdata/kaiak folder.
func Testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "kaiak")
}

// Fixture writes the workspace archive testdata/kaiak/<name>.txtar to a
// fresh folder and returns its real path.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join(Testdata(), name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		path := filepath.Join(dst, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// SSE writes a chat-completions event stream.
type SSE struct {
	w http.ResponseWriter
}

// NewSSE starts an event stream.
func NewSSE(w http.ResponseWriter) SSE {
	w.Header().Set("Content-Type", "text/event-stream")
	return SSE{w}
}

func (s SSE) event(delta map[string]any) {
	data, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": delta, "index": 0}}})
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Text streams an answer delta.
func (s SSE) Text(d string) { s.event(map[string]any{"content": d}) }

// Reasoning streams a reasoning delta.
func (s SSE) Reasoning(d string) { s.event(map[string]any{"reasoning_content": d}) }

// ToolCall streams one tool call (index i of the response's calls).
func (s SSE) ToolCall(i int, id, name, args string) {
	s.event(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": id, "type": "function",
		"function": map[string]any{"name": name, "arguments": args}}}})
}

// End finishes the stream with usage.
func (s SSE) End(toolCalls bool) {
	reason := "stop"
	if toolCalls {
		reason = "tool_calls"
	}
	data, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{}, "finish_reason": reason, "index": 0}}})
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	fmt.Fprint(s.w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":12,\"total_tokens\":52}}\n\ndata: [DONE]\n\n")
}

// Reply is one scripted model reply, as a JSON line of a transcript's
// @model section:
//
//	{"text":["Hello ","there."]}              answer deltas
//	{"reasoning":["Hm."],"text":["Done."]}     reasoning, then the answer
//	{"toolCall":{"id":"c1","name":"edit_file","arguments":"{...}"}}
//	{"toolCalls":[{...},{...}]}                several calls in one step
//	{"stall":true}                             one delta, then nothing until the request is abandoned
//	{"status":500,"body":{...}}                an HTTP error
type Reply struct {
	Text      []string   `json:"text"`
	Reasoning []string   `json:"reasoning"`
	ToolCall  *ToolCall  `json:"toolCall"`
	ToolCalls []ToolCall `json:"toolCalls"`
	Stall     bool       `json:"stall"`
	Status    int        `json:"status"`
	Body      json.RawMessage
}

// ToolCall is a scripted tool call.
type ToolCall struct{ ID, Name, Arguments string }

// ServeHTTP plays the reply.
func (rp Reply) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rp.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.Status)
		w.Write(rp.Body)
		return
	}
	s := NewSSE(w)
	if rp.Stall {
		s.Text("thinking...")
		<-r.Context().Done()
		return
	}
	for _, d := range rp.Reasoning {
		s.Reasoning(d)
	}
	for _, d := range rp.Text {
		s.Text(d)
	}
	calls := rp.ToolCalls
	if rp.ToolCall != nil {
		calls = append(calls, *rp.ToolCall)
	}
	for i, c := range calls {
		s.ToolCall(i, c.ID, c.Name, c.Arguments)
	}
	s.End(len(calls) > 0)
}

// Script is a loopback model that plays its replies in order, one per
// request; the last repeats.
type Script struct {
	*httptest.Server
	mu      sync.Mutex
	replies []Reply
	bodies  []string
}

// NewScript parses a transcript's @model section (one Reply per line) and
// serves it.
func NewScript(t testing.TB, lines []byte) *Script {
	t.Helper()
	s := &Script{}
	for _, line := range bytes.Split(lines, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		var r Reply
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&r); err != nil {
			t.Fatalf("@model line %s: %v", line, err)
		}
		s.replies = append(s.replies, r)
	}
	if len(s.replies) == 0 {
		t.Fatal("@model has no reply")
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		rp := s.replies[0]
		if len(s.replies) > 1 {
			s.replies = s.replies[1:]
		}
		s.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Bodies returns the request bodies received so far.
func (s *Script) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// MigrationModel is a loopback model that fixes javax → jakarta in the file
// a Kaiak prompt names: asked about a file, it thinks, says what it will
// do and proposes edit_file replacements (write_file when a javax line
// repeats); told the result, it answers according to the user's decision.
// It serves any number of conversations at once, since it reads each
// request's own messages.
type MigrationModel struct {
	*httptest.Server
	// Delay, when set, precedes every reply (a slow model).
	Delay time.Duration
	// Requests counts the model requests served.
	Requests atomic.Int64

	mu   sync.Mutex
	hold chan struct{}
}

// SetHold makes the model wait on hold before proposing, so a test can act
// while the model is mid-stream (closed: go on; nil: no wait).
func (m *MigrationModel) SetHold(hold chan struct{}) {
	m.mu.Lock()
	m.hold = hold
	m.mu.Unlock()
}

// NewMigrationModel serves a migration model.
func NewMigrationModel(t testing.TB) *MigrationModel {
	m := &MigrationModel{}
	m.Server = httptest.NewServer(m)
	t.Cleanup(m.Close)
	return m
}

var (
	filePattern    = regexp.MustCompile("in `([^`]+)`")
	contentPattern = regexp.MustCompile("(?s)## Current content of `[^`]+`\n\n(`{3,})[a-z]*\n(.*?)\n?(`{3,})\n")
)

// ServeHTTP answers one chat-completions request.
func (m *MigrationModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.Requests.Add(1)
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	if m.Delay > 0 {
		select {
		case <-time.After(m.Delay):
		case <-r.Context().Done():
			return
		}
	}
	s := NewSSE(w)
	if len(req.Messages) == 0 {
		s.Text("Nothing to do.")
		s.End(false)
		return
	}
	last := req.Messages[len(req.Messages)-1]
	text := contentText(last.Content)
	if last.Role != "tool" {
		path := ""
		if mm := filePattern.FindStringSubmatch(text); mm != nil {
			path = mm[1]
		}
		content := ""
		if mm := contentPattern.FindStringSubmatch(text); mm != nil {
			content = mm[2] + "\n"
		}
		s.Reasoning("The incidents name javax packages; ")
		s.Reasoning("Jakarta EE 9 renamed them to jakarta.")
		s.Text("I will replace the javax imports ")
		s.Text(fmt.Sprintf("in %s with their jakarta equivalents.", path))
		m.mu.Lock()
		hold := m.hold
		m.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		name, args := Fix(path, content)
		if name == "" {
			s.Text(" Nothing in the file uses javax.")
			s.End(false)
			return
		}
		s.ToolCall(0, fmt.Sprintf("call_%d", m.Requests.Load()), name, args)
		s.End(true)
		return
	}
	switch {
	case strings.Contains(text, "user approved"):
		s.Text("Replaced javax with jakarta. Side effects: none beyond the package names. Test: build and run the unit tests.")
	case strings.Contains(text, "did not approve"):
		s.Text("Understood: the change was not approved, so the file stays as it is.")
	case strings.Contains(text, "changed while the user reviewed"):
		s.Text("The file changed while you reviewed the change; run the fix again to propose it anew.")
	default:
		s.Text("Stopped: " + strings.SplitN(text, "\n", 2)[0])
	}
	s.End(false)
}

// Fix is the migration model's change to a file's content: edit_file
// replacing each javax line, or write_file when a javax line repeats; ""
// when nothing uses javax.
func Fix(path, content string) (name, args string) {
	var edits []map[string]string
	seen := map[string]int{}
	for _, line := range strings.Split(content, "\n") {
		if strings.Contains(line, "javax.") {
			seen[line]++
		}
	}
	if len(seen) == 0 {
		return "", ""
	}
	for _, n := range seen {
		if n > 1 {
			data, _ := json.Marshal(map[string]any{"path": path, "content": strings.ReplaceAll(content, "javax.", "jakarta."),
				"description": "Replace javax packages with jakarta", "confidence": 0.9})
			return "write_file", string(data)
		}
	}
	for _, line := range strings.Split(content, "\n") {
		if strings.Contains(line, "javax.") {
			edits = append(edits, map[string]string{"old_text": line, "new_text": strings.ReplaceAll(line, "javax.", "jakarta.")})
		}
	}
	data, _ := json.Marshal(map[string]any{"path": path, "edits": edits, "description": "Replace javax packages with jakarta", "confidence": 0.9})
	return "edit_file", string(data)
}

// contentText reads a message's content: a string or content parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
