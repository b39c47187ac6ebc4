package workspace

import (
	"context"
	"testing"
	"time"
)

// Work no client waits on (an opened document's diagnostics) waits for the
// requests reading the session's roots: not at all when none runs, until
// they end (here: until its context ends) while they run, and no longer
// than its bound.
func TestAwaitRequestsGivesWayToRequests(t *testing.T) {
	w := indexedOneFile(t)
	sess := NewSession()
	sess.AddRoot(w)
	await := func(ctx context.Context, most time.Duration) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			sess.AwaitRequests(ctx, most)
			close(done)
		}()
		return done
	}
	returns := func(what string, done <-chan struct{}) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: AwaitRequests did not return", what)
		}
	}

	w.view.queried.Store(0) // the last request read long ago
	returns("no request running", await(context.Background(), time.Hour))

	// A request reads right through the test.
	w.view.queried.Store(time.Now().Add(time.Hour).UnixNano())
	returns("bounded by most", await(context.Background(), 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := await(ctx, time.Hour)
	select {
	case <-done:
		t.Fatal("AwaitRequests returned while a request runs")
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	returns("context ended", done)
}
