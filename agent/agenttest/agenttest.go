// Package agenttest holds what the agent projections' tests share: a
// loopback OpenAI-compatible model that plays a script, and the environment
// that points kast's moonshot provider at it.
package agenttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
)

// ScriptedModel serves an OpenAI-compatible chat-completions endpoint that
// plays a transcript's @model section in order (the last reply repeats) and
// returns its URL ("" for an empty script): one reply per line, each
//
//	{"think":["a"],"text":["Hello ","there."]}  reasoning, then text deltas
//	{"toolCall":{"id":"c1","name":"write_file","arguments":"{...}"}}
//	{"stall":true}              one delta, then nothing until abandoned
//	{"status":503,"body":{...}} an HTTP error (5xx and 429 are retried)
func ScriptedModel(t testing.TB, script []byte) string {
	var replies []func(http.ResponseWriter, *http.Request)
	sc := bufio.NewScanner(bytes.NewReader(script))
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			replies = append(replies, scriptedReply(t, line))
		}
	}
	if len(replies) == 0 {
		return ""
	}
	return Sequence(t, replies...).URL
}

// Sequence serves one handler per request, in order (the last repeats),
// until the test ends.
func Sequence(t testing.TB, replies ...func(http.ResponseWriter, *http.Request)) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := replies[0]
		if len(replies) > 1 {
			replies = replies[1:]
		}
		mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func scriptedReply(t testing.TB, line []byte) func(http.ResponseWriter, *http.Request) {
	var r struct {
		Think    []string                              `json:"think"`
		Text     []string                              `json:"text"`
		Stall    bool                                  `json:"stall"`
		ToolCall *struct{ ID, Name, Arguments string } `json:"toolCall"`
		Status   int                                   `json:"status"`
		Body     json.RawMessage                       `json:"body"`
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		t.Fatalf("@model line %s: %v", line, err)
	}
	return func(w http.ResponseWriter, req *http.Request) {
		if r.Status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(r.Status)
			_, _ = w.Write(r.Body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Stall {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"working...\"},\"index\":0}]}\n\n")
			w.(http.Flusher).Flush()
			<-req.Context().Done()
			return
		}
		for _, d := range r.Think {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"reasoning_content\":%q},\"index\":0}]}\n\n", d)
		}
		for _, d := range r.Text {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q},\"index\":0}]}\n\n", d)
		}
		if c := r.ToolCall; c != nil {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":%q,\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":%q}}]},\"index\":0}]}\n\n", c.ID, c.Name, c.Arguments)
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\",\"index\":0}]}\n\n")
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,\"total_tokens\":42}}\n\ndata: [DONE]\n\n")
	}
}

// Env points kast's config and data at temporary folders and, given a
// model URL, the moonshot provider at it. It returns the data folder.
func Env(t testing.TB, baseURL string) (dataDir string) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	for _, k := range []string{"KAST_PROVIDER", "KAST_MODEL", "KAST_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "MOONSHOT_API_KEY"} {
		t.Setenv(k, "")
	}
	if baseURL != "" {
		t.Setenv("KAST_PROVIDER", "moonshot")
		t.Setenv("KAST_BASE_URL", baseURL)
		t.Setenv("MOONSHOT_API_KEY", "sk-moonshot-test-123456")
	}
	return filepath.Join(dir, "data")
}
