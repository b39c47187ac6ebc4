package lsp

import (
	"maps"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// TestLSPLibraryMarkers runs the marker archives under testdata/lsp-libraries
// with a host that indexes libraries, as an editor's kast does: an
// archive's node_modules are libraries, not workspace files. The marker
// libraries(n) waits until n libraries are indexed; put it before the
// markers that need them.
func TestLSPLibraryMarkers(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	checkers := maps.Clone(lspCheckers)
	checkers["libraries"] = func(env *servertest.Env, m servertest.Marker) {
		for {
			var status struct {
				Libraries libraryStatus `json:"libraries"`
			}
			if err := env.Client.Call(env.Ctx, "workspace/executeCommand", map[string]any{"command": cmdStatus}, &status); err != nil {
				env.T.Fatal(err)
			}
			done := 0
			for _, l := range status.Libraries.Indexed {
				if l.Complete {
					done++
				}
			}
			if done >= m.Args[0].Int {
				return
			}
			select {
			case <-env.Ctx.Done():
				env.T.Fatalf("%v: libraries not indexed: %+v", m, status.Libraries)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	servertest.Runner{
		NewServer: func(t testing.TB) *server.Server {
			h := host.New(host.Options{Libraries: true})
			t.Cleanup(h.Close)
			l := New(h)
			t.Cleanup(l.WaitSessions)
			reg := server.NewRegistry()
			l.Register(reg)
			return server.New(server.Options{Registry: reg, Profile: l.Profile()})
		},
		Checkers:     checkers,
		Capabilities: map[string]any{"window": map[string]any{"workDoneProgress": true}},
	}.Run(t, "../../testdata/lsp-libraries/*/*.txtar")
}
