package kaiak

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/provider"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// configuration.timeout bounds a fix request (at least 30 s on the wire;
// shortened here): past it the request stops, says why in a stream error
// and completes with status "timeout".
func TestRequestTimeout(t *testing.T) {
	kaiaktest.Env(t, kaiaktest.NewScript(t, []byte(`{"stall":true}`)).URL)
	rt := agent.NewRuntime(agent.RuntimeOptions{Tools: &tools.Set{},
		NewProvider: func(r agent.Resolved) (agent.Provider, error) { return provider.New(r, provider.Options{}) }})
	svc := New(rt, Options{})
	reg := server.NewRegistry()
	svc.Register(reg)
	c, _ := servertest.Pipe(t, server.New(server.Options{Registry: reg, Profile: svc.Profile(reg)}), servertest.Header)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws := kaiaktest.Fixture(t, "java")
	var created map[string]any
	if err := c.Call(ctx, "kaiak/session/create", map[string]any{"workspace_path": ws, "configuration": map[string]any{"timeout": 30}}, &created); err != nil {
		t.Fatal(err)
	}
	ss := svc.lookup(created["session_id"].(string))
	if ss.cfg.timeout != 30*time.Second {
		t.Fatalf("timeout %v", ss.cfg.timeout)
	}
	ss.cfg.timeout = 300 * time.Millisecond
	var res map[string]any
	if err := c.Call(ctx, "kaiak/fix/generate", map[string]any{"session_id": ss.id, "incidents": []any{map[string]any{
		"id": "i", "rule_id": "r", "file_path": "pom.xml", "line_number": 0, "severity": "info", "message": "m"}}}, &res); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitNotification(ctx, "kaiak/stream/error")
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Content map[string]any `json:"content"`
	}
	_ = json.Unmarshal(m.Params, &e)
	if e.Content["error_code"] != "REQUEST_TIMEOUT" || e.Content["recoverable"] != false {
		t.Fatalf("error %v", e.Content)
	}
	m, err = c.WaitNotification(ctx, "kaiak/stream/system")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(m.Params, &e)
	if e.Content["status"] != "timeout" {
		t.Fatalf("request_completed %v", e.Content)
	}
}
