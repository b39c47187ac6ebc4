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

// TestACPNodeClient runs testdata/acp/node/acp-session.mjs: the official ACP
// SDK client (@agentclientprotocol/sdk, pinned with its lockfile) against
// `kast acp` and a loopback model. It needs node and `npm ci --prefix
// testdata/acp/node`; without them it skips, except under CI, which
// installs both (.ci/run).
func TestACPNodeClient(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "acp", "node")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node or the ACP SDK is missing (.ci/run runs npm ci --prefix testdata/acp/node): %v", err)
		}
		t.Skipf("node or the ACP SDK is missing (npm ci --prefix testdata/acp/node): %v", err)
	}
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"KAST_PROVIDER=moonshot", "MOONSHOT_API_KEY=sk-moonshot-test-123456", "KAST_MODEL=",
		"KAST_BASE_URL="+acpNodeModel(t), "KAST_BIN="+kastBin, "ACP_WORKSPACE="+ws)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "acp-session.mjs")
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// acpNodeModel plays the script's model: a write, its answer, a second
// write, its answer, then a stream that stalls until abandoned.
func acpNodeModel(t *testing.T) string {
	var mu sync.Mutex
	n := 0
	write := func(w http.ResponseWriter, id, content string) {
		args := fmt.Sprintf(`{"path":"hello.txt","content":%q}`, content)
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":%q,\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":%q}}]},\"index\":0}]}\n\n", id, args)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\",\"index\":0}]}\n\ndata: [DONE]\n\n")
	}
	text := func(w http.ResponseWriter, s string) {
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q},\"index\":0}]}\n\ndata: [DONE]\n\n", s)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		step := n
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch step {
		case 1:
			write(w, "c1", "hello from ACP\n")
		case 2:
			text(w, "Written.")
		case 3:
			write(w, "c2", "changed\n")
		case 4:
			text(w, "Not changed.")
		default:
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"working...\"},\"index\":0}]}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
