package server_test

import (
	"context"
	"testing"

	"github.com/kast-dev/kast/server/servertest"
)

// BenchmarkRoundTrip measures one request and its reply through the whole
// chain (framing, cancellation, dispatcher, registry) over an in-process pipe.
func BenchmarkRoundTrip(b *testing.B) {
	for _, f := range []struct {
		name    string
		framing servertest.Framing
	}{{"header", servertest.Header}, {"ndjson", servertest.NDJSON}} {
		b.Run(f.name, func(b *testing.B) {
			c, _ := servertest.Pipe(b, newServer(false), f.framing)
			ctx := context.Background()
			params := map[string]any{"uri": "file:///w/a.kt", "line": 10}
			b.ReportAllocs()
			for b.Loop() {
				var out map[string]any
				if err := c.Call(ctx, "test/echo", params, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
