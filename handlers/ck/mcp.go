package ck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/server"
)

// NewMCPService returns the service of `kast mcp`: tool paths must lie
// under one of roots, each an existing directory.
func NewMCPService(h *host.Host, roots []string) (*Service, error) {
	svc := &Service{Engine: h.Search, Version: h.Version, IndexWait: DefaultIndexWait}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("root %s is not a directory", r)
		}
		svc.Roots = append(svc.Roots, abs)
	}
	return svc, nil
}

// NewMCPServer registers the ck tools on an MCP server (the official Go SDK).
// Tool failures that are the caller's (bad arguments, cursor, path) are
// JSON-RPC errors, as in ck.
func NewMCPServer(svc *Service) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "kast code search (ck-compatible)", Version: svc.Version},
		&mcp.ServerOptions{Instructions: "Code search over the workspace: regex_search for exact patterns, lexical_search for keywords, semantic_search and hybrid_search for descriptions. Results page with next_cursor; indexing happens on first use and is reported apart from search time."})
	for _, t := range Tools() {
		name := t.Name
		srv.AddTool(&mcp.Tool{Name: name, Description: t.Description, InputSchema: t.InputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var progress Progress
				if token := req.Params.GetProgressToken(); token != nil {
					progress = func(p search.Progress) {
						if p.Stage == "scan" {
							return
						}
						_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
							Message: p.Stage, Progress: float64(p.Done), Total: float64(p.Total)})
					}
				}
				res, err := svc.Call(ctx, name, req.Params.Arguments, progress)
				if err != nil {
					e := ErrorOf(err)
					return nil, &jsonrpc.Error{Code: int64(e.Code), Message: e.Message}
				}
				structured, _ := json.Marshal(res.JSON)
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: res.Text}, &mcp.TextContent{Text: string(structured)}},
					StructuredContent: json.RawMessage(structured),
					IsError:           res.IsError,
				}, nil
			})
	}
	return srv
}

// mcpInitWait bounds how long the guard holds the lines after initialize
// back while it waits for initialize's response (see mcpGuard.Read).
const mcpInitWait = 30 * time.Second

// StdioTransport is the transport of `kast mcp`: the SDK's newline-delimited
// JSON over in and out, behind a guard. The SDK's connection ends on the
// first line it cannot take (bad JSON, a line over its limit, a malformed
// batch, a batch where the negotiated version forbids them); the guard
// answers such lines itself with a JSON-RPC error carrying error.data.code,
// as kast's other transports do, and forwards only what the SDK accepts, so
// the session stays up. A line over maxLine bytes (<= 0: the transport's
// frame limit) is discarded while it is read and answered FRAME_TOO_LARGE.
func StdioTransport(in io.ReadCloser, out io.WriteCloser, maxLine int) mcp.Transport {
	if maxLine <= 0 {
		maxLine = server.DefaultMaxFrame
	}
	g := &mcpGuard{in: bufio.NewReaderSize(in, 64<<10), closer: in, limit: maxLine, batched: map[string]bool{}}
	g.out = &mcpWriter{w: out, g: g}
	return &mcp.IOTransport{Reader: g, Writer: g.out, MaxLineLength: -1}
}

// mcpGuard reads the client's lines and hands the SDK only the well-formed.
type mcpGuard struct {
	in      *bufio.Reader
	closer  io.Closer
	limit   int
	out     *mcpWriter
	pending []byte // the rest of the line being handed over

	mu       sync.Mutex
	version  string          // negotiated protocol version, once initialize is answered
	initID   string          // key of the initialize awaiting its response
	initDone chan struct{}   // closed when that response is written
	batched  map[string]bool // ids of batched requests not yet answered
}

// mcpBatchesEnd is the first protocol version without JSON-RPC batches; the
// SDK compares versions as strings too.
const mcpBatchesEnd = "2025-06-18"

