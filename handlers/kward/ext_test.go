// Why one long file: the Kward extension tests share one scripted provider,
// one config writer and one client; each test reads top to bottom as a
// user's session. Tests that fit a transcript live in testdata/kward.

package kward_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// fixture reads a recorded provider reply from the shared reference data,
// next to the repository; without it the test is skipped, or fails in CI.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	dir := servertest.Shared(t, "reference/agent-protocols/kward-provider-fixtures")
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tapClient serves the Kward profile in-process and records every byte the
// server writes, so tests can search the whole wire for secrets.
func tapClient(t *testing.T) (*servertest.Client, *bytes.Buffer) {
	entry := handlers.KwardRPC(handlers.NewProcess(host.New(host.Options{})))
	srv := server.New(entry.Options("test", nil))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	conn := srv.Serve(context.Background(), pipeRWC{sr, sw, func() error { sr.Close(); return sw.Close() }})
	var mu sync.Mutex
	wire := &bytes.Buffer{}
	c := servertest.Dial(t, pipeRWC{io.TeeReader(cr, lockedBuf{&mu, wire}), cw, func() error { cw.Close(); <-conn.Done(); return nil }}, servertest.Header)
	t.Cleanup(func() { c.Close() })
	return c, wire
}

type pipeRWC struct {
	io.Reader
	io.Writer
	close func() error
}

func (p pipeRWC) Close() error { return p.close() }

type lockedBuf struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// recordingServer is a loopback chat-completions endpoint that plays one
// handler per request and keeps the request bodies.
type recordingServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newRecordingServer(t *testing.T, replies ...func(w http.ResponseWriter, r *http.Request)) *recordingServer {
	rs := &recordingServer{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rs.mu.Lock()
		rs.bodies = append(rs.bodies, string(body))
		h := replies[0]
		if len(replies) > 1 {
			replies = replies[1:]
		}
		rs.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *recordingServer) body(i int) string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if i < 0 {
		i += len(rs.bodies)
	}
	if i < 0 || i >= len(rs.bodies) {
		return ""
	}
	return rs.bodies[i]
}

// streamToolCall answers with one streamed tool call.
func streamToolCall(id, name, args string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":%q,\"type\":\"function\",\"function\":{\"name\":%q,\"arguments\":%q}}]},\"index\":0}]}\n\n", id, name, args)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\",\"index\":0}]}\n\ndata: [DONE]\n\n")
	}
}

func status(code int, body []byte) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write(body)
	}
}

func writeConfig(t *testing.T, cfg map[string]any) {
	t.Helper()
	if _, err := agent.UpdateConfig(agent.ConfigPath(os.Getenv), cfg); err != nil {
		t.Fatal(err)
	}
}

func rpcCode(t *testing.T, err error) (int64, string) {
	t.Helper()
	rpcErr, ok := err.(*servertest.RPCError)
	if !ok {
		t.Fatalf("want an RPC error, got %v", err)
	}
	return rpcErr.Code, rpcErr.DataCode()
}

