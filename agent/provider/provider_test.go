package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/provider"
)

// fixtureDir holds Kward's recorded provider streams, outside the repository.
const fixtureDir = "../../../shared/reference/agent-protocols/kward-provider-fixtures"

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if errors.Is(err, os.ErrNotExist) {
		// Developers without the shared folder skip; CI (.ci/run) has it.
		if os.Getenv("CI") != "" {
			t.Fatalf("provider fixture %s is absent in CI (expected at %s)", name, fixtureDir)
		}
		t.Skipf("provider fixture %s is absent (expected at %s)", name, fixtureDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// reply is one scripted HTTP response.
type reply struct {
	status int
	body   []byte
}

func sse(body []byte) reply { return reply{status: 200, body: body} }

// fakeAPI is a loopback model server that plays replies in order (the last
// one repeats) and records the request bodies and paths.
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	bodies  []map[string]any
	paths   []string
	auth    []string
}

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	f := &fakeAPI{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.paths = append(f.paths, r.URL.Path)
		f.auth = append(f.auth, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		rep := f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
		f.mu.Unlock()
		if rep.status == 200 {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rep.status)
		w.Write(rep.body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func newProvider(t *testing.T, api, baseURL, key string) agent.Provider {
	t.Helper()
	p, err := provider.New(agent.Resolved{Name: "test-" + api, API: api, BaseURL: baseURL, Model: "test-model", APIKey: key}, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var readFileTool = agent.ToolSpec{Name: "read_file", Description: "Read a file.", Parameters: map[string]any{
	"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"},
}}

func request() *agent.ModelRequest {
	return &agent.ModelRequest{System: "be brief", Messages: []agent.Message{{Role: agent.RoleUser, Text: "hi"}}, Tools: []agent.ToolSpec{readFileTool}}
}

// collect streams req and returns the response and the text deltas.
func collect(t *testing.T, p agent.Provider, req *agent.ModelRequest) (*agent.ModelResponse, []string, []string, error) {
	var text, reasoning []string
	resp, err := p.Stream(context.Background(), req, agent.DeltaSink{
		Text:      func(d string) { text = append(text, d) },
		Reasoning: func(d string) { reasoning = append(reasoning, d) },
	})
	return resp, text, reasoning, err
}

func TestChatCompletionsText(t *testing.T) {
	api := newFakeAPI(t, sse(fixture(t, "azure_openai/text.sse")))
	resp, deltas, _, err := collect(t, newProvider(t, agent.APIChat, api.URL+"/v1", "azure-fixture-key"), request())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "Hello |from Azure." || resp.Text != "Hello from Azure." {
		t.Fatalf("deltas %q, text %q", deltas, resp.Text)
	}
	if resp.Usage != (agent.Usage{InputTokens: 12, OutputTokens: 3, TotalTokens: 15}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	body := api.bodies[0]
	if api.paths[0] != "/v1/chat/completions" || body["model"] != "test-model" || body["stream"] != true {
		t.Fatalf("request %s %v", api.paths[0], body)
	}
	msgs := body["messages"].([]any)
	if msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "hi" {
		t.Fatalf("messages %v", msgs)
	}
	if tools := body["tools"].([]any); tools[0].(map[string]any)["function"].(map[string]any)["name"] != "read_file" {
		t.Fatalf("tools %v", tools)
	}
	if api.auth[0] != "Bearer azure-fixture-key" {
		t.Fatalf("auth header %q", api.auth[0])
	}
}

func TestChatCompletionsToolCalls(t *testing.T) {
	api := newFakeAPI(t, sse(fixture(t, "azure_openai/tools.sse")))
	resp, _, _, err := collect(t, newProvider(t, agent.APIChat, api.URL, "k"), request())
	if err != nil {
		t.Fatal(err)
	}
	want := agent.ToolCall{ID: "call_azure", Name: "read_file", Arguments: `{"path":"README.md"}`}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != want {
		t.Fatalf("tool calls %+v", resp.ToolCalls)
	}
}

func TestChatCompletionsUnauthorized(t *testing.T) {
	api := newFakeAPI(t, reply{401, fixture(t, "azure_openai/error.json")})
	_, _, _, err := collect(t, newProvider(t, agent.APIChat, api.URL, "azure-fixture-key"), request())
	var perr *agent.ProviderError
	if !errors.As(err, &perr) || perr.Status != 401 || perr.Transient {
		t.Fatalf("error %#v", err)
	}
	if strings.Contains(err.Error(), "azure-fixture-key") || !strings.Contains(err.Error(), "Invalid API key") {
		t.Fatalf("error message not redacted or unclear: %v", err)
	}
}

func TestResponsesText(t *testing.T) {
	api := newFakeAPI(t, sse(fixture(t, "openai/text.sse")))
	resp, deltas, _, err := collect(t, newProvider(t, agent.APIResponses, api.URL, "k"), request())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "Hello |captain." || resp.Usage.TotalTokens != 15 || resp.Usage.InputTokens != 11 {
		t.Fatalf("deltas %q usage %+v", deltas, resp.Usage)
	}
	body := api.bodies[0]
	if api.paths[0] != "/responses" || body["store"] != false || body["instructions"] != "be brief" {
		t.Fatalf("request %s %v", api.paths[0], body)
	}
}

func TestResponsesToolCalls(t *testing.T) {
	api := newFakeAPI(t, sse(fixture(t, "openai/tools.sse")))
	resp, _, _, err := collect(t, newProvider(t, agent.APIResponses, api.URL, "k"), request())
	if err != nil {
		t.Fatal(err)
	}
	want := agent.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"README.md"}`}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != want || resp.Usage.TotalTokens != 14 {
		t.Fatalf("tool calls %+v usage %+v", resp.ToolCalls, resp.Usage)
	}
	// The call and its output go back as function_call items.
	req := request()
	req.Messages = append(req.Messages,
		agent.Message{Role: agent.RoleAssistant, ToolCalls: resp.ToolCalls},
		agent.Message{Role: agent.RoleTool, ToolCallID: "call_1", Name: "read_file", Text: "# Readme"})
	collect(t, newProvider(t, agent.APIResponses, api.URL, "k"), req)
	input, _ := json.Marshal(api.bodies[1]["input"])
	for _, want := range []string{`"type":"function_call"`, `"call_id":"call_1"`, `"type":"function_call_output"`, `"output":"# Readme"`} {
		if !strings.Contains(string(input), want) {
			t.Fatalf("input lacks %s: %s", want, input)
		}
	}
}

func TestResponsesUnauthorizedIsRedacted(t *testing.T) {
	api := newFakeAPI(t, reply{401, fixture(t, "openai/unauthorized.json")})
	_, _, _, err := collect(t, newProvider(t, agent.APIResponses, api.URL, "fixture-secret"), request())
	var perr *agent.ProviderError
	if !errors.As(err, &perr) || perr.Status != 401 || perr.Transient {
		t.Fatalf("error %#v", err)
	}
	if strings.Contains(err.Error(), "fixture-secret") || !strings.Contains(err.Error(), "Invalid credential") {
		t.Fatalf("message: %v", err)
	}
}

func TestAnthropicText(t *testing.T) {
	api := newFakeAPI(t, sse(testdata(t, "anthropic_text.sse")))
	resp, deltas, reasoning, err := collect(t, newProvider(t, agent.APIAnthropic, api.URL, "ak"), request())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "Hello |from Claude." || strings.Join(reasoning, "") != "Greet back." {
		t.Fatalf("deltas %q reasoning %q", deltas, reasoning)
	}
	if resp.Usage != (agent.Usage{InputTokens: 12, OutputTokens: 6, TotalTokens: 18}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	body := api.bodies[0]
	if api.paths[0] != "/v1/messages" || body["max_tokens"] == nil || api.auth[0] != "ak" {
		t.Fatalf("request %s %v auth %q", api.paths[0], body, api.auth[0])
	}
}

func TestAnthropicToolCalls(t *testing.T) {
	api := newFakeAPI(t, sse(testdata(t, "anthropic_tools.sse")))
	resp, _, _, err := collect(t, newProvider(t, agent.APIAnthropic, api.URL, "ak"), request())
	if err != nil {
		t.Fatal(err)
	}
	want := agent.ToolCall{ID: "toolu_01", Name: "read_file", Arguments: `{"path":"README.md"}`}
	if resp.Text != "Reading it." || len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != want {
		t.Fatalf("response %+v", resp)
	}
	// Tool results travel back as a user turn holding tool_result blocks.
	req := request()
	req.Messages = append(req.Messages,
		agent.Message{Role: agent.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls},
		agent.Message{Role: agent.RoleTool, ToolCallID: "toolu_01", Text: "# Readme"})
	collect(t, newProvider(t, agent.APIAnthropic, api.URL, "ak"), req)
	msgs, _ := json.Marshal(api.bodies[1]["messages"])
	for _, want := range []string{`"type":"tool_use"`, `"id":"toolu_01"`, `"type":"tool_result"`, `"tool_use_id":"toolu_01"`} {
		if !strings.Contains(string(msgs), want) {
			t.Fatalf("messages lack %s: %s", want, msgs)
		}
	}
}

// runTurn runs one turn of a session on p and returns its events.
func runTurn(t *testing.T, p agent.Provider, tools agent.Toolset, workspace string) (*agent.Turn, []agent.Event) {
	t.Helper()
	var mu sync.Mutex
	var events []agent.Event
	s := agent.NewSession(agent.SessionOptions{
		Workspace:   workspace,
		Provider:    func() (agent.Provider, error) { return p, nil },
		Tools:       tools,
		RetryDelays: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		Sink: func(ev agent.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		},
	})
	t.Cleanup(s.Close)
	turn, err := s.Start(agent.Input{Text: "hello"}, "")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-turn.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("turn did not finish")
	}
	mu.Lock()
	defer mu.Unlock()
	return turn, append([]agent.Event(nil), events...)
}

func TestRateLimitIsRetried(t *testing.T) {
	api := newFakeAPI(t, reply{429, fixture(t, "openai/rate_limit.json")}, sse(fixture(t, "openai/text.sse")))
	turn, events := runTurn(t, newProvider(t, agent.APIResponses, api.URL, "k"), nil, t.TempDir())
	if turn.Info().Status != agent.StatusCompleted || api.requests() != 2 {
		t.Fatalf("turn %+v after %d requests", turn.Info(), api.requests())
	}
	var retries []*agent.RetryInfo
	for _, ev := range events {
		if ev.Kind == agent.EventRetry {
			retries = append(retries, ev.Retry)
		}
	}
	if len(retries) != 1 || retries[0].Attempt != 2 || retries[0].MaxAttempts != 3 ||
		retries[0].Model != "test-model" || !strings.Contains(retries[0].Error, "Rate limit exceeded") {
		t.Fatalf("retries %+v", retries)
	}
}

func TestServerErrorFailsAfterRetries(t *testing.T) {
	api := newFakeAPI(t, reply{500, fixture(t, "openai/server_error.json")})
	turn, events := runTurn(t, newProvider(t, agent.APIChat, api.URL, "k"), nil, t.TempDir())
	info := turn.Info()
	if info.Status != agent.StatusFailed || !strings.Contains(info.Err.Message, "Temporary upstream failure") || api.requests() != 3 {
		t.Fatalf("turn %+v after %d requests", info, api.requests())
	}
	retries := 0
	for _, ev := range events {
		if ev.Kind == agent.EventRetry {
			retries++
		}
	}
	if retries != 2 || events[len(events)-2].Kind != agent.EventError {
		t.Fatalf("%d retries; last events %v %v", retries, events[len(events)-2].Kind, events[len(events)-1].Kind)
	}
}

func TestUnauthorizedFailsWithoutRetry(t *testing.T) {
	api := newFakeAPI(t, reply{401, fixture(t, "openai/unauthorized.json")})
	turn, _ := runTurn(t, newProvider(t, agent.APIResponses, api.URL, "fixture-secret"), nil, t.TempDir())
	info := turn.Info()
	if info.Status != agent.StatusFailed || api.requests() != 1 || strings.Contains(info.Err.Message, "fixture-secret") {
		t.Fatalf("turn %+v after %d requests", info, api.requests())
	}
}

func TestIdleStreamTimesOut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"index\":0}]}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence
	}))
	defer srv.Close()
	p, _ := provider.New(agent.Resolved{Name: "idle", API: agent.APIChat, BaseURL: srv.URL, Model: "m", APIKey: "k"},
		provider.Options{IdleTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, _, _, err := collect(t, p, request())
	var perr *agent.ProviderError
	if !errors.As(err, &perr) || !perr.Transient || !strings.Contains(err.Error(), "no data") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("idle timeout took %v", d)
	}
}

func TestCancelClosesTheStream(t *testing.T) {
	var closed atomic.Bool
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"index\":0}]}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		closed.Store(true)
		close(gone)
	}))
	defer srv.Close()
	p := newProvider(t, agent.APIChat, srv.URL, "k")
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := p.Stream(ctx, request(), agent.DeltaSink{Text: func(string) { cancel() }})
		got <- err
	}()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
	if !closed.Load() {
		t.Fatal("stream not closed")
	}
}

// reasoning/set's effort reaches OpenAI's chat and Responses requests, and
// is left out when none is set.
func TestReasoningEffortIsSent(t *testing.T) {
	for _, tc := range []struct {
		api     string
		fixture string
		effort  func(body map[string]any) any
	}{
		{agent.APIChat, "azure_openai/text.sse", func(b map[string]any) any { return b["reasoning_effort"] }},
		{agent.APIResponses, "openai/text.sse", func(b map[string]any) any {
			r, _ := b["reasoning"].(map[string]any)
			return r["effort"]
		}},
	} {
		for _, effort := range []string{"high", ""} {
			api := newFakeAPI(t, sse(fixture(t, tc.fixture)))
			p, err := provider.New(agent.Resolved{Name: "test", API: tc.api, BaseURL: api.URL + "/v1", Model: "test-model", APIKey: "k", ReasoningEffort: effort}, provider.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := collect(t, p, request()); err != nil {
				t.Fatal(err)
			}
			got := tc.effort(api.bodies[0])
			if (effort == "" && got != nil) || (effort != "" && got != effort) {
				t.Errorf("%s with effort %q sent %v", tc.api, effort, got)
			}
		}
	}
}
