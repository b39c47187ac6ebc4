// Package server is kast's JSON-RPC transport: framing, the handler chain
// (recover → cancellation → dispatcher → typed registry → standard LSP
// methods), the LSP lifecycle and the server→client helpers. It knows nothing
// of analysis; handlers register methods and implement protocol.Server.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Options configures a Server.
type Options struct {
	// Registry holds every method the entry point serves, standard LSP
	// methods included; nil means none. A method it lacks answers -32601.
	Registry *Registry
	// Profile is the entry point's handshake, framing and lifecycle.
	Profile Profile
	// MaxFrame caps a message body, or an NDJSON line, in bytes; 0 means
	// DefaultMaxFrame.
	MaxFrame int
	// EndOfInputWait is how long, once the client's input ends, the calls
	// already read may still take to get their replies out: 0 means 2 s, a
	// negative value until every one has answered (a one-shot stdio client
	// such as `printf ... | kast serve --stdio` waits for its answers).
	EndOfInputWait time.Duration
	// Version fills InitializeResult.serverInfo.
	Version string
	Logger  *slog.Logger
}

// Profile is what sets one entry point apart (kast lsp, kast serve, kast
// kward rpc, …) while all of them share the registry path: the framing of
// its connections, whether the LSP lifecycle applies, and who answers the
// names several families claim (initialize, shutdown).
type Profile struct {
	// Name fills InitializeResult.serverInfo.name; "" means "kast".
	Name string
	// Framing of new connections; FramingAuto decides from the first byte.
	Framing Framing
	// Lifecycle enforces the LSP initialize/shutdown/exit order, and LSP then
	// wins initialize and shutdown. Profiles without an LSP handshake (the
	// Kast daemon, Kward RPC) turn it off and may register those names.
	Lifecycle bool
	// Initialize answers initialize under Lifecycle; the transport adds the
	// position encoding, serverInfo and every family's experimental
	// capabilities. nil answers an empty result.
	Initialize func(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error)
	// Shutdown runs on shutdown under Lifecycle, before its reply.
	Shutdown func(ctx context.Context) error
	// StringIDs is kimi-cli's wire rule: a request whose id is not a string
	// is answered -32600 with a null id, a batch is refused, and the
	// server's own requests carry string ids.
	StringIDs bool
	// State makes each new connection's state (the language server's open
	// documents); nil means none.
	State func() ConnState
}

// ConnState is what an entry point keeps per connection. The dispatcher
// takes its Snapshot inline, in wire order, before it releases a concurrent
// or exclusive method from the read loop, so a request sees every change
// sent before it (SnapshotOf).
type ConnState interface {
	Snapshot() any
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
	if opts.Profile.Name == "" {
		opts.Profile.Name = "kast"
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
	conState ConnState
	log      *slog.Logger
	state    atomic.Int32
	exitCode atomic.Int32
	progress atomic.Int64  // last server-created progress token number
	exited   chan struct{} // closed by the exit notification

	mu         sync.Mutex
	clientCaps protocol.ClientCapabilities
	encoding   protocol.PositionEncodingKind
}

// Serve starts serving rwc and returns at once; wait on Done.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) *Conn {
	c := &Conn{srv: s, log: s.log, encoding: protocol.PositionEncodingKindUTF16, exited: make(chan struct{})}
	if s.opts.Profile.State != nil {
		c.conState = s.opts.Profile.State()
	}
	c.exitCode.Store(-1)
	c.stream = NewStream(rwc, s.opts.Profile.Framing, s.opts.MaxFrame, s.log)
	c.stream.endWait = s.opts.EndOfInputWait
	c.stream.stringIDs = s.opts.Profile.StringIDs
	c.rpc = jsonrpc2.NewConn(c.stream, jsonrpc2.WithCodec(lspCodec{}))
	c.client = protocol.ClientDispatcher(c.rpc)
	if !s.opts.Profile.Lifecycle {
		c.state.Store(stateInitialized)
	}
	handler := c.recover(protocol.CancelHandler(c.dispatch()))
	c.rpc.Go(context.WithValue(ctx, connKey{}, c), handler)
	return c
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.rpc.Done() }

// InputEnded is closed once the connection reads no more: the client ended
// its input and the calls already read had Options.EndOfInputWait to answer.
// A handler that waits on work of its own should stop it then: the
// connection ends only when every handler has returned.
func (c *Conn) InputEnded() <-chan struct{} { return c.stream.inputEnded }

// SendCall sends a request under the caller's id without waiting for its
// reply; a reply, answering no pending call, is dropped. kimi-cli's replay
// re-sends recorded requests this way, with their original ids.
func (c *Conn) SendCall(ctx context.Context, id, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	_, err = c.stream.Write(ctx, jsonrpc2.NewCall(jsonrpc2.NewStringID(id), method, raw))
	return err
}

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
	if c.state.Load() == stateShutdown || !c.srv.opts.Profile.Lifecycle {
		return 0
	}
	return 1
}

