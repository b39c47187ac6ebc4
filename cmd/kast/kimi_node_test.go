package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestKimiNodeClients runs testdata/kimi/node/clients.mjs: a copy of the
// Kimi IDE extension's WireClient logic against `kast kimi --wire-stdio`
// and a kimi-cli wire client against `kast kimi --wire`, each against its
// own loopback Moonshot endpoint. It needs node (no npm packages).
func TestKimiNodeClients(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed; .ci/run installs it")
		}
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	env := append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"KAST_PROVIDER=moonshot", "MOONSHOT_API_KEY=sk-moonshot-test-123456", "KAST_MODEL=", "KAST_BASE_URL=",
		"KAST_BIN="+kastBin)
	for _, w := range []struct{ name, content string }{{"IDE", "hello from the IDE wire\n"}, {"WIRE", "hello from kimi-cli's wire\n"}} {
		ws := filepath.Join(dir, w.name)
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		args := fmt.Sprintf(`{"path":"hello.txt","content":%q}`, w.content)
		env = append(env, "KIMI_"+w.name+"_WORKSPACE="+ws, "KIMI_"+w.name+"_MODEL_URL="+nodeModel(t, args))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "testdata", "kimi", "node", "clients.mjs"))
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// nodeModel is a loopback chat-completions endpoint: a write_file call,
// then a short answer, then a stream that stalls until abandoned.
func nodeModel(t *testing.T, writeArgs string) string {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		step := n
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch step {
		case 1:
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":%q}}]},\"index\":0}]}\n\n", writeArgs)
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\",\"index\":0}]}\n\ndata: [DONE]\n\n")
		case 2:
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Written.\"},\"index\":0}]}\n\ndata: [DONE]\n\n")
		default:
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"working...\"},\"index\":0}]}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
