package acp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestTranscripts replays testdata/acp/transcripts/*.txtar against `kast
// acp` (NDJSON) over the transcript's workspace, every reply validated
// against the ACP v1 schema. The @model section scripts the loopback model
// (see scriptedModel); without one no provider is configured.
// An @mcp section says which MCP servers the transcript starts.
func TestTranscripts(t *testing.T) {
	sch := loadSchema(t)
	servertest.Transcripts{NewServer: newServer, Framing: servertest.NDJSON,
		CheckResult: func(t *testing.T, method string, result json.RawMessage) { sch.checkResult(t, method, result) },
	}.Run(t, "../../testdata/acp/transcripts/*.txtar")
}

func newServer(t *testing.T, ws *servertest.Workspace) *server.Server {
	// The model's script may name files under $ROOT.
	script := bytes.ReplaceAll(ws.Data("model"), []byte("$ROOT"), []byte(ws.Root))
	ws.Set("DATA", testEnv(t, scriptedModel(t, script)))
	applyEnv(t, ws)
	// A transcript's @mcp section names the MCP servers it runs: "stdio",
	// this tree's kast ($KAST_BIN, built once); "http", an in-process
	// streamable-HTTP one ($MCP_URL).
	if mcp := string(ws.Data("mcp")); mcp != "" {
		if strings.Contains(mcp, "stdio") {
			ws.Set("KAST_BIN", kastBinary(t))
		}
		if strings.Contains(mcp, "http") {
			ws.Set("MCP_URL", httpMCPServer(t))
		}
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	entry := handlers.ACP(handlers.NewProcess(h), acp.Options{Version: "test"})
	return server.New(entry.Options("test", nil))
}

// applyEnv applies a transcript's @env section (NAME=value lines, after
// testEnv's) and writes its @config section as kast's config file, with
// $MODEL_URL as the loopback model's address.
func applyEnv(t *testing.T, ws *servertest.Workspace) {
	for _, line := range strings.Split(string(ws.Data("env")), "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			t.Setenv(name, value)
		}
	}
	if cfg := ws.Data("config"); cfg != nil {
		cfg = bytes.ReplaceAll(cfg, []byte("$MODEL_URL"), []byte(os.Getenv("KAST_BASE_URL")))
		path := agent.ConfigPath(os.Getenv)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
