package servertest

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
)

// FileURI returns the file:// URI of an absolute path.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// InitializeResult is the part of the initialize result tests look at.
type InitializeResult struct {
	Capabilities struct {
		PositionEncoding string                     `json:"positionEncoding"`
		TextDocumentSync json.RawMessage            `json:"textDocumentSync"`
		Experimental     map[string]json.RawMessage `json:"experimental"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

// Initialize performs initialize and initialized for a workspace at root with
// the given client capabilities (nil for a minimal client).
func (c *Client) Initialize(ctx context.Context, root string, capabilities map[string]any) (*InitializeResult, error) {
	return c.InitializeWith(ctx, root, capabilities, nil)
}

// InitializeWith is Initialize sending options, when not nil, as the
// initializationOptions.
func (c *Client) InitializeWith(ctx context.Context, root string, capabilities map[string]any, options any) (*InitializeResult, error) {
	if capabilities == nil {
		capabilities = map[string]any{}
	}
	params := map[string]any{"processId": nil, "capabilities": capabilities}
	if options != nil {
		params["initializationOptions"] = options
	}
	if root != "" {
		params["rootUri"] = FileURI(root)
		params["workspaceFolders"] = []map[string]string{{"uri": FileURI(root), "name": filepath.Base(root)}}
	} else {
		params["rootUri"] = nil
	}
	var res InitializeResult
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return nil, err
	}
	return &res, c.Notify("initialized", map[string]any{})
}

// DidOpen opens a document.
func (c *Client) DidOpen(uri, languageID string, version int, text string) error {
	return c.Notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": languageID, "version": version, "text": text},
	})
}

// DidChangeRange replaces a range (0-based line/character) of an open document.
func (c *Client) DidChangeRange(uri string, version, startLine, startChar, endLine, endChar int, text string) error {
	rng := map[string]any{
		"start": map[string]int{"line": startLine, "character": startChar},
		"end":   map[string]int{"line": endLine, "character": endChar},
	}
	return c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"range": rng, "text": text}},
	})
}

// Shutdown sends shutdown then exit.
func (c *Client) Shutdown(ctx context.Context) error {
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		return err
	}
	return c.Notify("exit", nil)
}
