package server_test

import (
	"testing"

	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestTransportTranscripts replays testdata/transport/transcripts in both
// framings: lifecycle, errors, ids, malformed frames, batches, cancellation,
// progress and the registry, as a client sees them.
func TestTransportTranscripts(t *testing.T) {
	both(t, func(t *testing.T, framing servertest.Framing) {
		servertest.RunTranscripts(t, "../testdata/transport/transcripts/*.txtar", framing,
			func(*testing.T, string) *server.Server { return newServer(true) })
	})
}
