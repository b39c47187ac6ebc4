package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/server"
)

// Every NDJSON entry point of the built binary reads a line longer than
// the frame limit without holding it, answers it FRAME_TOO_LARGE with its
// id, and goes on serving the same connection.
func TestNDJSONEntryPointsLineLimit(t *testing.T) {
	root, _ := kastWorkspace(t)
	mcpRoot, _ := searchWorkspace(t)
	entries := []struct {
		name   string
		args   []string
		follow string // a request that the entry answers once it is past the long line
	}{
		{"serve", []string{"serve", "--stdio", "--workspace", root},
			`{"jsonrpc":"2.0","id":2,"method":"health","params":{}}`},
		{"kimi-wire-stdio", []string{"kimi", "--wire-stdio"},
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{"kimi-wire", []string{"kimi", "--wire", "--work-dir", root},
			`{"jsonrpc":"2.0","id":"2","method":"initialize","params":{"protocol_version":"1.10"}}`},
		{"acp", []string{"acp"},
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`},
		{"mcp", []string{"mcp", "--root", mcpRoot},
			`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`},
	}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			home := t.TempDir()
			cmd := kastCmd(t, e.args...)
			cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home+"/data", "XDG_CACHE_HOME="+home+"/cache",
				"XDG_CONFIG_HOME="+home+"/config", "XDG_STATE_HOME="+home+"/state", "KAST_PROVIDER=", "KAST_EMBEDDER=")
			cmd.Dir = root
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			replies := make(chan []byte, 16)
			go func() {
				defer close(replies)
				r := bufio.NewReader(stdout)
				for {
					line, err := r.ReadBytes('\n')
					if err != nil {
						return
					}
					replies <- line
				}
			}()
			next := func(what string) map[string]any {
				t.Helper()
				for {
					select {
					case b, ok := <-replies:
						if !ok {
							t.Fatalf("kast %s exited before answering %s", e.name, what)
						}
						var m map[string]any
						if err := json.Unmarshal(b, &m); err != nil {
							t.Fatalf("stdout line %q: %v", b, err)
						}
						if _, isReply := m["id"]; !isReply {
							continue // a notification
						}
						return m
					case <-time.After(60 * time.Second): // detects a hang only
						t.Fatalf("no reply to %s", what)
					}
				}
			}

			w := bufio.NewWriterSize(stdin, 1<<20)
			head := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"`
			pad := strings.Repeat("x", 1<<20)
			written := len(head)
			fmt.Fprint(w, head)
			for written <= server.DefaultMaxFrame {
				fmt.Fprint(w, pad)
				written += len(pad)
			}
			fmt.Fprint(w, `"}}`+"\n")
			if err := w.Flush(); err != nil {
				t.Fatalf("kast stopped reading the long line: %v", err)
			}
			m := next("the long line")
			data, _ := m["error"].(map[string]any)
			if d, _ := data["data"].(map[string]any); m["id"] != "big" || d["code"] != "FRAME_TOO_LARGE" {
				t.Fatalf("the %d-byte line was answered %v", written, m)
			}

			if _, err := io.WriteString(stdin, e.follow+"\n"); err != nil {
				t.Fatal(err)
			}
			m = next("the request after it")
			if id := fmt.Sprint(m["id"]); id != "2" || m["result"] == nil {
				t.Fatalf("after the long line: %v", m)
			}
			stdin.Close()
			if code := waitExit(t, cmd); code != 0 {
				t.Errorf("exit %d at the end of the input", code)
			}
		})
	}
}
