// Package server is kast's JSON-RPC transport: framing, the handler chain
// (recover → cancellation → dispatcher → typed registry → standard LSP
// methods), the LSP lifecycle and the server→client helpers. It knows nothing
// of analysis; handlers register methods and implement protocol.Server.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/kast-dev/kast/analysis/document"
)

// Options configures a Server.
type Options struct {
	// Registry holds the custom methods; nil means none.
	Registry *Registry
	// LSP answers the standard LSP methods the registry does not; nil answers
	// them all with -32601.
	LSP protocol.Server
	// Lifecycle enforces the LSP initialize/shutdown/exit order. Profiles that
	// have no LSP handshake (the Kast daemon, MCP) turn it off.
	Lifecycle bool
	// Framing of new connections; FramingAuto decides from the first byte.
	Framing Framing
	// MaxFrame caps a message body in bytes; 0 means DefaultMaxFrame.
	MaxFrame int
	// Name and Version fill InitializeResult.serverInfo.
	Name, Version string
	Logger        *slog.Logger
}

// Server serves one registry to any number of connections.
type Server struct {
	opts Options
	log  *slog.Logger
	// workspace orders exclusive methods against concurrent ones across every
	// connection, since they share one workspace.
	workspace sync.RWMutex
}

// New returns a Server.
func New(opts Options) *Server {
	if opts.Registry == nil {
		opts.Registry = NewRegistry()
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Name == "" {
		opts.Name = "kast"
	}
	return &Server{opts: opts, log: opts.Logger}
}

// Registry returns the server's method registry.
func (s *Server) Registry() *Registry { return s.opts.Registry }

// lifecycle states of a connection.
const (
	stateNew int32 = iota
	stateInitialized
	stateShutdown
	stateExited
)

// Conn is one client connection and its state.
type Conn struct {
	srv      *Server
	rpc      jsonrpc2.Conn
	stream   *Stream
	client   protocol.Client
	docs     *document.Store
	log      *slog.Logger
	state    atomic.Int32
	exitCode atomic.Int32
	progress atomic.Int64  // last server-created progress token number
	exited   chan struct{} // closed by the exit notification

	mu         sync.Mutex
	clientCaps protocol.ClientCapabilities
	encoding   document.Encoding
}

// Serve starts serving rwc and returns at once; wait on Done.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) *Conn {
	c := &Conn{srv: s, docs: document.NewStore(), log: s.log, encoding: document.UTF16, exited: make(chan struct{})}
	c.exitCode.Store(-1)
	c.stream = NewStream(rwc, s.opts.Framing, s.opts.MaxFrame, s.log)
	c.rpc = jsonrpc2.NewConn(c.stream, jsonrpc2.WithCodec(lspCodec{}))
	c.client = protocol.ClientDispatcher(c.rpc)
	if !s.opts.Lifecycle {
		c.state.Store(stateInitialized)
	}
	next := protocol.ServerHandler(lspOrUnimplemented(s.opts.LSP), jsonrpc2.MethodNotFoundHandler)
	handler := c.recover(protocol.CancelHandler(c.dispatch(next)))
	c.rpc.Go(context.WithValue(ctx, connKey{}, c), handler)
	return c
}

func lspOrUnimplemented(s protocol.Server) protocol.Server {
	if s == nil {
		return unimplemented{}
	}
	return s
}

type unimplemented struct{ protocol.UnimplementedServer }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.rpc.Done() }

// Exited is closed when the client sent exit. A process serving stdio should
// then end at once: the read loop may stay blocked on a stdin that the editor
// never closes.
func (c *Conn) Exited() <-chan struct{} { return c.exited }

// Err reports why the connection ended; nil for a clean end of stream.
func (c *Conn) Err() error { return c.rpc.Err() }

// Close ends the connection.
func (c *Conn) Close() error { return c.rpc.Close() }

// ExitCode is the process exit status the LSP spec asks for: 0 after
// shutdown then exit, 1 for an exit (or end of stream) without shutdown.
func (c *Conn) ExitCode() int {
	if code := c.exitCode.Load(); code >= 0 {
		return int(code)
	}
	if c.state.Load() == stateShutdown || !c.srv.opts.Lifecycle {
		return 0
	}
	return 1
}

// Client returns the typed client for server→client messages.
func (c *Conn) Client() protocol.Client { return c.client }

// RPC returns the underlying JSON-RPC connection, for custom notifications.
func (c *Conn) RPC() jsonrpc2.Conn { return c.rpc }

// Documents returns the connection's open documents.
func (c *Conn) Documents() *document.Store { return c.docs }

// Encoding is the negotiated position encoding.
func (c *Conn) Encoding() document.Encoding {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.encoding
}

// ClientCapabilities returns what the client announced in initialize.
func (c *Conn) ClientCapabilities() protocol.ClientCapabilities {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clientCaps
}

// Logger returns the server's logger.
func (c *Conn) Logger() *slog.Logger { return c.log }

type connKey struct{}
type snapshotKey struct{}
type requestIDKey struct{}

