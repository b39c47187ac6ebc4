package kaiak_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestKaiakTranscripts replays testdata/kaiak/transcripts: the v1 contract
// method by method, notification by notification and error code by error
// code, and the v2 aliases. Every successful reply of a Kaiak method is also
// validated against its contract's schema (checkResult). Besides the
// workspace ($ROOT), an archive may hold sections for the builder:
//
//	-- @model --   the scripted model, one kaiaktest.Reply per line, in
//	               order (the last repeats); without it no provider is
//	               configured
//	-- @server --  "lsp" to serve `kast lsp` rather than `kast kaiak rpc`
//	-- @data --    "blocked": kast's data folder is a file, so no session
//	               file can be created
func TestKaiakTranscripts(t *testing.T) {
	s := loadSchemas(t)
	servertest.Transcripts{NewServer: newTranscriptServer, CheckResult: s.checkResult}.Run(t, "../../testdata/kaiak/transcripts/*.txtar")
}

func newTranscriptServer(t *testing.T, ws *servertest.Workspace) *server.Server {
	baseURL := ""
	if script := ws.Data("model"); script != nil {
		baseURL = kaiaktest.NewScript(t, script).URL
	}
	data := kaiaktest.Env(t, baseURL)
	ws.Set("DATA", data)
	if string(bytes.TrimSpace(ws.Data("data"))) == "blocked" {
		if err := os.WriteFile(data, []byte("a file where kast's data folder goes\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h := host.New(host.Options{})
	t.Cleanup(h.Close)
	p := handlers.NewProcess(h)
	entry := handlers.KaiakRPC(p)
	if string(bytes.TrimSpace(ws.Data("server"))) == "lsp" {
		entry = handlers.LSP(p)
	}
	return server.New(entry.Options("test", nil))
}
