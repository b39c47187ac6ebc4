package agent

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncSpy records, at every sync of a session file, what the file then
// held: the records a crash right after could no longer take away.
type syncSpy struct {
	mu     sync.Mutex
	points []string // the last record's kind at each sync
	synced []byte   // the file's content at the latest sync
}

func (s *syncSpy) sync(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.synced = data
	s.points = append(s.points, lastRecordKind(data))
	return nil
}

// lastRecordKind names a session file's last record: its type, and for a
// message its role, "assistant+calls" when it calls tools.
func lastRecordKind(data []byte) string {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var rec struct {
		Type    string `json:"type"`
		Message struct {
			Role      string            `json:"role"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
	}
	if json.Unmarshal([]byte(lines[len(lines)-1]), &rec) != nil {
		return "?"
	}
	if rec.Type != "message" {
		return rec.Type
	}
	if len(rec.Message.ToolCalls) > 0 {
		return rec.Message.Role + "+calls"
	}
	return rec.Message.Role
}

// A turn's records are made durable where a crash would cost the most: the
// header when the file is created, the user's message as the turn starts,
// each tool's result as it comes (with the call before it), and the
// answer that ends the turn. Nothing is left unsynced once a turn ends.
func TestSessionFileSyncsAtTurnBoundariesAndToolResults(t *testing.T) {
	spy := &syncSpy{}
	store := &Store{Dir: t.TempDir(), sync: spy.sync}
	log, err := store.Create(Header{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := &scripted{steps: []step{
		{calls: []ToolCall{{ID: "c1", Name: "echo", Arguments: `{"x":1}`}}},
		{deltas: []string{"finished"}},
	}}
	s := NewSession(SessionOptions{Workspace: log.Header().Cwd, Log: log, Tools: echoTools{},
		Provider: func() (Provider, error) { return p, nil }, Sink: func(Event) {}, RetryDelays: []time.Duration{time.Millisecond}})
	t.Cleanup(s.Close)
	turn, err := s.Start(Input{Text: "use a tool"}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, turn)

	spy.mu.Lock()
	points, synced := slices.Clone(spy.points), spy.synced
	spy.mu.Unlock()
	if want := []string{"session", "user", "tool", "assistant"}; !slices.Equal(points, want) {
		t.Errorf("synced after %v, want after %v (a call is synced with its first result)", points, want)
	}
	data, _ := os.ReadFile(log.Path())
	if string(data) != string(synced) {
		t.Errorf("the turn ended with records not synced:\n%s", strings.TrimPrefix(string(data), string(synced)))
	}
	if n := len(wholeLines(t, data)); n != 5 {
		t.Errorf("the file holds %d records, want header, user, call, result, answer:\n%s", n, data)
	}
}

// A record whose sync fails is taken back: the caller hears of it and the
// file holds only what was made durable before.
func TestFailedSyncLeavesNoRecord(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	log, err := store.Create(Header{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := log.AppendMessage(Message{Role: RoleUser, Text: "one"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(log.Path())
	log.sync = func(*os.File) error { return syscall.EIO }
	if _, err := log.AppendMessage(Message{Role: RoleTool, ToolCallID: "c1", Text: "result"}); err == nil {
		t.Fatal("a failed sync was not reported")
	}
	if after, _ := os.ReadFile(log.Path()); string(after) != string(before) {
		t.Fatalf("the unsynced record stayed:\n%s", after)
	}
	log.sync = nil
	if _, err := log.AppendMessage(Message{Role: RoleTool, ToolCallID: "c1", Text: "result"}); err != nil {
		t.Fatal(err)
	}
	if ld, err := Load(log.Path()); err != nil || len(ld.Messages) != 2 {
		t.Fatalf("after the retry: %v %+v", err, ld)
	}
}