// AfterReply runs fn once the reply to ctx's request has been written, for
// work that must not race its own reply (ending the connection or the
// process). Outside a request it runs fn at once.
func AfterReply(ctx context.Context, fn func()) {
	c := ConnOf(ctx)
	id, ok := ctx.Value(requestIDKey{}).(jsonrpc2.ID)
	raw, err := json.Marshal(idValue(id))
	if c == nil || !ok || err != nil {
		go fn()
		return
	}
	c.stream.afterReply.Store(&replyHook{id: raw, fn: fn})
}

// CloseAfterReply ends the connection once the reply to ctx's request has
// been written. Closing from inside the handler would race the reply:
// jsonrpc2 refuses writes once Close has begun.
func CloseAfterReply(ctx context.Context) {
	if c := ConnOf(ctx); c != nil {
		AfterReply(ctx, func() { _ = c.rpc.Close() })
	}
}

func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	s, _ := id.StringValue()
	return s
}

// ConnOf returns the connection serving ctx's request, or nil.
func ConnOf(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

// SnapshotOf returns the documents as they were when the request arrived: for
// concurrent and exclusive methods it was taken before later messages were
// read, so a didChange sent before the request is always visible.
func SnapshotOf(ctx context.Context) *document.Snapshot {
	if s, ok := ctx.Value(snapshotKey{}).(*document.Snapshot); ok {
		return s
	}
	if c := ConnOf(ctx); c != nil {
		return c.docs.Snapshot()
	}
	return nil
}

// recover is the outermost handler: a panic becomes -32603 and a log line,
// never a dead connection, and no error escapes a notification (jsonrpc2
// fails the connection when a notification handler returns one).
func (c *Conn) recover(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		isCall := req.IsCall()
		method := strings.Clone(req.Method())
		start := time.Now()
		defer func() {
			if r := recover(); r != nil {
				c.log.Error("handler panic", "method", method, "panic", r, "stack", string(debug.Stack()))
				result, err = nil, Errorf(jsonrpc2.InternalError, CodeInternalError, "internal error in %s: %v", method, r)
			}
			c.log.Debug("handled", "method", method, "call", isCall, "elapsed", time.Since(start), "err", err)
			if !isCall {
				if err != nil {
					c.log.Warn("notification failed", "method", method, "err", err)
				}
				result, err = nil, nil
			}
		}()
		ctx, cancel := detach(ctx)
		defer cancel()
		if isCall {
			c.stream.unanswered.Add(1)
			ctx = context.WithValue(ctx, requestIDKey{}, req.ID())
		}
		result, err = next(ctx, req)
		return result, wireError(ctx, err)
	}
}

// requestContext is what handlers see instead of jsonrpc2's pooled request
// context. context.WithCancel over the pooled one (protocol.CancelHandler does
// that) starts a goroutine that may touch it after the request is recycled and
// panics; this one is a stdlib cancel context, so no such goroutine exists,
// while the release token for jsonrpc2.Async still comes from the request.
type requestContext struct {
	context.Context
	request context.Context
}

func (c requestContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.request.Value(key)
}

// detach returns a requestContext cancelled when the pooled request context
// is (connection closing, write failure) or when cancel is called.
func detach(request context.Context) (context.Context, context.CancelFunc) {
	done := request.Done() // materialised now, while the request is live
	own, cancel := context.WithCancel(jsonrpc2.DetachContext(request))
	go func() {
		select {
		case <-done:
			cancel()
		case <-own.Done():
		}
	}()
	return requestContext{own, request}, cancel
}

// dispatch enforces the lifecycle and schedules each method by its class.
func (c *Conn) dispatch(lsp jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		if c.srv.opts.Lifecycle {
			switch method {
			case protocol.MethodInitialize:
				return c.initialize(ctx, req)
			case protocol.MethodExit:
				c.exit()
				return nil, nil
			}
			switch c.state.Load() {
			case stateNew:
				if req.IsCall() {
					return nil, Errorf(jsonrpc2.ServerNotInitialized, CodeServerNotInitialized,
						"%s: the server is not initialized; send initialize first", method)
				}
				return nil, nil // notifications before initialize are dropped
			case stateShutdown, stateExited:
				if req.IsCall() {
					return nil, Errorf(jsonrpc2.InvalidRequest, CodeInvalidRequest,
						"%s: the server is shutting down; only exit is accepted", method)
				}
				return nil, nil
			}
			if method == protocol.MethodShutdown {
				return c.shutdown(ctx)
			}
		}

		m, registered := c.srv.opts.Registry.Lookup(method)
		class := standardClass(method, req.IsCall())
		if registered {
			if m.Notification == req.IsCall() {
				if req.IsCall() {
					return nil, Errorf(jsonrpc2.InvalidRequest, CodeInvalidRequest, "%s is a notification, not a request", method)
				}
				return nil, nil
			}
			class = m.Class
		}

		var unlock func()
		if class != Ordered {
			ctx = context.WithValue(ctx, snapshotKey{}, c.docs.Snapshot())
			jsonrpc2.Async(ctx)
			if class == Exclusive {
				c.srv.workspace.Lock()
				unlock = c.srv.workspace.Unlock
			} else {
				c.srv.workspace.RLock()
				unlock = c.srv.workspace.RUnlock
			}
			defer unlock()
		}
		if ctx.Err() != nil {
			return nil, ErrCancelled
		}
		if registered {
			return m.call(ctx, req.Params())
		}
		if !standardMethods[method] {
			if !req.IsCall() {
				return nil, nil // unknown notifications are ignored, as LSP asks
			}
			return nil, Errorf(jsonrpc2.MethodNotFound, CodeMethodNotFound, "method not found: %s", method)
		}
		result, err := lsp(ctx, req)
		if errors.Is(err, jsonrpc2.ErrParse) {
			// The message itself parsed; only its params did not fit the method.
			return nil, InvalidParams("%s: invalid params: %v", method, err)
		}
		return result, err
	}
}

