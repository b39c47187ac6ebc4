package kimi

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The wire session's files are synced at a turn's start and end and after
// each tool result, with the conversation records written before those
// events; streaming parts are not synced one by one. The records arrive in
// the order wireEvent writes them.
func TestWireStoreSyncsAtTurnBoundariesAndToolResults(t *testing.T) {
	s, err := openWireStore(t.TempDir(), "/work", "s1", false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	lines := func(name string) int {
		data, _ := os.ReadFile(filepath.Join(s.dir, name))
		return bytes.Count(data, []byte("\n"))
	}
	type point struct{ wire, ctx int }
	var synced []point
	pending := map[string]bool{}
	s.syncFile = func(f *os.File) error {
		pending[filepath.Base(f.Name())] = true
		if pending["wire.jsonl"] && pending["context.jsonl"] {
			synced = append(synced, point{lines("wire.jsonl"), lines("context.jsonl")})
			clear(pending)
		}
		return f.Sync()
	}

	s.context(map[string]any{"role": "user", "content": "hi"})
	s.record(wireMessage{Type: "TurnBegin"}) // wire: metadata, TurnBegin
	s.record(wireMessage{Type: "ContentPart"})
	s.context(map[string]any{"role": "assistant", "tool_calls": []any{"c1"}})
	s.record(wireMessage{Type: "ToolCall"})
	s.context(map[string]any{"role": "tool", "content": "out", "tool_call_id": "c1"})
	s.record(wireMessage{Type: "ToolResult"}) // wire: … ContentPart, ToolCall, ToolResult
	s.record(wireMessage{Type: "StatusUpdate"})
	s.context(map[string]any{"role": "assistant", "content": "done"})
	s.record(wireMessage{Type: "TurnEnd"})

	want := []point{{2, 1}, {5, 3}, {7, 4}}
	if !slices.Equal(synced, want) {
		t.Fatalf("synced at (wire lines, context lines) %v, want %v", synced, want)
	}
}
