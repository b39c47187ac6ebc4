package kast

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeLargeGoWorkspace generates packages p0…p(packages-1) of files small
// Go files each, every function calling functions of the next two
// packages: thousands of files, many cross-package references.
func writeLargeGoWorkspace(t *testing.T, root string, packages, files int) {
	t.Helper()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/large\n")
	for i := range packages {
		next, after := (i+1)%packages, (i+2)%packages
		for j := range files {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%d\n\nimport (\n\t\"example.com/large/p%d\"\n\t\"example.com/large/p%d\"\n)\n\n", i, next, after)
			fmt.Fprintf(&b, "type T%d struct{ n int }\n\n", j)
			fmt.Fprintf(&b, "func F%d() int { return p%d.F%d() + p%d.F%d() + G%d() }\n\n", j, next, (j+1)%files, after, j, j)
			fmt.Fprintf(&b, "func G%d() int { var t T%d; return t.n + len(p%d.H%d()) }\n\n", j, j, next, j)
			fmt.Fprintf(&b, "func H%d() string { return \"p%d\" }\n", j, i)
			write(fmt.Sprintf("p%d/f%d.go", i, j), b.String())
		}
	}
}

// A database/metrics request cancelled while its reference graph is being
// built answers REQUEST_CANCELLED, and the build does not go on: the graph
// engine observes the cancellation. The build is caught mid-way by the
// progress hook, which holds it until the request's context is done.
func TestKastMetricsCancelled(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeLargeGoWorkspace(t, root, 40, 50)

	started := make(chan struct{})
	var mu sync.Mutex
	calls, callsAfterCancel := 0, 0
	graphBuildProgress = func(ctx context.Context, done, total int) {
		mu.Lock()
		calls++
		first := calls == 1
		if ctx.Err() != nil {
			callsAfterCancel++
		}
		mu.Unlock()
		if first {
			close(started)
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second): // the test fails below rather than hang
			}
		}
	}
	t.Cleanup(func() { graphBuildProgress = nil })

	e := serveKast(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id := json.RawMessage(`"metrics-1"`)
	answer := make(chan error, 1)
	go func() {
		m, err := e.c.CallID(ctx, id, "database/metrics", map[string]any{"metric": "deadCode", "limit": 100000})
		switch {
		case err != nil:
			answer <- err
		case m.Error == nil:
			answer <- fmt.Errorf("the cancelled request succeeded: %.200s", m.Result)
		case m.Error.Code != -32800 || m.Error.DataCode() != "REQUEST_CANCELLED":
			answer <- fmt.Errorf("got error %v %s, want -32800 REQUEST_CANCELLED", m.Error, m.Error.Data)
		default:
			answer <- nil
		}
	}()
	select {
	case <-started: // indexed, and the graph build is under way
	case err := <-answer:
		t.Fatalf("answered before the graph build started: %v", err)
	case <-ctx.Done():
		t.Fatal("the graph build never started")
	}
	if err := e.c.Cancel(id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answer:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer 10 s after $/cancelRequest: the build did not stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if callsAfterCancel > 0 {
		t.Errorf("the build went on for %d more files after its request was cancelled", callsAfterCancel)
	}

	// The daemon still answers.
	var health map[string]any
	e.ok("health", map[string]any{}, &health)
}