func mustCall(t *testing.T, c *servertest.Client, method string, params, result any) {
	t.Helper()
	if err := c.Call(ctxT(t), method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func newSession(t *testing.T, c *servertest.Client, workspace string) session {
	var s session
	mustCall(t, c, "sessions/create", map[string]any{"workspaceRoot": workspace}, &s)
	return s
}

func runTurn(t *testing.T, c *servertest.Client, sessionID, input string, extra map[string]any) []event {
	t.Helper()
	params := map[string]any{"sessionId": sessionID, "input": input}
	for k, v := range extra {
		params[k] = v
	}
	var tr turn
	mustCall(t, c, "turns/start", params, &tr)
	return followTurn(t, c, tr.ID)
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestKwardRedaction(t *testing.T) {
	unauthorized := fixture(t, "openai/unauthorized.json")
	azureErr := fixture(t, "azure_openai/error.json")
	api := newRecordingServer(t, status(401, unauthorized))
	azure := newRecordingServer(t, status(401, azureErr))
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("KAST_PROVIDER", "openai")
	t.Setenv("KAST_BASE_URL", api.URL)
	t.Setenv("KAST_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "fixture-secret")
	t.Setenv("KAST_LOGGING", "1")
	writeConfig(t, map[string]any{"providers": map[string]any{"azure": map[string]any{"baseUrl": azure.URL, "apiKey": "azure-fixture-key", "model": "gpt"}}})
	c, wire := tapClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, t.TempDir())
	evs := runTurn(t, c, s.ID, "hello", nil)
	if last := evs[len(evs)-1]; last.Payload["status"] != "failed" || !strings.Contains(fmt.Sprint(last.Payload["error"]), "[REDACTED]") {
		t.Fatalf("401 turn: %v", last.Payload)
	}
	t.Setenv("KAST_PROVIDER", "azure")
	t.Setenv("KAST_BASE_URL", "")
	evs = runTurn(t, c, s.ID, "hello again", nil)
	if last := evs[len(evs)-1]; last.Payload["status"] != "failed" {
		t.Fatalf("azure turn: %v", last.Payload)
	}
	var cfg struct {
		Config map[string]any `json:"config"`
	}
	mustCall(t, c, "config/read", map[string]any{}, &cfg)
	if fmt.Sprint(cfg.Config["providers"]) != "map[azure:map[apiKey:[REDACTED] baseUrl:"+azure.URL+" model:gpt]]" {
		t.Fatalf("config/read %v", cfg.Config)
	}
	mustCall(t, c, "config/update", map[string]any{"values": map[string]any{"providers": map[string]any{"other": map[string]any{"apiKey": "sk-other-secret-123456"}}}}, nil)
	mustCall(t, c, "auth/loginWithApiKey", map[string]any{"providerId": "openrouter", "apiKey": "or-fixture-secret-key"}, nil)
	mustCall(t, c, "memory/enable", nil, nil)
	var mem struct {
		Memory map[string]any `json:"memory"`
	}
	mustCall(t, c, "memory/add", map[string]any{"text": "the key is fixture-secret and azure-fixture-key"}, &mem)
	err := c.Call(ctx, "memory/forget", map[string]any{"id": "fixture-secret"}, nil)
	if code, _ := rpcCode(t, err); code != -32602 {
		t.Fatalf("forget unknown: %v", err)
	}
	var stats map[string]any
	mustCall(t, c, "runtime/stats", map[string]any{"sessionId": s.ID}, &stats)
	var log map[string]any
	mustCall(t, c, "logging/stats", map[string]any{"range": "1 day"}, &log)
	if log["errors"].(map[string]any)["byCode"].(map[string]any)["PROVIDER_ERROR"].(float64) != 2 {
		t.Fatalf("logging/stats %v", log)
	}

	secrets := []string{"fixture-secret", "azure-fixture-key", "sk-other-secret-123456", "or-fixture-secret-key"}
	for _, secret := range secrets {
		if strings.Contains(wire.String(), secret) {
			t.Errorf("the wire carries %q", secret)
		}
	}
	// No file kast writes holds a secret, except the two stores meant for
	// them, which are private.
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		if base := filepath.Base(path); base == "config.json" || base == "auth.json" {
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s mode %v", path, fi.Mode().Perm())
			}
			return nil
		}
		data, _ := os.ReadFile(path)
		for _, secret := range secrets {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds %q", path, secret)
			}
		}
		return nil
	})
	logs, _ := filepath.Glob(filepath.Join(dir, "data", "kast", "logs", "*.jsonl"))
	if len(logs) != 1 || fileMode(t, logs[0]) != 0o600 {
		t.Fatalf("telemetry logs %v", logs)
	}
}

