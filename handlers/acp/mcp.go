package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// The MCP servers a client passes in session/new (or load, resume): kast
// connects to each with the official MCP Go SDK and offers their tools to
// the model as mcp__<server>__<tool>, run on the server that has them.

// mcpConnectTimeout bounds connecting to one server and listing its tools.
const mcpConnectTimeout = 30 * time.Second

type mcpTools struct {
	mu       sync.Mutex
	sessions []*mcp.ClientSession
	specs    []agent.ToolSpec
	route    map[string]mcpRoute // model tool name → server and tool
	readOnly map[string]bool     // model tool names annotated readOnlyHint
}

type mcpRoute struct {
	session *mcp.ClientSession
	tool    string
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// connectMCP connects to every server. One that cannot be reached (a
// command that does not exist or exits at once, a dead URL) does not fail
// the session: its tools are left out and its warning says why, for the
// user, as Claude Code and Gemini CLI treat a broken server. A malformed
// entry (no command, no url, an unsupported type) is the client's error.
func connectMCP(servers []mcpServer, cwd string) (*mcpTools, []string, error) {
	m := &mcpTools{route: map[string]mcpRoute{}, readOnly: map[string]bool{}}
	for i, srv := range servers {
		if err := srv.check(); err != nil {
			return nil, nil, server.InvalidParams("mcpServers[%d] (%s): %v", i, srv.Name, err)
		}
	}
	// Connected at once, so a slow server costs one timeout, not one each;
	// the tools are offered in the client's order.
	type dialed struct {
		cs    *mcp.ClientSession
		tools []*mcp.Tool
		err   error
	}
	results := make([]dialed, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, tools, err := dial(srv, cwd)
			results[i] = dialed{cs, tools, err}
		}()
	}
	wg.Wait()
	var warnings []string
	for i, r := range results {
		if r.err != nil {
			warnings = append(warnings, fmt.Sprintf("MCP server %q is not available, its tools are left out: %v", servers[i].Name, r.err))
			continue
		}
		m.add(servers[i], r.cs, r.tools)
	}
	return m, warnings, nil
}

// check is what a server entry needs before kast tries it.
func (srv mcpServer) check() error {
	switch srv.Type {
	case "http":
		if srv.URL == "" {
			return fmt.Errorf("an http server needs a url")
		}
	case "", "stdio":
		if srv.Command == "" {
			return fmt.Errorf("a stdio server needs a command")
		}
	default:
		return fmt.Errorf("kast does not connect to %q MCP servers (see mcpCapabilities)", srv.Type)
	}
	if srv.Name == "" {
		return fmt.Errorf("a server needs a name")
	}
	return nil
}

// kind classifies an MCP tool for the approval policy: a tool its server
// marks read-only runs as kast's reading tools do, any other asks. The
// hint is trusted because the user put the server in the editor's config.
func (m *mcpTools) kind(name string) agent.ToolKind {
	if m.readOnly[name] {
		return agent.KindRead
	}
	return agent.KindOther
}

// dial connects to one server and lists its tools, every page of them.
func dial(srv mcpServer, cwd string) (*mcp.ClientSession, []*mcp.Tool, error) {
	var transport mcp.Transport
	if srv.Type == "http" {
		transport = &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: headerTransport{srv.Headers}}}
	} else {
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Dir = cwd
		cmd.Env = os.Environ()
		for _, e := range srv.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
		transport = &mcp.CommandTransport{Command: cmd}
	}
	// Not the request's context: the SDK keeps the connect context for the
	// session's later requests, and the session outlives session/new.
	ctx, cancel := context.WithTimeout(context.Background(), mcpConnectTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "kast", Version: "acp"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, nil, err
	}
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			_ = cs.Close()
			return nil, nil, err
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return cs, tools, nil
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

