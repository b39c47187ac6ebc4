// Package acp projects the agent engine onto the Agent Client Protocol, v1
// (`kast acp`): newline-delimited JSON-RPC on stdio, the editor (Zed,
// JetBrains, Neovim's CodeCompanion, …) as the client. Sessions are the
// engine's session files, addressed by their file ids so a later process
// can load them; turns stream as session/update; guarded tools ask with
// session/request_permission; the file and shell tools go through the
// client's fs and terminal when it offers them (tools.ClientTools).
package acp

import (
	"context"
	"errors"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// ProtocolVersion is the ACP major version kast speaks.
const ProtocolVersion = 1

// ACP's error codes besides JSON-RPC's.
const (
	CodeAuthRequired     jsonrpc2.Code = -32000
	CodeResourceNotFound jsonrpc2.Code = -32002
)

// Service serves ACP over the runtime's sessions.
type Service struct {
	rt   *agent.Runtime
	mgr  *agent.Manager
	opts Options
}

// Options configure the service.
type Options struct {
	Version string // agentInfo.version
}

// New returns the ACP projection of rt.
func New(rt *agent.Runtime, opts Options) *Service {
	return &Service{rt: rt, mgr: rt.Manager(), opts: opts}
}

// Profile is `kast acp`: NDJSON, numeric or string ids, no LSP lifecycle;
// each connection keeps its sessions and a cancel counter whose snapshot
// orders session/cancel against the prompts read before it.
func (s *Service) Profile() server.Profile {
	return server.Profile{Name: "kast", Framing: server.FramingNDJSON,
		State: func() server.ConnState { return newConnState() }}
}

// connState is one client connection: what it offered and its sessions.
type connState struct {
	mu       sync.Mutex
	caps     clientCaps
	provider string              // the provider authenticate chose, or ""
	sessions map[string]*session // by ACP session id
	watched  bool                // the connection's end closes its sessions
	// cancels counts session/cancel notifications; a prompt compares the
	// count it was read after with its session's last cancel.
	cancels int64
}

func newConnState() *connState { return &connState{sessions: map[string]*session{}} }

// Snapshot is the cancel count, taken in wire order as a prompt is read.
func (c *connState) Snapshot() any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancels
}

// clientCaps is what initialize said the client offers.
type clientCaps struct {
	readTextFile, writeTextFile, terminal bool
}

// stateOf returns the connection's state, closing its sessions when the
// connection ends.
func (s *Service) stateOf(ctx context.Context) (*server.Conn, *connState, error) {
	conn := server.ConnOf(ctx)
	if conn == nil {
		return nil, nil, server.Error(jsonrpc2.InternalError, "NO_CONNECTION", "no connection", nil)
	}
	cs, ok := conn.State().(*connState)
	if !ok {
		return nil, nil, server.Error(jsonrpc2.InternalError, "NO_CONNECTION", "the connection has no ACP state", nil)
	}
	cs.mu.Lock()
	watch := !cs.watched
	cs.watched = true
	cs.mu.Unlock()
	if watch {
		go func() {
			<-conn.Done()
			cs.mu.Lock()
			open := make([]*session, 0, len(cs.sessions))
			for _, ss := range cs.sessions {
				open = append(open, ss)
			}
			cs.sessions = map[string]*session{}
			cs.mu.Unlock()
			for _, ss := range open {
				ss.close(s)
			}
		}()
	}
	return conn, cs, nil
}

// sessionOf returns the connection's open session id, or ACP's
// resource-not-found error.
func (s *Service) sessionOf(ctx context.Context, id string) (*session, error) {
	_, cs, err := s.stateOf(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, server.InvalidParams("sessionId is required")
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if ss := cs.sessions[id]; ss != nil {
		return ss, nil
	}
	return nil, notFound(id)
}

func notFound(id string) error {
	return server.Error(CodeResourceNotFound, "SESSION_NOT_FOUND", "unknown session "+id+": create it with session/new or open it with session/load", map[string]any{"sessionId": id})
}

// engineError maps an engine error onto ACP's codes.
func engineError(err error) error {
	var nf *agent.NotFoundError
	var sid *agent.SessionIDError
	var ws *agent.WorkspaceError
	switch {
	case errors.As(err, &nf), errors.As(err, &sid):
		return server.Error(CodeResourceNotFound, "SESSION_NOT_FOUND", err.Error(), nil)
	case errors.As(err, &ws):
		return server.InvalidParams("%v", err)
	}
	return server.Error(jsonrpc2.InternalError, "INTERNAL", err.Error(), nil)
}
