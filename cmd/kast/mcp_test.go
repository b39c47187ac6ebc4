package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/handlers/ck"
)

type mcpFixture struct {
	dir      string
	session  *mcp.ClientSession
	clock    *time.Time
	mu       *sync.Mutex
	progress *[]float64
}

// connectMCP serves the ck tools over the SDK's in-memory transport and
// connects the SDK's own client.
func connectMCP(t *testing.T) mcpFixture {
	t.Helper()
	dir, _ := searchWorkspace(t)
	h := host.New(host.Options{Embedder: search.NewHashed(), InMemory: true})
	t.Cleanup(h.Close)
	svc, err := ck.NewMCPService(h, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var mu sync.Mutex
	svc.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var progress []float64
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := ck.NewMCPServer(svc).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params.Progress)
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return mcpFixture{dir: dir, session: cs, clock: &now, mu: &mu, progress: &progress}
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		t.Fatalf("%s: tool error %v", name, res.Content)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%s: %d content items, want text and JSON", name, len(res.Content))
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, nil
}

func TestMCPInitializeAndToolsList(t *testing.T) {
	f := connectMCP(t)
	init := f.session.InitializeResult()
	if init.ServerInfo.Name != "kast-ck" || init.Capabilities.Tools == nil {
		t.Fatalf("initialize = %+v", init)
	}
	tools, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type       string                    `json:"type"`
			Required   []string                  `json:"required"`
			Properties map[string]map[string]any `json:"properties"`
		}
		json.Unmarshal(b, &schema)
		if schema.Type != "object" {
			t.Errorf("%s: schema type %q", tool.Name, schema.Type)
		}
		for p, s := range schema.Properties {
			if _, ok := s["type"].(string); !ok {
				t.Errorf("%s.%s: type %v is not a single type", tool.Name, p, s["type"])
			}
		}
		switch tool.Name {
		case "semantic_search", "lexical_search", "hybrid_search":
			if !slices.Equal(schema.Required, []string{"query", "path"}) || schema.Properties["top_k"]["type"] != "integer" ||
				schema.Properties["page_size"] == nil || schema.Properties["snippet_length"] == nil || schema.Properties["context_lines"] == nil {
				t.Errorf("%s schema = %s", tool.Name, b)
			}
		case "regex_search":
			if !slices.Equal(schema.Required, []string{"pattern", "path"}) || schema.Properties["ignore_case"]["type"] != "boolean" || schema.Properties["context"] == nil {
				t.Errorf("regex_search schema = %s", b)
			}
		}
	}
	slices.Sort(names)
	want := []string{"default_ckignore", "health_check", "hybrid_search", "index_status", "lexical_search", "regex_search", "reindex", "semantic_search"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v", names)
	}
}

func TestMCPEveryTool(t *testing.T) {
	f := connectMCP(t)
	cs := f.session
	out, _ := call(t, cs, "health_check", map[string]any{})
	if out["status"] != "healthy" {
		t.Fatalf("health_check = %v", out)
	}
	// The first search indexes, with progress, and reports it apart.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "regex_search", Meta: mcp.Meta{"progressToken": "p1"},
		Arguments: map[string]any{"pattern": `func \w+Config`, "path": f.dir}})
	if err != nil {
		t.Fatal(err)
	}
	var rx map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &rx)
	matches := rx["results"].(map[string]any)["matches"].([]any)
	first := matches[0].(map[string]any)
	if len(matches) != 1 || first["file"].(map[string]any)["path"] != filepath.Join(f.dir, "pkg", "config.go") ||
		first["match"].(map[string]any)["line_number"] != 6.0 || first["type"] != "regex_match" {
		t.Fatalf("regex_search = %s", b)
	}
	indexing := rx["metadata"].(map[string]any)["indexing"].(map[string]any)
	if indexing["triggered"] != true || indexing["files_indexed"] != 4.0 {
		t.Fatalf("indexing = %v", indexing)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "config.go:6:func ParseConfig") {
		t.Errorf("text = %q", res.Content[0].(*mcp.TextContent).Text)
	}
	f.mu.Lock()
	gotProgress := len(*f.progress)
	f.mu.Unlock()
	if gotProgress == 0 {
		t.Error("no notifications/progress while indexing")
	}

	for tool, want := range map[string]string{"semantic_search": "ParseConfig", "lexical_search": "retry_with_backoff", "hybrid_search": "HTTPServer.HandleRequest"} {
		query := map[string]string{"semantic_search": "parse config", "lexical_search": "retry backoff", "hybrid_search": "handle request"}[tool]
		out, err := call(t, cs, tool, map[string]any{"query": query, "path": f.dir, "top_k": 3})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		ms := out["results"].(map[string]any)["matches"].([]any)
		if len(ms) == 0 {
			t.Fatalf("%s: no matches: %v", tool, out)
		}
		m := ms[0].(map[string]any)["match"].(map[string]any)
		if m["name"] != want || !strings.Contains(m["content"].(string), strings.TrimPrefix(want, "HTTPServer.")) {
			t.Errorf("%s: first match %v, want %s", tool, m, want)
		}
		if out["metadata"].(map[string]any)["indexing"].(map[string]any)["triggered"] != false {
			t.Errorf("%s re-indexed an unchanged tree", tool)
		}
	}
	out, _ = call(t, cs, "index_status", map[string]any{"path": f.dir})
	if out["indexed"] != true || out["file_count"] != 4.0 || out["embedding_model"] != "kast-hashed-v1-256" || out["index_size_bytes"].(float64) <= 0 {
		t.Fatalf("index_status = %v", out)
	}
	out, _ = call(t, cs, "reindex", map[string]any{"path": f.dir})
	if out["status"] != "success" || out["files_indexed"] != 4.0 {
		t.Fatalf("reindex = %v", out)
	}
	out, _ = call(t, cs, "reindex", map[string]any{"path": f.dir, "force": false})
	if out["files_indexed"] != 0.0 {
		t.Fatalf("reindex force=false = %v", out)
	}
}

func rpcCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestMCPPagingAndCursors(t *testing.T) {
	f := connectMCP(t)
	args := map[string]any{"pattern": `func|type|return`, "path": f.dir, "page_size": 3}
	var lines []string
	var cursor string
	for page := 1; page <= 3; page++ {
		if cursor != "" {
			args["cursor"] = cursor
		}
		out, err := call(t, f.session, "regex_search", args)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		r := out["results"].(map[string]any)
		if r["total_count"] != 9.0 || r["count"] != 3.0 || r["has_more"] != (page < 3) {
			t.Fatalf("page %d results = %v", page, r)
		}
		for _, m := range r["matches"].([]any) {
			mm := m.(map[string]any)
			lines = append(lines, mm["file"].(map[string]any)["path"].(string)+":"+mm["match"].(map[string]any)["content"].(string))
		}
		next, _ := out["pagination"].(map[string]any)["next_cursor"].(string)
		if page < 3 && next == "" || page == 3 && next != "" {
			t.Fatalf("page %d next_cursor %q", page, next)
		}
		if page == 2 {
			// A cursor is bound to its query.
			other := map[string]any{"pattern": "func", "path": f.dir, "cursor": next}
			if _, err := call(t, f.session, "regex_search", other); rpcCode(err) != -32602 {
				t.Errorf("cursor reused for another query: %v", err)
			}
			// A forged cursor (offset changed) is rejected.
			raw, _ := base64.StdEncoding.DecodeString(next)
			var c map[string]any
			json.Unmarshal(raw, &c)
			c["offset"] = 0.0
			forged, _ := json.Marshal(c)
			bad := map[string]any{"pattern": args["pattern"], "path": f.dir, "page_size": 3, "cursor": base64.StdEncoding.EncodeToString(forged)}
			if _, err := call(t, f.session, "regex_search", bad); rpcCode(err) != -32602 || !strings.Contains(err.Error(), "invalid cursor") {
				t.Errorf("forged cursor: %v", err)
			}
			bad["cursor"] = "not base64!"
			if _, err := call(t, f.session, "regex_search", bad); rpcCode(err) != -32602 {
				t.Errorf("garbage cursor: %v", err)
			}
		}
		cursor = next
	}
	if len(slices.Compact(slices.Clone(lines))) != 9 {
		t.Fatalf("pages overlap or miss lines: %q", lines)
	}
	// An expired cursor is rejected.
	delete(args, "cursor")
	out, _ := call(t, f.session, "regex_search", args)
	next := out["pagination"].(map[string]any)["next_cursor"].(string)
	f.mu.Lock()
	*f.clock = f.clock.Add(6 * time.Minute)
	f.mu.Unlock()
	args["cursor"] = next
	if _, err := call(t, f.session, "regex_search", args); rpcCode(err) != -32602 || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired cursor: %v", err)
	}
}

func TestMCPRejects(t *testing.T) {
	f := connectMCP(t)
	for name, args := range map[string]map[string]any{
		"outside":          {"pattern": "x", "path": filepath.Dir(f.dir)},
		"escape":           {"pattern": "x", "path": filepath.Join(f.dir, "..", "..")},
		"missing path":     {"pattern": "x"},
		"bad regex":        {"pattern": "[unclosed", "path": f.dir},
		"negative context": {"pattern": "x", "path": f.dir, "context": -1},
	} {
		if _, err := call(t, f.session, "regex_search", args); rpcCode(err) != -32602 {
			t.Errorf("%s: err %v, want invalid params", name, err)
		}
	}
	// Unknown arguments are ignored, as ck's server ignores them.
	if _, err := call(t, f.session, "regex_search", map[string]any{"pattern": "x", "path": f.dir, "bogus": 1}); err != nil {
		t.Errorf("unknown argument: %v", err)
	}
	if _, err := call(t, f.session, "index_status", map[string]any{"path": "/"}); rpcCode(err) != -32602 {
		t.Errorf("index_status outside the roots: %v", err)
	}
}

// TestMCPStdio runs `kast mcp` as a process and talks to it over its stdio
// with the SDK's command transport.
func TestMCPStdio(t *testing.T) {
	dir, env := searchWorkspace(t)
	cmd := kastCmd(t, "mcp", "--root", dir)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out, err := call(t, cs, "lexical_search", map[string]any{"query": "parse config", "path": dir})
	if err != nil {
		t.Fatal(err)
	}
	if n := out["results"].(map[string]any)["total_count"]; n.(float64) < 1 {
		t.Fatalf("lexical_search over stdio = %v", out)
	}
	if _, err := call(t, cs, "regex_search", map[string]any{"pattern": "x", "path": "/etc"}); rpcCode(err) != -32602 {
		t.Fatalf("path outside the root over stdio: %v", err)
	}
}
