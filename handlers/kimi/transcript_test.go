package kimi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestIDETranscripts replays testdata/kimi/transcripts/ide-*.txtar against
// `kast kimi --wire-stdio` (NDJSON), or `kast lsp` when the archive's
// @server section says "lsp". Sections for the builder:
//
//	-- @model --    the scripted model (see scriptedModel); none: no provider
//	-- @options --  {"approvalTimeoutMs": N, "yolo": true}
//	-- @config --   kast's config.json (compaction settings, say)
func TestIDETranscripts(t *testing.T) {
	servertest.Transcripts{NewServer: newIDEServer, Framing: servertest.NDJSON}.Run(t, "../../testdata/kimi/transcripts/ide-*.txtar")
}

// TestIDEOnLSPTranscripts replays testdata/kimi/transcripts/lsp-*.txtar on
// `kast lsp`, Content-Length framed.
func TestIDEOnLSPTranscripts(t *testing.T) {
	servertest.Transcripts{NewServer: newIDEServer}.Run(t, "../../testdata/kimi/transcripts/lsp-*.txtar")
}

func newIDEServer(t *testing.T, ws *servertest.Workspace) *server.Server {
	ws.Set("DATA", testEnv(t, scriptedModel(t, ws.Data("model"))))
	writeConfig(t, ws.Data("config"))
	var opts struct {
		ApprovalTimeoutMs int  `json:"approvalTimeoutMs"`
		Yolo              bool `json:"yolo"`
	}
	if raw := ws.Data("options"); raw != nil {
		if err := json.Unmarshal(raw, &opts); err != nil {
			t.Fatalf("@options: %v", err)
		}
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	p := handlers.NewProcess(h)
	entry := handlers.KimiIDE(p, kimi.IDEOptions{ApprovalTimeout: time.Duration(opts.ApprovalTimeoutMs) * time.Millisecond, Yolo: opts.Yolo})
	if string(bytes.TrimSpace(ws.Data("server"))) == "lsp" {
		entry = handlers.LSP(p)
	}
	return server.New(entry.Options("test", nil))
}

// TestWireTranscripts replays testdata/kimi/transcripts/wire-*.txtar
// against `kast kimi --wire` over the transcript's workspace; @options may
// say {"yolo": true}, @config is kast's config.json.
func TestWireTranscripts(t *testing.T) {
	servertest.Transcripts{NewServer: newWireServer, Framing: servertest.NDJSON}.Run(t, "../../testdata/kimi/transcripts/wire-*.txtar")
}

func newWireServer(t *testing.T, ws *servertest.Workspace) *server.Server {
	ws.Set("DATA", testEnv(t, scriptedModel(t, ws.Data("model"))))
	writeConfig(t, ws.Data("config"))
	var opts struct {
		Yolo bool `json:"yolo"`
	}
	if raw := ws.Data("options"); raw != nil {
		if err := json.Unmarshal(raw, &opts); err != nil {
			t.Fatalf("@options: %v", err)
		}
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	entry := handlers.KimiWire(handlers.NewProcess(h), kimi.WireOptions{WorkDir: ws.Root, Yolo: opts.Yolo, Version: "test"})
	return server.New(entry.Options("test", nil))
}

// writeConfig writes a transcript's @config section as kast's config file.
func writeConfig(t *testing.T, raw []byte) {
	if raw == nil {
		return
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("@config: %v", err)
	}
	if _, err := agent.UpdateConfig(agent.ConfigPath(os.Getenv), cfg); err != nil {
		t.Fatal(err)
	}
}