// Client returns the typed client for server→client messages.
func (c *Conn) Client() protocol.Client { return c.client }

// RPC returns the underlying JSON-RPC connection, for custom notifications.
func (c *Conn) RPC() jsonrpc2.Conn { return c.rpc }

// State returns the connection's state, nil when the profile keeps none.
func (c *Conn) State() ConnState { return c.conState }

// Encoding is the negotiated position encoding.
func (c *Conn) Encoding() protocol.PositionEncodingKind {
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

// SnapshotOf returns the connection state's snapshot as it was when the
// request arrived: for concurrent and exclusive methods it was taken before
// later messages were read, so a didChange sent before the request is always
// visible. nil when the connection keeps no state.
func SnapshotOf(ctx context.Context) any {
	if s := ctx.Value(snapshotKey{}); s != nil {
		return s
	}
	if c := ConnOf(ctx); c != nil && c.conState != nil {
		return c.conState.Snapshot()
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
		// Labelled, so a profile of a busy server (KAST_PPROF) tells each
		// method's CPU from the background work's: go tool pprof
		// -tagfocus method=textDocument/definition.
		pprof.Do(ctx, pprof.Labels("method", method), func(ctx context.Context) { result, err = next(ctx, req) })
		return result, wireError(ctx, err)
	}
}

// requestContext is what handlers see instead of jsonrpc2's pooled request
// context. context.WithCancel over the pooled one (protocol.CancelHandler does
// that) starts a goroutine that may touch it after the request is recycled and
// panics; this one is a stdlib cancel context, so no such goroutine exists,
// while the release token for jsonrpc2.Async still comes from the request.
// Once the handler has returned, the pooled request may be reused: over is
// set then, and values are no longer looked up in it (something long-lived
// holding the context, such as an SDK client's, would crash otherwise).
type requestContext struct {
	context.Context
	request context.Context
	over    *atomic.Bool
}

func (c requestContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	if c.over.Load() {
		return nil
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
	over := new(atomic.Bool)
	return requestContext{own, request, over}, func() {
		over.Store(true)
		cancel()
	}
}

// dispatch enforces the lifecycle and schedules each method by its class.
func (c *Conn) dispatch() jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		if c.srv.opts.Profile.Lifecycle {
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
			if m.Notification == req.IsCall() && !m.Either {
				if req.IsCall() {
					return nil, Errorf(jsonrpc2.InvalidRequest, CodeInvalidRequest, "%s is a notification, not a request", method)
				}
				return nil, nil
			}
			class = m.Class
		}

		var unlock func()
		if class != Ordered {
			if c.conState != nil {
				ctx = context.WithValue(ctx, snapshotKey{}, c.conState.Snapshot())
			}
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
		if !req.IsCall() {
			return nil, nil // unknown notifications are ignored, as LSP asks
		}
		return nil, Errorf(jsonrpc2.MethodNotFound, CodeMethodNotFound, "method not found: %s", method)
	}
}

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
	if hook := c.srv.opts.Profile.Initialize; hook != nil {
		r, err := hook(ctx, &params)
		if err != nil {
			return nil, err
		}
		if r != nil {
			result = r
		}
	}
	result.Capabilities.PositionEncoding = enc
	if result.ServerInfo.Name == "" {
		result.ServerInfo = protocol.ServerInfo{Name: c.srv.opts.Profile.Name, Version: protocol.NewOptional(c.srv.opts.Version)}
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
func negotiateEncoding(offered []protocol.PositionEncodingKind) protocol.PositionEncodingKind {
	for _, e := range offered {
		if e == protocol.PositionEncodingKindUTF8 {
			return protocol.PositionEncodingKindUTF8
		}
	}
	return protocol.PositionEncodingKindUTF16
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
	for _, hook := range c.srv.opts.Registry.shutdownHooks() {
		hook(ctx)
	}
	if hook := c.srv.opts.Profile.Shutdown; hook != nil {
		if err := hook(ctx); err != nil {
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
		c.stream.drain(drainLimit)
		close(c.exited)
		_ = c.rpc.Close()
	}()
}

// lspCodec encodes payloads with the protocol package's union-aware JSON, as
// protocol.NewServer's unexported codec does, or with their own encoder
// (JSONAppender).
type lspCodec struct{}

// JSONAppender is a result that encodes itself, for a large one whose
// reflective encoding costs more than finding it.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

func (lspCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case JSONAppender:
		return m.AppendJSON(nil)
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
