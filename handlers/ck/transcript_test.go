package ck

import (
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/lsp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestCKTranscripts replays testdata/ck/transcripts on the LSP connection,
// where the ck tools answer as ck/<tool>.
func TestCKTranscripts(t *testing.T) {
	servertest.RunTranscripts(t, "../../testdata/ck/transcripts/*.txtar", servertest.Header, newLSPWithCK)
}

// newLSPWithCK serves the language server with the ck tools beside it, and
// a cache of its own.
func newLSPWithCK(t *testing.T, _ string) *server.Server {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	h := host.New(host.Options{})
	t.Cleanup(h.Close) // before the temp dirs go
	reg := server.NewRegistry()
	New(h).Register(reg)
	l := lsp.New(h)
	t.Cleanup(l.WaitSessions)
	l.Register(reg)
	return server.New(server.Options{Registry: reg, Profile: l.Profile()})
}
