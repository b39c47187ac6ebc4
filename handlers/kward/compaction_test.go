package kward_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
)

func TestKwardCompaction(t *testing.T) {
	release := make(chan struct{})
	summarizing := make(chan struct{})
	api := newRecordingServer(t, streamText("First answer."), streamText("Second answer."),
		func(w http.ResponseWriter, r *http.Request) {
			close(summarizing)
			<-release
			streamText("## Goal\nSummary of the first exchange.")(w, r)
		},
		streamText("After compaction."))
	kwardEnv(t, api.URL)
	writeConfig(t, map[string]any{"compaction": map[string]any{"keepRecentTokens": 1}})
	c := kwardClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, t.TempDir())
	runTurn(t, c, s.ID, "first question", nil)
	runTurn(t, c, s.ID, "second question", nil)
	var before struct {
		Messages []struct{ EntryID, Text string } `json:"messages"`
	}
	mustCall(t, c, "sessions/forkMessages", map[string]any{"sessionId": s.ID}, &before)

	// The turn's end is announced before its runtime lets go of the session:
	// wait until it reports idle, as a client would, before compacting.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var st map[string]any
		mustCall(t, c, "runtime/state", map[string]any{"sessionId": s.ID}, &st)
		if st["isStreaming"] == false {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session still streams 10 s after its turn ended: %v", st)
		}
	}
	_, compacted := c.Go("sessions/compact", map[string]any{"sessionId": s.ID, "customInstructions": "focus on files"})
	select {
	case <-summarizing:
	case m := <-compacted:
		t.Fatalf("sessions/compact answered without asking the summarizer: %+v", m)
	case <-ctx.Done():
		t.Fatal("the summarizer was never asked")
	}
	// While the summarizer runs, other requests are answered: state, and a
	// turn queued behind the compaction that is cancelled before it runs.
	var state map[string]any
	mustCall(t, c, "runtime/state", map[string]any{"sessionId": s.ID}, &state)
	if state["isCompacting"] != true {
		t.Fatalf("runtime/state during compaction: %v", state)
	}
	var queued, cancelled turn
	mustCall(t, c, "turns/start", map[string]any{"sessionId": s.ID, "input": "queued"}, &queued)
	mustCall(t, c, "turns/cancel", map[string]any{"turnId": queued.ID}, &cancelled)
	if queued.Status != "queued" || cancelled.Status != "canceled" {
		t.Fatalf("turn during compaction: %+v then %+v", queued, cancelled)
	}
	err := c.Call(ctx, "sessions/compact", map[string]any{"sessionId": s.ID}, nil)
	if code, data := rpcCode(t, err); code != -32603 || data != "SESSION_BUSY" {
		t.Fatalf("second compaction: %d %s", code, data)
	}
	close(release)

	var res struct {
		Summary          string         `json:"summary"`
		FirstKeptEntryID string         `json:"firstKeptEntryId"`
		TokensBefore     int            `json:"tokensBefore"`
		Details          map[string]any `json:"details"`
	}
	select {
	case m := <-compacted:
		if m.Error != nil {
			t.Fatal(m.Error)
		}
		json.Unmarshal(m.Result, &res)
	case <-ctx.Done():
		t.Fatal("sessions/compact did not answer")
	}
	if !strings.Contains(res.Summary, "Summary of the first exchange") || res.FirstKeptEntryID != before.Messages[1].EntryID ||
		res.TokensBefore <= 0 || res.Details["read_files"] == nil {
		t.Fatalf("compact result %+v (kept should be %s)", res, before.Messages[1].EntryID)
	}
	if body := api.body(2); !strings.Contains(body, "first question") || strings.Contains(body, "second question") ||
		!strings.Contains(body, "Additional focus: focus on files") || strings.Contains(body, `"tools"`) {
		t.Fatalf("summarizer request: %s", body)
	}
	var evTypes []string
	for _, n := range c.Notifications("session/event") {
		var ev struct {
			Type    string         `json:"type"`
			Payload map[string]any `json:"payload"`
		}
		json.Unmarshal(n.Params, &ev)
		evTypes = append(evTypes, ev.Type)
		if ev.Type == "compactionEnd" && (ev.Payload["aborted"] != false || ev.Payload["result"] == nil) {
			t.Fatalf("compactionEnd %v", ev.Payload)
		}
	}
	if strings.Join(evTypes, ",") != "compactionStart,compactionEnd" {
		t.Fatalf("session/event types %v", evTypes)
	}

	// The file keeps every message and ends with the compaction record; it
	// loads as summary + kept messages.
	data, _ := os.ReadFile(s.Path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var last struct {
		Type    string `json:"type"`
		Message struct {
			Role         string `json:"role"`
			FirstKept    string `json:"first_kept_entry_id"`
			TokensBefore int    `json:"tokens_before"`
		} `json:"message"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if len(lines) != 6 || last.Type != "compaction" || last.Message.FirstKept != res.FirstKeptEntryID || last.Message.TokensBefore != res.TokensBefore {
		t.Fatalf("session file:\n%s", data)
	}
	ld, _ := agent.Load(s.Path)
	if len(ld.Messages) != 3 || ld.Messages[0].Role != agent.RoleCompactionSummary || ld.Messages[1].Text != "second question" {
		t.Fatalf("loaded after compaction: %+v", ld.Messages)
	}
	// The next turn sends the summary, not the compacted messages.
	runTurn(t, c, s.ID, "third", nil)
	if body := api.body(-1); strings.Contains(body, "first question") || !strings.Contains(body, "Summary of the first exchange") {
		t.Fatalf("request after compaction: %s", body)
	}
}

func TestKwardCompactionOnContextOverflow(t *testing.T) {
	overflow := []byte(`{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`)
	api := newRecordingServer(t, streamText("One."), status(400, overflow), streamText("Checkpoint summary."), streamText("Answered after retry."))
	kwardEnv(t, api.URL)
	writeConfig(t, map[string]any{"compaction": map[string]any{"keepRecentTokens": 1}})
	c := kwardClient(t)
	s := newSession(t, c, t.TempDir())
	runTurn(t, c, s.ID, "first", nil)
	evs := runTurn(t, c, s.ID, "second", nil)
	if last := evs[len(evs)-1]; last.Payload["status"] != "completed" || evs[len(evs)-2].Payload["content"] != "Answered after retry." {
		t.Fatalf("events %s: %v", types(evs), last.Payload)
	}
	if !strings.Contains(api.body(2), "exceeded the model's context window") {
		t.Fatalf("overflow compaction request: %s", api.body(2))
	}
	ld, _ := agent.Load(s.Path)
	if ld.Messages[0].Role != agent.RoleCompactionSummary || ld.Messages[0].Text != "Checkpoint summary." {
		t.Fatalf("session after overflow: %+v", ld.Messages)
	}
}

func TestKwardAutomaticCompaction(t *testing.T) {
	api := newRecordingServer(t, streamText("One."), streamText("Auto summary."), streamText("Two."))
	kwardEnv(t, api.URL)
	// A tiny window puts any conversation over the threshold.
	writeConfig(t, map[string]any{"compaction": map[string]any{"contextWindow": 100, "reserveTokens": 1, "keepRecentTokens": 1}})
	c := kwardClient(t)
	s := newSession(t, c, t.TempDir())
	runTurn(t, c, s.ID, "first", nil)
	var stats map[string]any
	mustCall(t, c, "runtime/stats", map[string]any{"sessionId": s.ID}, &stats)
	if u := stats["contextUsage"].(map[string]any); u["contextWindow"].(float64) != 100 || u["estimated"] != true || u["tokens"].(float64) <= 0 {
		t.Fatalf("contextUsage %v", u)
	}
	runTurn(t, c, s.ID, "second", nil)
	if !strings.Contains(api.body(1), "<conversation>") {
		t.Fatalf("no automatic compaction before the request: %s", api.body(1))
	}
	data, _ := os.ReadFile(s.Path)
	if !strings.Contains(string(data), `"type":"compaction"`) {
		t.Fatalf("session file has no compaction record:\n%s", data)
	}
}
