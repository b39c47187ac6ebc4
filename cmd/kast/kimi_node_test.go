package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent/agenttest"
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
		env = append(env, "KIMI_"+w.name+"_WORKSPACE="+ws, "KIMI_"+w.name+"_MODEL_URL="+nodeModel(t, w.content))
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
func nodeModel(t *testing.T, content string) string {
	return agenttest.ScriptedModel(t, modelScript(t,
		writeCall("c1", content), map[string]any{"text": []string{"Written."}}, map[string]any{"stall": true}))
}

// writeCall is a scripted model's reply that writes hello.txt.
func writeCall(id, content string) map[string]any {
	args, _ := json.Marshal(map[string]string{"path": "hello.txt", "content": content})
	return map[string]any{"toolCall": map[string]string{"id": id, "name": "write_file", "arguments": string(args)}}
}

// modelScript is agenttest.ScriptedModel's script: one reply per line.
func modelScript(t *testing.T, replies ...map[string]any) []byte {
	var b bytes.Buffer
	for _, r := range replies {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return b.Bytes()
}
