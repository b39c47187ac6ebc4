package kast

import (
	"encoding/json"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestKastTranscripts replays testdata/kast/transcripts on the Kast daemon.
// With Kast's reference material at hand, every successful result is also
// checked against its OpenAPI (or symbol-query) schema; without it (only
// outside CI) the transcripts check what they list.
func TestKastTranscripts(t *testing.T) {
	var check func(t *testing.T, method string, result json.RawMessage)
	if ref, ok := servertest.SharedIfPresent(t, "reference/kast"); ok {
		schemas := loadKastSchemas(t, ref)
		check = func(t *testing.T, method string, result json.RawMessage) {
			t.Helper()
			if err := schemas.k.Check(method, result); err != nil {
				t.Error(err)
			}
		}
	} else {
		t.Log("Kast's reference material is absent: results are not checked against its schemas")
	}
	servertest.Transcripts{NewServer: func(t *testing.T, ws *servertest.Workspace) *server.Server {
		srv, _ := newKastDaemon(t, ws.Root)
		return srv
	}, Framing: servertest.NDJSON, CheckResult: check}.Run(t, "../../testdata/kast/transcripts/*.txtar")
}

// newKastDaemon serves the Kast daemon over root, with a cache of its own.
func newKastDaemon(t *testing.T, root string) (*server.Server, *host.Host) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	h := host.New(host.Options{})
	k, release, err := Daemon(h, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	reg := server.NewRegistry()
	k.Register(reg)
	return server.New(server.Options{Registry: reg, Profile: server.Profile{Framing: server.FramingNDJSON}}), h
}