// add offers a connected server's tools under mcp__<server>__<tool>.
func (m *mcpTools) add(srv mcpServer, cs *mcp.ClientSession, tools []*mcp.Tool) {
	m.sessions = append(m.sessions, cs)
	prefix := "mcp__" + unsafeName.ReplaceAllString(srv.Name, "_") + "__"
	for _, t := range tools {
		name := prefix + unsafeName.ReplaceAllString(t.Name, "_")
		if len(name) > 64 {
			name = name[:64]
		}
		params, _ := toObject(t.InputSchema)
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		m.specs = append(m.specs, agent.ToolSpec{Name: name, Description: t.Description, Parameters: params})
		m.route[name] = mcpRoute{cs, t.Name}
		m.readOnly[name] = t.Annotations != nil && t.Annotations.ReadOnlyHint
	}
}

func toObject(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

type headerTransport struct{ headers []nameValue }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, kv := range h.headers {
		r.Header.Set(kv.Name, kv.Value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// run calls a tool on its server; its text content is the result.
func (m *mcpTools) run(ctx context.Context, call agent.ToolCall) agent.ToolResult {
	route, ok := m.route[call.Name]
	if !ok {
		return agent.ToolResult{Content: "Error: unknown tool " + call.Name, IsError: true}
	}
	var args map[string]any
	if strings.TrimSpace(call.Arguments) != "" {
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
			return agent.ToolResult{Content: "Error: the arguments are not a JSON object: " + err.Error(), IsError: true}
		}
	}
	res, err := route.session.CallTool(ctx, &mcp.CallToolParams{Name: route.tool, Arguments: args})
	if err != nil {
		return agent.ToolResult{Content: "Error: " + err.Error(), IsError: true}
	}
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(b))
	}
	return agent.ToolResult{Content: strings.Join(parts, "\n"), IsError: res.IsError}
}

func (m *mcpTools) close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	sessions := m.sessions
	m.sessions = nil
	m.mu.Unlock()
	for _, cs := range sessions {
		_ = cs.Close()
	}
}

// planTool is the tool through which the model keeps the plan the client
// shows (ACP's plan update); the projection runs it.
const planTool = "update_plan"

var planSpec = agent.ToolSpec{Name: planTool,
	Description: "Show the user your plan for the task as a checklist; send the whole list each time an entry's status changes.",
	Parameters: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"entries"},
		"properties": map[string]any{"entries": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"content", "status"},
			"properties": map[string]any{
				"content":  map[string]any{"type": "string", "description": "What the step does."},
				"priority": map[string]any{"type": "string", "enum": []string{"high", "medium", "low"}},
				"status":   map[string]any{"type": "string", "enum": []string{"pending", "in_progress", "completed"}},
			}}}}}}

// planUpdate is the plan update of an update_plan call's arguments, with
// ACP's defaults for what the model left out or got wrong.
func planUpdate(arguments string) map[string]any {
	var args struct {
		Entries []struct{ Content, Priority, Status string } `json:"entries"`
	}
	_ = json.Unmarshal([]byte(arguments), &args)
	entries := []any{}
	for _, e := range args.Entries {
		if !strings.Contains("high medium low", e.Priority) || e.Priority == "" {
			e.Priority = "medium"
		}
		if !strings.Contains("pending in_progress completed", e.Status) || e.Status == "" {
			e.Status = "pending"
		}
		entries = append(entries, map[string]any{"content": e.Content, "priority": e.Priority, "status": e.Status})
	}
	return map[string]any{"sessionUpdate": "plan", "entries": entries}
}

// external is what a turn offers besides kast's tools: the plan tool and
// the session's MCP tools.
func (ss *session) external() *agent.ExternalTools {
	specs := append([]agent.ToolSpec{planSpec}, ss.mcp.specs...)
	return &agent.ExternalTools{Specs: specs, Run: func(ctx context.Context, call agent.ToolCall) agent.ToolResult {
		if call.Name == planTool {
			return agent.ToolResult{Content: "Plan updated."}
		}
		return ss.mcp.run(ctx, call)
	}, Kind: func(name string) agent.ToolKind {
		if name == planTool {
			return agent.KindRead
		}
		return ss.mcp.kind(name)
	}}
}