func TestKwardMemory(t *testing.T) {
	dataDir := kwardEnv(t, "")
	c := kwardClient(t)
	ctx := ctxT(t)
	var st struct {
		Enabled     bool              `json:"enabled"`
		AutoSummary bool              `json:"autoSummary"`
		Paths       map[string]string `json:"paths"`
	}
	mustCall(t, c, "memory/status", nil, &st)
	if st.Enabled || st.AutoSummary || st.Paths["core"] != filepath.Join(dataDir, "kast", "memory", "core.json") {
		t.Fatalf("status %+v", st)
	}
	mustCall(t, c, "memory/enable", nil, nil)
	mustCall(t, c, "memory/autoSummary/enable", nil, nil)
	mustCall(t, c, "memory/status", nil, &st)
	if !st.Enabled || !st.AutoSummary {
		t.Fatalf("status after enable %+v", st)
	}
	for _, p := range st.Paths {
		if fileMode(t, p) != 0o600 {
			t.Fatalf("%s is not 0600", p)
		}
	}
	if err := c.Call(ctx, "memory/add", map[string]any{"scope": "global"}, nil); err == nil {
		t.Fatal("memory/add without text succeeded")
	}
	if err := c.Call(ctx, "memory/add", map[string]any{"text": "x", "scope": "team"}, nil); err == nil {
		t.Fatal("memory/add with a bad scope succeeded")
	}
	var soft, core struct {
		Memory map[string]any `json:"memory"`
	}
	mustCall(t, c, "memory/add", map[string]any{"text": "Prefers table-driven tests", "tags": []string{"go"}}, &soft)
	mustCall(t, c, "memory/addCore", map[string]any{"text": "Never push to main"}, &core)
	if soft.Memory["id"] != "soft_001" || soft.Memory["confidence"].(float64) != 0.65 || core.Memory["id"] != "core_001" || core.Memory["pinned"] != true {
		t.Fatalf("added %v %v", soft.Memory, core.Memory)
	}
	var promoted struct {
		Memory map[string]any `json:"memory"`
	}
	mustCall(t, c, "memory/promote", map[string]any{"id": "soft_001"}, &promoted)
	if promoted.Memory["id"] != "core_002" || promoted.Memory["source"] != "promoted_soft_memory" {
		t.Fatalf("promote %v", promoted.Memory)
	}
	mustCall(t, c, "memory/add", map[string]any{"text": "Uses sqlite for the cache"}, nil)
	var forgot map[string]any
	mustCall(t, c, "memory/forget", map[string]any{"id": "soft_002"}, &forgot)
	mustCall(t, c, "memory/forget", map[string]any{"id": "core_001"}, nil)
	var list struct {
		Core []map[string]any `json:"core"`
		Soft []map[string]any `json:"soft"`
	}
	mustCall(t, c, "memory/list", nil, &list)
	if forgot["forgotten"] != true || len(list.Core) != 1 || len(list.Soft) != 0 {
		t.Fatalf("list %+v", list)
	}
	mustCall(t, c, "memory/list", map[string]any{"includeInactive": true}, &list)
	if len(list.Soft) != 2 || list.Soft[1]["text"] != "[REDACTED]" || list.Soft[1]["status"] != "forgotten" || list.Soft[1]["hits"].(float64) != 0 {
		t.Fatalf("inactive list %+v", list.Soft)
	}
	softFile, _ := os.ReadFile(st.Paths["soft"])
	events, _ := os.ReadFile(st.Paths["events"])
	if strings.Contains(string(softFile), "sqlite") || strings.Contains(string(events), "sqlite") || !strings.Contains(string(events), `"type":"promote"`) {
		t.Fatalf("soft.jsonl:\n%s\nevents.jsonl:\n%s", softFile, events)
	}

	// Retrieval goes into interactive turns; auto-summary infers from them.
	api := newRecordingServer(t, streamText("Noted."))
	t.Setenv("KAST_PROVIDER", "openai")
	t.Setenv("KAST_BASE_URL", api.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test-key-123456")
	s := newSession(t, c, t.TempDir())
	runTurn(t, c, s.ID, "I prefer small commits in this repo", nil)
	if !strings.Contains(api.body(0), "Never push to main") && !strings.Contains(api.body(0), "table-driven") {
		t.Fatalf("memory not injected: %s", api.body(0))
	}
	var why struct {
		Core    []map[string]any `json:"core"`
		Reasons []map[string]any `json:"reasons"`
	}
	mustCall(t, c, "memory/why", map[string]any{"sessionId": s.ID}, &why)
	if len(why.Core) != 1 || len(why.Reasons) != 1 {
		t.Fatalf("why %+v", why)
	}
	mustCall(t, c, "memory/list", nil, &list)
	if len(list.Soft) != 1 || list.Soft[0]["source"] != "inferred" || !strings.Contains(list.Soft[0]["text"].(string), "small commits") {
		t.Fatalf("auto-summary %+v", list.Soft)
	}
	mustCall(t, c, "memory/disable", nil, nil)
	var inspect map[string]any
	mustCall(t, c, "memory/inspect", nil, &inspect)
	if inspect["enabled"] != false || len(inspect["soft"].([]any)) != 3 {
		t.Fatalf("inspect %v", inspect)
	}
}

func TestKwardModelsConfigLogging(t *testing.T) {
	kwardEnv(t, "")
	t.Setenv("KAST_PROVIDER", "openai")
	t.Setenv("OPENAI_API_KEY", "sk-test-key-123456")
	c := kwardClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, t.TempDir())
	var cur map[string]any
	mustCall(t, c, "models/set", map[string]any{"model": "gpt-5"}, &cur)
	if cur["id"] != "gpt-5" || cur["provider"] != "openai" || cur["contextWindow"].(float64) != 400000 {
		t.Fatalf("models/set %v", cur)
	}
	mustCall(t, c, "reasoning/set", map[string]any{"effort": "high"}, &cur)
	if cur["reasoningEffort"] != "high" {
		t.Fatalf("reasoning/set %v", cur)
	}
	if code, _ := rpcCode(t, c.Call(ctx, "reasoning/set", map[string]any{"effort": "max"}, nil)); code != -32602 {
		t.Fatal("bad effort accepted")
	}
	var list struct {
		Models []map[string]any `json:"models"`
	}
	mustCall(t, c, "models/list", nil, &list)
	currents := 0
	for _, m := range list.Models {
		if m["current"] == true {
			currents++
		}
	}
	if currents != 1 || len(list.Models) < 5 {
		t.Fatalf("models/list %v", list.Models)
	}
	t.Setenv("KAST_PROVIDER", "")
	mustCall(t, c, "runtime/updateSetting", map[string]any{"sessionId": s.ID, "settingId": "defaultModel", "value": "openrouter/anthropic/claude-sonnet-4.5"}, nil)
	if code, _ := rpcCode(t, c.Call(ctx, "runtime/updateSetting", map[string]any{"sessionId": s.ID, "settingId": "theme", "value": "x"}, nil)); code != -32602 {
		t.Fatal("unknown setting accepted")
	}
	mustCall(t, c, "runtime/updateSetting", map[string]any{"sessionId": s.ID, "settingId": "defaultThinkingLevel", "value": "off"}, nil)
	raw, _ := agent.ReadConfigMap(agent.ConfigPath(os.Getenv))
	if raw["provider"] != "openrouter" || raw["model"] != "anthropic/claude-sonnet-4.5" || raw["reasoningEffort"] != nil {
		t.Fatalf("config after settings %v", raw)
	}
	if fileMode(t, agent.ConfigPath(os.Getenv)) != 0o600 {
		t.Fatal("config file not 0600")
	}
	var reload map[string]any
	mustCall(t, c, "runtime/reload", map[string]any{"sessionId": s.ID}, &reload)
	if reload["ok"] != true {
		t.Fatalf("reload %v", reload)
	}
	if code, _ := rpcCode(t, c.Call(ctx, "config/update", map[string]any{}, nil)); code != -32602 {
		t.Fatal("empty config/update accepted")
	}
	if code, _ := rpcCode(t, c.Call(ctx, "config/update", map[string]any{"values": map[string]any{"memory": "yes"}}, nil)); code != -32602 {
		t.Fatal("ill-typed config/update accepted")
	}

	// OpenRouter catalog: offline with no cache is a clear error; fetched
	// once it is served from the cache.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	writeConfig(t, map[string]any{"providers": map[string]any{"openrouter": map[string]any{"baseUrl": dead.URL}}})
	err := c.Call(ctx, "openrouter/catalog", nil, nil)
	if _, data := rpcCode(t, err); data != "CATALOG_UNAVAILABLE" || !strings.Contains(err.Error(), "cannot fetch the OpenRouter model catalog") {
		t.Fatalf("offline catalog: %v", err)
	}
	catalog := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[{"id":"x/model-a","name":"Model A","context_length":32000,"supported_parameters":["reasoning"]}]}`)
	})
	writeConfig(t, map[string]any{"providers": map[string]any{"openrouter": map[string]any{"baseUrl": catalog.URL}}})
	for range 2 {
		mustCall(t, c, "openrouter/catalog", nil, &list)
	}
	if len(list.Models) != 1 || list.Models[0]["id"] != "x/model-a" || list.Models[0]["reasoning"] != true || len(catalog.bodies) != 1 {
		t.Fatalf("catalog %v after %d fetches", list.Models, len(catalog.bodies))
	}

	// Logging: disabled is an error; a bad range is invalid params with usage.
	if code, data := rpcCode(t, c.Call(ctx, "logging/stats", nil, nil)); code != -32603 || data != "LOGGING_DISABLED" {
		t.Fatal("logging/stats while disabled")
	}
	writeConfig(t, map[string]any{"logging": map[string]any{"enabled": true}})
	mustCall(t, c, "runtime/reload", map[string]any{"sessionId": s.ID}, nil)
	err = c.Call(ctx, "logging/stats", map[string]any{"range": "3 fortnights"}, nil)
	if code, _ := rpcCode(t, err); code != -32602 || !strings.Contains(err.Error(), "minutes, hours, days, weeks, months or years") {
		t.Fatalf("bad range: %v", err)
	}
	var stats map[string]any
	mustCall(t, c, "logging/stats", map[string]any{"range": "2 months"}, &stats)
	if stats["range"] != "2 months" || len(stats["categories"].([]any)) != 4 {
		t.Fatalf("logging/stats %v", stats)
	}
}

func TestParseRange(t *testing.T) {
	now := time.Date(2026, 3, 18, 15, 30, 0, 0, time.UTC) // a Wednesday
	for in, want := range map[string]time.Time{
		"10 minutes": now.Add(-10 * time.Minute),
		"1 day":      time.Date(2026, 3, 18, 0, 0, 0, 0, time.UTC),
		"2 days":     time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC),
		"1 week":     time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC),
		"1 month":    time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		"2 months":   time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		"1 year":     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := agent.ParseRange(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseRange(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "week", "0 days", "2 fortnights", "-1 day"} {
		if _, err := agent.ParseRange(bad, now); err == nil {
			t.Errorf("ParseRange(%q) accepted", bad)
		}
	}
}

func TestKwardCommandsAndPrompts(t *testing.T) {
	api := newRecordingServer(t, streamText("Planned."))
	kwardEnv(t, api.URL)
	workspace := t.TempDir()
	userDir := filepath.Dir(agent.ConfigPath(os.Getenv))
	files := map[string]string{
		filepath.Join(workspace, ".kast", "prompts", "plan.md"):            "---\ndescription: Plan a change\n---\nMake a plan for: $ARGUMENTS",
		filepath.Join(userDir, "prompts", "review.md"):                     "Review the diff carefully.",
		filepath.Join(workspace, ".kast", "skills", "release", "SKILL.md"): "---\nname: release\ndescription: Cut a release\n---\nRun the release checklist.",
		filepath.Join(userDir, "plugins", "hello.json"):                    `{"name":"hello","description":"Say hello","command":["echo","hello from plugin"]}`,
		filepath.Join(workspace, "AGENTS.md"):                              "Always run go vet.",
	}
	for path, text := range files {
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.WriteFile(path, []byte(text), 0o600)
	}
	c := kwardClient(t)
	ctx := ctxT(t)
	s := newSession(t, c, workspace)
	var cmds struct {
		Commands []map[string]any `json:"commands"`
	}
	mustCall(t, c, "commands/list", map[string]any{"sessionId": s.ID}, &cmds)
	var names []string
	for _, cmd := range cmds.Commands {
		names = append(names, fmt.Sprint(cmd["name"], "/", cmd["source"], "/", cmd["executable"]))
	}
	if strings.Join(names, ",") != "plan/prompt/false,review/prompt/false,skill:release/skill/false,hello/plugin/true" {
		t.Fatalf("commands %v", names)
	}
	var expanded map[string]any
	mustCall(t, c, "prompts/expand", map[string]any{"command": "/plan", "arguments": "fix the bug", "sessionId": s.ID}, &expanded)
	if expanded["text"] != "Make a plan for: fix the bug" {
		t.Fatalf("expand %v", expanded)
	}
	if _, data := rpcCode(t, c.Call(ctx, "prompts/expand", map[string]any{"command": "nope"}, nil)); data != "PROMPT_NOT_FOUND" {
		t.Fatal("unknown prompt expanded")
	}
	var startup struct {
		Sections []struct {
			Name  string           `json:"name"`
			Items []map[string]any `json:"items"`
		} `json:"sections"`
	}
	mustCall(t, c, "resources/startup", map[string]any{"sessionId": s.ID}, &startup)
	if len(startup.Sections) != 4 || startup.Sections[0].Items[0]["path"] != filepath.Join(workspace, "AGENTS.md") {
		t.Fatalf("startup %+v", startup)
	}
	var run map[string]any
	mustCall(t, c, "commands/run", map[string]any{"sessionId": s.ID, "name": "hello", "arguments": "world"}, &run)
	if run["result"] != "hello from plugin world\n" {
		t.Fatalf("commands/run %v", run)
	}

	// A prompt slash command expands before the model sees it; AGENTS.md
	// joins the system prompt; the fork text is what the user typed.
	runTurn(t, c, s.ID, "/plan fix the bug", nil)
	if body := api.body(0); !strings.Contains(body, "Make a plan for: fix the bug") || !strings.Contains(body, "Always run go vet.") {
		t.Fatalf("expanded turn request: %s", body)
	}
	var fm struct {
		Messages []struct{ EntryID, Text string } `json:"messages"`
	}
	mustCall(t, c, "sessions/forkMessages", map[string]any{"sessionId": s.ID}, &fm)
	if fm.Messages[0].Text != "/plan fix the bug" {
		t.Fatalf("fork text %+v", fm)
	}
	// A plugin slash command answers without the model; unknown ones stay literal.
	evs := runTurn(t, c, s.ID, "/hello there", nil)
	if types(evs) != "turnQueued,turnStarted,assistantDelta,assistantMessage,answer,turnFinished" || evs[4].Payload["content"] != "hello from plugin there\n" {
		t.Fatalf("plugin turn %s %v", types(evs), evs[4].Payload)
	}
	runTurn(t, c, s.ID, "/unknown thing", nil)
	if len(api.bodies) != 2 || !strings.Contains(api.body(1), "/unknown thing") {
		t.Fatalf("requests %d, last %s", len(api.bodies), api.body(-1))
	}
}
