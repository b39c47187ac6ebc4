// Package handlers composes the protocol projections (one package each:
// lsp, kast, kward, ck, kaiak) into the registries of kast's entry points. Each
// entry point shares the one registry path and differs only by its
// server.Profile: handshake, framing and which family wins a name.
package handlers

import (
	"context"
	"log/slog"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/provider"
	"github.com/kast-dev/kast/agent/tools"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/handlers/ck"
	"github.com/kast-dev/kast/handlers/kaiak"
	"github.com/kast-dev/kast/handlers/kast"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/handlers/kward"
	"github.com/kast-dev/kast/handlers/lsp"
	"github.com/kast-dev/kast/server"
)

// Entry is one entry point's registry and profile.
type Entry struct {
	Registry *server.Registry
	Profile  server.Profile
}

// Options returns the server options of the entry point.
func (e Entry) Options(version string, log *slog.Logger) server.Options {
	return server.Options{Registry: e.Registry, Profile: e.Profile, Version: version, Logger: log}
}

// Process is the state of one kast process that its entry points and
// their projections share: the code-intelligence host and the agent
// runtime, so every protocol drives the same indexes, sessions, memory,
// secrets and logins.
type Process struct {
	Host  *host.Host
	Agent *agent.Runtime
}

// NewProcess builds the process state over h, the agent's environment
// being the process's: the agent's code tools answer from h's indexes and
// its providers are agent/provider's. Build it once per process.
func NewProcess(h *host.Host) Process {
	return Process{Host: h, Agent: agent.NewRuntime(agent.RuntimeOptions{
		Tools: &tools.Set{Code: tools.Index{Host: h}},
		NewProvider: func(r agent.Resolved) (agent.Provider, error) {
			return provider.New(r, provider.Options{})
		},
	})}
}

// LSP is `kast lsp`: the standard methods and every family on one
// connection, LSP's lifecycle and handshake.
func LSP(p Process) Entry {
	reg := server.NewRegistry()
	l := lsp.New(p.Host)
	l.Register(reg)
	kast.New(p.Host, kast.Options{}).Register(reg)
	kward.New(p.Agent).Register(reg)
	ck.New(p.Host).Register(reg)
	kimi.NewIDE(p.Agent, kimi.IDEOptions{}).Register(reg)
	newKaiak(p).Register(reg)
	return Entry{Registry: reg, Profile: l.Profile()}
}

// KimiIDE is `kast kimi --wire-stdio`: the Kimi IDE extension's protocol
// over newline-delimited JSON.
func KimiIDE(p Process, opts kimi.IDEOptions) Entry {
	reg := server.NewRegistry()
	k := kimi.NewIDE(p.Agent, opts)
	k.Register(reg)
	return Entry{Registry: reg, Profile: k.Profile()}
}

// newKaiak is the Kaiak projection over the process's agent, its
// code-intelligence tools answering from the process's indexes.
func newKaiak(p Process) *kaiak.Service {
	var code tools.CodeIntel
	if p.Host != nil {
		code = tools.Index{Host: p.Host}
	}
	return kaiak.New(p.Agent, kaiak.Options{Code: code})
}

// KaiakRPC is `kast kaiak rpc`: the Kaiak family (v1 methods and v2
// aliases) over Content-Length framing, without LSP's lifecycle; shutdown
// ends the connection's sessions and the connection.
func KaiakRPC(p Process) Entry {
	reg := server.NewRegistry()
	k := newKaiak(p)
	k.Register(reg)
	return Entry{Registry: reg, Profile: k.Profile(reg)}
}

// KwardRPC is `kast kward rpc`: the Kward family with Kward's own
// initialize and shutdown over Content-Length stdio.
func KwardRPC(p Process) Entry {
	reg := server.NewRegistry()
	k := kward.New(p.Agent)
	k.Register(reg)
	return Entry{Registry: reg, Profile: k.Profile(reg)}
}

// KastDaemon is `kast serve`: the Kast family bound to one root, over
// newline-delimited JSON-RPC, no LSP lifecycle. lifecycle runs
// runtime/shutdown and runtime/restart; release closes the root's index once
// its first refresh has ended.
func KastDaemon(h *host.Host, root string, lifecycle func(ctx context.Context, action string)) (Entry, func(), error) {
	k, release, err := kast.Daemon(h, root, lifecycle)
	if err != nil {
		return Entry{}, nil, err
	}
	reg := server.NewRegistry()
	k.Register(reg)
	return Entry{Registry: reg, Profile: server.Profile{Framing: server.FramingNDJSON}}, release, nil
}

// KimiWire is `kast kimi --wire`: kimi-cli's wire mode, protocol 1.10, over
// newline-delimited JSON with string ids.
func KimiWire(p Process, opts kimi.WireOptions) Entry {
	reg := server.NewRegistry()
	w := kimi.NewWire(p.Agent, opts)
	w.Register(reg)
	return Entry{Registry: reg, Profile: w.Profile()}
}

// ACP is `kast acp`: the Agent Client Protocol v1 over newline-delimited
// JSON, the editor as the client.
func ACP(p Process, opts acp.Options) Entry {
	reg := server.NewRegistry()
	a := acp.New(p.Agent, opts)
	a.Register(reg)
	return Entry{Registry: reg, Profile: a.Profile()}
}
