package kast

import (
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// A second daemon on a workspace whose index another holds falls back to
// an index in memory: it answers, and says DEGRADED with a warning where
// the first says READY.
func TestKastStatusDegradedInMemory(t *testing.T) {
	first := newKastEnv(t, "kotlin.txtar")
	status := func(e *kastEnv) runtimeStatus {
		t.Helper()
		var st runtimeStatus
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			e.ok("runtime/status", map[string]any{}, &st)
			if st.State != "INDEXING" || time.Now().After(deadline) {
				return st
			}
		}
	}
	if st := status(first); st.State != "READY" || len(st.Warnings) != 0 {
		t.Fatalf("the first daemon: %+v", st)
	}
	// The same cache folder (XDG_CACHE_HOME stays set): the index is taken.
	h := host.New(host.Options{})
	k, release, err := Daemon(h, first.root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	reg := server.NewRegistry()
	k.Register(reg)
	c, _ := servertest.Pipe(t, server.New(server.Options{Registry: reg, Profile: server.Profile{Framing: server.FramingNDJSON}}), servertest.NDJSON)
	second := &kastEnv{t: t, root: first.root, c: c, host: h}
	st := status(second)
	if st.State != "DEGRADED" || !st.Healthy || len(st.Warnings) == 0 || st.Message == nil {
		t.Fatalf("the second daemon, with its index in memory: %+v", st)
	}
	var res symbolResult
	second.ok("raw/resolve", map[string]any{"position": second.pos("src/main/kotlin/sample/Use.kt", "greet", 0)}, &res)
	if res.Symbol.FqName != "sample.greet" {
		t.Errorf("the degraded daemon resolves %+v", res.Symbol)
	}
}
