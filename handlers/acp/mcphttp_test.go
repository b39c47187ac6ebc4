package acp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpMCPServer serves a streamable-HTTP MCP server (the official Go SDK)
// on loopback: a notes store with a read-only tool (read_notes) and one
// that changes it (add_note). It answers only requests carrying the header
// X-Notes-Token: secret, so a transcript shows the client's headers reach
// it.
func httpMCPServer(t *testing.T) string {
	var mu sync.Mutex
	notes := []string{"buy milk"}
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	type noteArgs struct {
		Text string `json:"text" jsonschema:"the note"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "read_notes", Description: "List the notes.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "notes: " + strings.Join(notes, "; ")}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "add_note", Description: "Add a note."},
		func(ctx context.Context, req *mcp.CallToolRequest, args noteArgs) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, args.Text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added: " + args.Text}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Notes-Token") != "secret" {
			http.Error(w, "missing token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}
