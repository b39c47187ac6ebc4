package kward_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestKwardTranscripts replays testdata/kward/transcripts. Besides the
// workspace ($ROOT, the sessions' workspace), an archive may hold sections
// for the builder:
//
//	-- @model --    the scripted model, one reply per line, in order (the
//	                last repeats), each a JSON object:
//	                {"text":["Hello ","there."]}  a stream of deltas
//	                {"stall":true}                one delta, then nothing until
//	                                              the request is abandoned
//	                {"toolCall":{"id":"c1","name":"list_directory","arguments":"{}"}}
//	                {"status":400,"body":{...}}   an HTTP error
//	                Without it no provider is configured.
//	-- @config --   kast's config file, as JSON
//	-- @server --   "lsp" to serve `kast lsp` rather than `kast kward rpc`
//
// The transcript may use $DATA, the data directory (XDG_DATA_HOME).
func TestKwardTranscripts(t *testing.T) {
	servertest.Transcripts{NewServer: newKwardTranscriptServer}.Run(t, "../../testdata/kward/transcripts/*.txtar")
}

func newKwardTranscriptServer(t *testing.T, ws *servertest.Workspace) *server.Server {
	baseURL := ""
	if script := ws.Data("model"); script != nil {
		var replies []func(http.ResponseWriter, *http.Request)
		sc := bufio.NewScanner(bytes.NewReader(script))
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				replies = append(replies, scriptedReply(t, line))
			}
		}
		baseURL = chatServer(t, replies...).URL
	}
	ws.Set("DATA", kwardEnv(t, baseURL))
	if cfg := ws.Data("config"); cfg != nil {
		var m map[string]any
		if err := json.Unmarshal(cfg, &m); err != nil {
			t.Fatalf("@config: %v", err)
		}
		writeConfig(t, m)
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	p := handlers.NewProcess(h)
	entry := handlers.KwardRPC(p)
	if string(bytes.TrimSpace(ws.Data("server"))) == "lsp" {
		entry = handlers.LSP(p)
	}
	return server.New(entry.Options("test", nil))
}

// scriptedReply is one reply of the @model section.
func scriptedReply(t *testing.T, line []byte) func(http.ResponseWriter, *http.Request) {
	var r struct {
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
	switch {
	case r.Stall:
		return stall
	case r.ToolCall != nil:
		return streamToolCall(r.ToolCall.ID, r.ToolCall.Name, r.ToolCall.Arguments)
	case r.Status != 0:
		return status(r.Status, r.Body)
	}
	return streamText(r.Text...)
}