// standardMethods are the LSP methods a client may send to a server.
var standardMethods = func() map[string]bool {
	set := map[string]bool{}
	for _, m := range protocol.Methods {
		if m.Direction != protocol.DirectionServerToClient {
			set[m.Method] = true
		}
	}
	return set
}()

// standardClass schedules the standard LSP methods: notifications (document
// sync, configuration) in order, requests concurrently.
func standardClass(method string, isCall bool) Class {
	if !isCall || method == protocol.MethodShutdown {
		return Ordered
	}
	return Concurrent
}

func (c *Conn) initialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		return nil, nil
	}
	if c.state.Load() != stateNew {
		return nil, Errorf(jsonrpc2.InvalidRequest, CodeInvalidRequest, "initialize was already received")
	}
	var params protocol.InitializeParams
	if err := decodeParams(req.Params(), &params); err != nil {
		return nil, err
	}
	var offered []protocol.PositionEncodingKind
	if params.Capabilities.General != nil {
		offered = params.Capabilities.General.PositionEncodings
	}
	enc := negotiateEncoding(offered)
	c.mu.Lock()
	c.clientCaps = params.Capabilities
	c.encoding = enc
	c.mu.Unlock()

	result := &protocol.InitializeResult{}
	if c.srv.opts.LSP != nil {
		r, err := c.srv.opts.LSP.Initialize(ctx, &params)
		if err != nil {
			return nil, err
		}
		if r != nil {
			result = r
		}
	}
	result.Capabilities.PositionEncoding = protocol.PositionEncodingKind(enc)
	if result.ServerInfo.Name == "" {
		result.ServerInfo = protocol.ServerInfo{Name: c.srv.opts.Name, Version: protocol.NewOptional(c.srv.opts.Version)}
	}
	experimental, err := mergeExperimental(result.Capabilities.Experimental, c.srv.opts.Registry.Families())
	if err != nil {
		return nil, err
	}
	result.Capabilities.Experimental = experimental
	c.state.Store(stateInitialized)
	return result, nil
}

// negotiateEncoding prefers UTF-8 (our native offsets) when the client offers
// it, and otherwise falls back to the mandatory UTF-16.
func negotiateEncoding(offered []protocol.PositionEncodingKind) document.Encoding {
	for _, e := range offered {
		if document.Encoding(e) == document.UTF8 {
			return document.UTF8
		}
	}
	return document.UTF16
}

// mergeExperimental adds each family's capability object under its name.
func mergeExperimental(existing protocol.LSPAny, families map[string]any) (protocol.LSPAny, error) {
	if len(families) == 0 {
		return existing, nil
	}
	obj := map[string]json.RawMessage{}
	if len(existing) > 0 {
		if err := json.Unmarshal(existing, &obj); err != nil {
			return nil, fmt.Errorf("experimental capabilities are not an object: %w", err)
		}
	}
	for name, caps := range families {
		raw, err := protocol.Marshal(caps)
		if err != nil {
			return nil, fmt.Errorf("family %s capabilities: %w", name, err)
		}
		obj[name] = raw
	}
	return json.Marshal(obj)
}

func (c *Conn) shutdown(ctx context.Context) (any, error) {
	c.state.Store(stateShutdown)
	if c.srv.opts.LSP != nil {
		if err := c.srv.opts.LSP.Shutdown(ctx); err != nil && !errors.Is(err, jsonrpc2.ErrMethodNotFound) {
			c.log.Warn("shutdown hook failed", "err", err)
		}
	}
	return nil, nil
}

// exit records the exit status, lets the replies of calls still running reach
// the client (a pipelining client may send exit before reading them; Close
// would refuse their writes), then signals Exited and closes the connection.
func (c *Conn) exit() {
	code := int32(1)
	if c.state.Swap(stateExited) == stateShutdown {
		code = 0
	}
	if !c.exitCode.CompareAndSwap(-1, code) {
		return
	}
	go func() {
		c.stream.drain()
		close(c.exited)
		_ = c.rpc.Close()
	}()
}

// lspCodec encodes payloads with the protocol package's union-aware JSON, as
// protocol.NewServer's unexported codec does.
type lspCodec struct{}

func (lspCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (lspCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
