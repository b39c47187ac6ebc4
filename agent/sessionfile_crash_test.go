package agent

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk writes part of what it is given, then fails as a full disk does.
func fullDisk(f *os.File, b []byte) (int, error) {
	n, _ := f.Write(b[:len(b)/2])
	return n, syscall.ENOSPC
}

// wholeLines fails the test unless data is whole JSON lines.
func wholeLines(t *testing.T, data []byte) []string {
	t.Helper()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("the file ends in half a line:\n%s", data)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %q is not a whole record in:\n%s", l, data)
		}
	}
	return lines
}

func TestFailedWriteLeavesNoHalfLine(t *testing.T) {
	for name, write := range map[string]writeFunc{
		"full disk": fullDisk,
		"short write": func(f *os.File, b []byte) (int, error) {
			return f.Write(b[:len(b)-3])
		},
	} {
		t.Run(name, func(t *testing.T) {
			store := &Store{Dir: t.TempDir()}
			log, err := store.Create(Header{Cwd: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			first, err := log.AppendMessage(Message{Role: RoleUser, Text: "one"})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(log.Path())

			log.write = write
			_, err = log.AppendMessage(Message{Role: RoleAssistant, Text: strings.Repeat("two ", 100)})
			var full *DiskFullError
			switch name {
			case "full disk":
				if !errors.As(err, &full) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "is full: free some space") {
					t.Fatalf("a full disk gave %v", err)
				}
			default:
				if !errors.Is(err, io.ErrShortWrite) {
					t.Fatalf("a short write gave %v", err)
				}
			}
			after, _ := os.ReadFile(log.Path())
			if string(after) != string(before) {
				t.Fatalf("the failed write left\n%s\nafter\n%s", after, before)
			}

			// Once there is room again, the next record links to the last
			// one written.
			log.write = nil
			third, err := log.AppendMessage(Message{Role: RoleAssistant, Text: "three"})
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(log.Path())
			lines := wholeLines(t, data)
			if len(lines) != 3 || !strings.Contains(lines[2], `"parentId":"`+first.ID+`"`) {
				t.Fatalf("file after the retry:\n%s", data)
			}
			ld, err := Load(log.Path())
			if err != nil || len(ld.Messages) != 2 || ld.Messages[1].ID != third.ID {
				t.Fatalf("load: %v %+v", err, ld)
			}
		})
	}
}

func TestCreateOnFullDiskLeavesNoFile(t *testing.T) {
	store := &Store{Dir: t.TempDir(), write: fullDisk}
	_, err := store.Create(Header{Cwd: "/w"})
	var full *DiskFullError
	if !errors.As(err, &full) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("create on a full disk: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(store.DirFor("/w"), "*"))
	if len(files) != 0 {
		t.Fatalf("a failed create left %v", files)
	}
	// A renamed session on a disk that fills loses no record either.
	store.write = nil
	log, err := store.Create(Header{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	log.write = fullDisk
	if err := log.SetName("named"); !errors.As(err, &full) || log.Name() != "" {
		t.Fatalf("rename on a full disk: %v, name %q", err, log.Name())
	}
	data, _ := os.ReadFile(log.Path())
	if lines := wholeLines(t, data); len(lines) != 1 {
		t.Fatalf("file:\n%s", data)
	}
}

// A line a crash cut short is removed before the next record is written,
// so that record is not glued to it and lost; a whole last record that
// lacks only its newline is kept.
func TestOpenMendsATornLastLine(t *testing.T) {
	for name, tail := range map[string]string{
		"torn":          `{"type":"message","id":"m2","parentId":"m1","mess`,
		"whole record":  `{"type":"message","id":"m2","parentId":"m1","message":{"role":"assistant","content":"hello"}}`,
		"whole already": "",
	} {
		t.Run(name, func(t *testing.T) {
			store := &Store{Dir: t.TempDir()}
			dir := store.DirFor("/w")
			os.MkdirAll(dir, 0o700)
			path := filepath.Join(dir, "2026-06-14T10-22-33.123Z_abc.jsonl")
			content := `{"type":"session","version":2,"id":"abc","cwd":"/w"}` + "\n" +
				`{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"hi"}}` + "\n" + tail
			os.WriteFile(path, []byte(content), 0o600)
			log, ld, err := store.open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			kept := 1
			if name == "whole record" {
				kept = 2
			}
			if len(ld.Messages) != kept {
				t.Fatalf("loaded %+v", ld.Messages)
			}
			if _, err := log.AppendMessage(Message{Role: RoleUser, Text: "next"}); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			wholeLines(t, data)
			if ld, _ := Load(path); len(ld.Messages) != kept+1 || ld.Messages[kept].Text != "next" {
				t.Fatalf("after appending:\n%s", data)
			}
		})
	}
}

func TestRepairToolCalls(t *testing.T) {
	call := func(ids ...string) Message {
		m := Message{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "run_shell_command", Arguments: "{}"})
		}
		return m
	}
	result := func(id string) Message { return Message{Role: RoleTool, ToolCallID: id, Text: "ok"} }
	user := Message{Role: RoleUser, Text: "go"}
	shape := func(msgs []Message) string {
		var s []string
		for _, m := range msgs {
			switch {
			case m.Role == RoleTool && m.Text == InterruptedResult:
				s = append(s, "interrupted:"+m.ToolCallID)
			case m.Role == RoleTool:
				s = append(s, "result:"+m.ToolCallID)
			case len(m.ToolCalls) > 0:
				s = append(s, "call:"+m.ToolCalls[0].ID)
			default:
				s = append(s, m.Role)
			}
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		in       []Message
		want     string
		trailing int
	}{
		{[]Message{user, call("a"), result("a"), user}, "user call:a result:a user", 0},
		{[]Message{user, call("a", "b"), result("a")}, "user call:a result:a interrupted:b", 1},
		{[]Message{user, call("a", "b")}, "user call:a interrupted:a interrupted:b", 2},
		// An older file broken before this repair existed: the result goes
		// right after the call, before the user's next message.
		{[]Message{user, call("a"), user, call("b"), result("b")}, "user call:a interrupted:a user call:b result:b", 0},
	} {
		out, trailing := repairToolCalls(tc.in)
		if got := shape(out); got != tc.want || trailing != tc.trailing {
			t.Errorf("repair(%s) = %s with %d trailing, want %s with %d", shape(tc.in), got, trailing, tc.want, tc.trailing)
		}
	}
	for _, m := range RepairToolCalls([]Message{user, call("a")}) {
		if m.Role == RoleTool && (!m.ToolResult().IsError || m.Name != "run_shell_command" || m.ID == "") {
			t.Errorf("synthesized result %+v", m)
		}
	}
}

// A session whose file ends in a tool call without a result (kast was
// killed while the tool ran) is resumed with a result saying so, recorded
// in the file once, after the results that were stored.
func TestResumeRecordsInterruptedToolCalls(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	log, err := store.Create(Header{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	log.AppendMessage(Message{Role: RoleUser, Text: "run both"})
	log.AppendMessage(Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "read_file"}, {ID: "c2", Name: "run_shell_command"}}})
	done, _ := log.AppendMessage(Message{Role: RoleTool, ToolCallID: "c1", Name: "read_file", Text: "text"})
	log.Close()

	for range 2 { // a second resume finds nothing left to repair
		resumed, ld, err := store.open(log.Path())
		if err != nil {
			t.Fatal(err)
		}
		if len(ld.Messages) != 4 || ld.Messages[3].ToolCallID != "c2" || ld.Messages[3].Text != InterruptedResult {
			t.Fatalf("resumed history %+v", ld.Messages)
		}
		next, _ := resumed.AppendMessage(Message{Role: RoleUser, Text: "again"})
		resumed.Close()
		data, _ := os.ReadFile(log.Path())
		if n := strings.Count(string(data), InterruptedResult); n != 1 {
			t.Fatalf("the interrupted result is recorded %d times:\n%s", n, data)
		}
		stored, _ := Load(log.Path())
		synth := stored.Messages[3]
		if synth.ID != ld.Messages[3].ID || stored.unsaved != 0 || !strings.Contains(string(data), `"parentId":"`+done.ID+`"`) {
			t.Fatalf("the file does not hold the repaired history:\n%s", data)
		}
		// The next record links to the synthesized one.
		if len(stored.Messages) != 5 || stored.Messages[4].ID != next.ID {
			t.Fatalf("after appending: %+v", stored.Messages)
		}
		// Drop that record, so the second round sees the same history.
		lines := wholeLines(t, data)
		os.WriteFile(log.Path(), []byte(strings.Join(lines[:len(lines)-1], "\n")+"\n"), 0o600)
	}
}

// When the repaired result cannot be recorded (a full disk), resuming
// fails with that error rather than opening a session whose next record
// would link to an entry the file lacks.
func TestResumeOnFullDiskFails(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	log, _ := store.Create(Header{Cwd: "/w"})
	log.AppendMessage(Message{Role: RoleUser, Text: "run"})
	log.AppendMessage(Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "run_shell_command"}}})
	log.Close()
	before, _ := os.ReadFile(log.Path())
	store.write = fullDisk
	var full *DiskFullError
	if _, _, err := store.open(log.Path()); !errors.As(err, &full) {
		t.Fatalf("resume on a full disk: %v", err)
	}
	if after, _ := os.ReadFile(log.Path()); string(after) != string(before) {
		t.Fatalf("the failed resume changed the file:\n%s", after)
	}
	// The lock is released: the session resumes once there is room.
	store.write = nil
	if l, _, err := store.open(log.Path()); err != nil {
		t.Fatal(err)
	} else {
		l.Close()
	}
}