func (g *mcpGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		// The SDK learns the negotiated version while answering initialize;
		// holding the next lines back until then makes the guard's view of
		// batches the SDK's.
		g.mu.Lock()
		done := g.initDone
		g.mu.Unlock()
		if done != nil {
			select {
			case <-done:
			case <-time.After(mcpInitWait):
			}
		}
		line, size, err := server.ReadLine(g.in, g.limit)
		if errors.Is(err, server.ErrFrameTooLarge) {
			g.out.reject(server.SniffID(line), jsonrpc.CodeInvalidRequest, "FRAME_TOO_LARGE",
				fmt.Sprintf("message of %d bytes exceeds the %d byte limit and was discarded", size, g.limit))
			continue
		}
		if err != nil {
			return 0, err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 && g.admit(line) {
			g.pending = append(line, '\n')
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

func (g *mcpGuard) Close() error { return g.closer.Close() }

// admit reports whether the SDK can take line, answering it otherwise.
func (g *mcpGuard) admit(line []byte) bool {
	if !json.Valid(line) {
		g.out.reject(server.SniffID(line), jsonrpc.CodeParseError, server.CodeParseError, "message is not valid JSON")
		return false
	}
	if line[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			g.out.reject(server.SniffID(line), jsonrpc.CodeInvalidRequest, server.CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())
			return false
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" && req.ID.IsValid() {
			g.mu.Lock()
			g.initID, g.initDone = idKey(req.ID), make(chan struct{})
			g.mu.Unlock()
		}
		return true
	}
	if reason := g.admitBatch(line); reason != "" {
		g.out.reject(nil, jsonrpc.CodeInvalidRequest, server.CodeInvalidRequest, reason)
		return false
	}
	return true
}

// admitBatch returns why the SDK would refuse a batch, or "" after noting
// its requests' ids.
func (g *mcpGuard) admitBatch(line []byte) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.version >= mcpBatchesEnd {
		return fmt.Sprintf("JSON-RPC batches are not supported in protocol version %s", g.version)
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(line, &raws)
	if len(raws) == 0 {
		return "empty batch"
	}
	ids := map[string]bool{}
	for i, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return fmt.Sprintf("batch element %d is not a JSON-RPC 2.0 message: %v", i, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			// The SDK refuses a batch that repeats an id, or reuses one
			// of an earlier batch still running.
			key := idKey(req.ID)
			if ids[key] || g.batched[key] {
				return fmt.Sprintf("batch repeats the id %v of a request still running", req.ID.Raw())
			}
			ids[key] = true
		}
	}
	for key := range ids {
		g.batched[key] = true
	}
	return ""
}

// written notes, before the client can see it, what a line the SDK writes
// settles: the initialize response carries the negotiated version, and a
// batch response ends its requests.
func (g *mcpGuard) written(line []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.initDone != nil {
		if msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line)); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok && idKey(resp.ID) == g.initID {
				var result struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if resp.Error == nil && json.Unmarshal(resp.Result, &result) == nil {
					g.version = result.ProtocolVersion
				}
				close(g.initDone)
				g.initDone, g.initID = nil, ""
			}
		}
	}
	if len(g.batched) > 0 && bytes.HasPrefix(line, []byte("[")) {
		var raws []json.RawMessage
		_ = json.Unmarshal(line, &raws)
		for _, raw := range raws {
			if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
				if resp, ok := msg.(*jsonrpc.Response); ok {
					delete(g.batched, idKey(resp.ID))
				}
			}
		}
	}
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// mcpWriter serialises the SDK's lines and the guard's error replies, and
// replaces any invalid UTF-8 in them.
type mcpWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
	g  *mcpGuard
}

func (w *mcpWriter) Write(p []byte) (int, error) {
	w.g.written(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(server.ValidUTF8(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *mcpWriter) Close() error { return w.w.Close() }

func (w *mcpWriter) reject(id json.RawMessage, code int64, dataCode, message string) {
	if _, err := w.Write(append(server.ErrorReply(id, code, dataCode, message), '\n')); err != nil {
		slog.Warn("mcp: writing an error reply failed", "err", err)
	}
}
