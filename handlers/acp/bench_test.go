package acp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// BenchmarkFirstChunk measures the time from sending session/prompt to the
// first agent_message_chunk, against the loopback model.
func BenchmarkFirstChunk(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	b.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	b.Setenv("KAST_PROVIDER", "moonshot")
	b.Setenv("KAST_BASE_URL", scriptedModel(b, []byte(`{"text":["Hi."]}`)))
	b.Setenv("MOONSHOT_API_KEY", "sk-moonshot-test-123456")
	c, root := startServer(b)
	sid := newSession(b, c, root, nil)
	ctx := context.Background()
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		seen := len(c.Notifications("session/update"))
		start := time.Now()
		_, reply := c.Go("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
		err := c.AwaitNotifications(ctx, "session/update", func(ms []*servertest.Message) bool {
			for _, m := range ms[min(seen, len(ms)):] {
				if strings.Contains(string(m.Params), `"agent_message_chunk"`) {
					return true
				}
			}
			return false
		})
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		<-reply
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-chunk")
}

// BenchmarkLoad1000 measures session/load of a stored session of 1,000
// messages (user prompts, tool calls with 4 KB results, answers), replay
// included.
func BenchmarkLoad1000(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	b.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	root, _ := filepath.EvalSymlinks(b.TempDir())
	id := storeSession(b, root, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := host.New(host.Options{})
		srv := server.New(handlers.ACP(handlers.NewProcess(h), acp.Options{Version: "bench"}).Options("bench", nil))
		c, conn := servertest.Pipe(b, srv, servertest.NDJSON)
		call(b, c, "initialize", map[string]any{"protocolVersion": 1})
		call(b, c, "session/load", map[string]any{"sessionId": id, "cwd": root, "mcpServers": []any{}})
		if n := len(c.Notifications("session/update")); n < 1000 {
			b.Fatalf("replayed %d updates", n)
		}
		call(b, c, "session/close", map[string]any{"sessionId": id})
		_ = c.Close()
		<-conn.Done()
		h.Close()
	}
}

// storeSession writes a session file of n messages through the engine's
// own store and returns its id.
func storeSession(b *testing.B, root string, n int) string {
	store := &agent.Store{Dir: filepath.Join(agent.DataDir(os.Getenv), "sessions")}
	log, err := store.Create(agent.Header{Cwd: root})
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	big := strings.Repeat("x", 4<<10)
	for i := 0; i < n; i++ {
		var m agent.Message
		switch i % 4 {
		case 0:
			m = agent.Message{Role: agent.RoleUser, Text: fmt.Sprintf("prompt %d", i)}
		case 1:
			m = agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "read_file", Arguments: `{"path":"a.txt"}`}}}
		case 2:
			m = agent.ToolMessage(agent.ToolCall{ID: fmt.Sprintf("c%d", i-1), Name: "read_file"}, agent.ToolResult{Content: big})
		default:
			m = agent.Message{Role: agent.RoleAssistant, Text: fmt.Sprintf("answer %d", i)}
		}
		m.ID = agent.NewID()
		if _, err := log.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
	return log.Header().ID
}
