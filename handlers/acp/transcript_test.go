package acp_test

import (
	"bytes"
	"encoding/json"
	"testing"

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
	// A transcript with an @mcp section runs MCP servers: this tree's kast
	// (stdio, $KAST_BIN) and an in-process streamable-HTTP one ($MCP_URL).
	if ws.Data("mcp") != nil {
		ws.Set("KAST_BIN", kastBinary(t))
		ws.Set("MCP_URL", httpMCPServer(t))
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	entry := handlers.ACP(handlers.NewProcess(h), acp.Options{Version: "test"})
	return server.New(entry.Options("test", nil))
}
