package kaiak_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server"
)

// Latency with ten sessions at once against the loopback migration model,
// each on its own connection and its own copy of the Java fixture, each
// round every session sending kaiak/fix/generate at the same moment:
//
//   - accept: from sending fix/generate to its "processing" reply
//     (spec target: < 2 s);
//   - first stream: from sending it to the request's first stream
//     notification (target, stream latency: < 500 ms);
//   - proposal shown: from sending it to the approval user_interaction of
//     the model's edit (target: < 1 s).
//
// The proposal is rejected, so every round starts from the same files.
// `make bench-kaiak` (and `make bench`) run the benchmark and print p50/p95
// beside the targets; TestLatencyTargets holds the targets.

const benchSessions = 10

// targets are the spec's.
var targets = map[string]time.Duration{"accept": 2 * time.Second, "first stream": 500 * time.Millisecond, "proposal shown": time.Second}

// stamped is a client that notes when each notification arrived.
type stamped struct {
	conn jsonrpc2.Conn
	mu   sync.Mutex
	got  map[string]time.Time // request id + " " + method → first arrival
	wake chan struct{}
	ids  map[string]string // request id → the latest interaction id
}

func dialStamped(tb testing.TB, srv *server.Server) *stamped {
	a, b := net.Pipe()
	srv.Serve(context.Background(), a)
	s := &stamped{conn: jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b)), got: map[string]time.Time{}, wake: make(chan struct{}), ids: map[string]string{}}
	s.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		now := time.Now()
		var p struct {
			RequestID     string `json:"request_id"`
			InteractionID string `json:"interaction_id"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		s.mu.Lock()
		key := p.RequestID + " " + req.Method()
		if _, seen := s.got[key]; !seen {
			s.got[key] = now
		}
		if first := p.RequestID + " first"; s.got[first].IsZero() {
			s.got[first] = now
		}
		if p.InteractionID != "" {
			s.ids[p.RequestID] = p.InteractionID
		}
		close(s.wake)
		s.wake = make(chan struct{})
		s.mu.Unlock()
		return nil, nil
	})
	tb.Cleanup(func() { s.conn.Close(); a.Close() })
	return s
}

// await returns when the request's notification of method arrived.
func (s *stamped) await(tb testing.TB, requestID, method string) time.Time {
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		at, wake := s.got[requestID+" "+method], s.wake
		s.mu.Unlock()
		if !at.IsZero() {
			return at
		}
		select {
		case <-wake:
		case <-deadline:
			tb.Fatalf("no %s for %s", method, requestID)
		}
	}
}

// latencies are the samples of each measure.
type latencies map[string][]time.Duration

// measure runs rounds of ten simultaneous fix requests.
func measure(tb testing.TB, rounds int, reset func()) latencies {
	model := kaiaktest.NewMigrationModel(tb)
	kaiaktest.Env(tb, model.URL)
	h := host.New(host.Options{})
	tb.Cleanup(h.Close)
	srv := server.New(handlers.KaiakRPC(handlers.NewProcess(h)).Options("bench", nil))
	ctx := context.Background()
	type sess struct {
		c  *stamped
		id string
	}
	var all []sess
	for range benchSessions {
		ws := kaiaktest.Fixture(tb, "java")
		c := dialStamped(tb, srv)
		var res map[string]any
		if _, err := c.conn.Call(ctx, "kaiak/session/create", map[string]any{"workspace_path": ws}, &res); err != nil {
			tb.Fatal(err)
		}
		all = append(all, sess{c, res["session_id"].(string)})
	}
	incident := []any{map[string]any{"id": "javax-1", "rule_id": "javax-to-jakarta-import-00001", "file_path": orderJava,
		"line_number": 3, "severity": "error", "message": "Replace javax.persistence", "category": "mandatory"}}
	out := latencies{}
	var mu sync.Mutex
	if reset != nil {
		reset()
	}
	for range rounds {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, s := range all {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				var res map[string]any
				if _, err := s.c.conn.Call(ctx, "kaiak/fix/generate", map[string]any{"session_id": s.id, "incidents": incident}, &res); err != nil {
					tb.Error(err)
					return
				}
				accepted := time.Since(t0)
				req := res["request_id"].(string)
				first := s.c.await(tb, req, "first").Sub(t0)
				shown := s.c.await(tb, req, "kaiak/stream/user_interaction").Sub(t0)
				s.c.mu.Lock()
				interaction := s.c.ids[req]
				s.c.mu.Unlock()
				if _, err := s.c.conn.Call(ctx, "kaiak/interaction/respond", map[string]any{"interaction_id": interaction,
					"response_type": "approval", "response_data": map[string]any{"approved": false}}, nil); err != nil {
					tb.Error(err)
				}
				s.c.await(tb, req, "kaiak/stream/system")
				mu.Lock()
				out["accept"] = append(out["accept"], accepted)
				out["first stream"] = append(out["first stream"], first)
				out["proposal shown"] = append(out["proposal shown"], shown)
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
	}
	return out
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// report is the table of figures beside the targets.
func (l latencies) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Kaiak, %d sessions at once against the loopback model (%d requests):\n", benchSessions, len(l["accept"]))
	fmt.Fprintf(&b, "  %-15s %9s %9s %9s   %s\n", "measure", "p50", "p95", "max", "target")
	for _, m := range []string{"accept", "first stream", "proposal shown"} {
		fmt.Fprintf(&b, "  %-15s %9s %9s %9s   < %s\n", m, percentile(l[m], 0.5).Round(time.Microsecond), percentile(l[m], 0.95).Round(time.Microsecond),
			slices.Max(l[m]).Round(time.Microsecond), targets[m])
	}
	return b.String()
}

func BenchmarkKaiakTenSessions(b *testing.B) {
	l := measure(b, b.N, b.ResetTimer)
	b.StopTimer()
	for _, m := range []string{"accept", "first stream", "proposal shown"} {
		b.ReportMetric(float64(percentile(l[m], 0.5).Microseconds())/1000, strings.ReplaceAll(m, " ", "-")+"-p50-ms")
		b.ReportMetric(float64(percentile(l[m], 0.95).Microseconds())/1000, strings.ReplaceAll(m, " ", "-")+"-p95-ms")
	}
	b.Log("\n" + l.report())
}

// The spec's latency targets hold with ten sessions at once (p95).
func TestLatencyTargets(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures latency: not in -short mode nor under the race detector (make bench reports the figures)")
	}
	l := measure(t, 3, nil)
	t.Log("\n" + l.report())
	for m, target := range targets {
		if p := percentile(l[m], 0.95); p >= target {
			t.Errorf("%s p95 %s, target < %s", m, p, target)
		}
	}
}
