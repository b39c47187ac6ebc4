// Package handlers composes the protocol projections (one package each:
// lsp, kast, kward, ck) into the registries of kast's entry points. Each
// entry point shares the one registry path and differs only by its
// server.Profile: handshake, framing and which family wins a name.
package handlers

import (
	"context"
	"log/slog"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/ck"
	"github.com/kast-dev/kast/handlers/kast"
	"github.com/kast-dev/kast/handlers/kward"
	"github.com/kast-dev/kast/handlers/lsp"
	"github.com/kast-dev/kast/server"
)

// Entry is one entry point's registry and profile.
type Entry struct {
	Registry *server.Registry
	Profile  server.Profile
	// LSP is the standard LSP projection, when the entry point serves it.
	LSP *lsp.LSP
}

// Options returns the server options of the entry point.
func (e Entry) Options(version string, log *slog.Logger) server.Options {
	return server.Options{Registry: e.Registry, Profile: e.Profile, Version: version, Logger: log}
}

// LSP is `kast lsp`: the standard methods and every family on one
// connection, LSP's lifecycle and handshake.
func LSP(h *host.Host) Entry {
	reg := server.NewRegistry()
	l := lsp.New(h)
	l.Register(reg)
	kast.New(h, kast.Options{}).Register(reg)
	kward.New(h).Register(reg)
	ck.New(h).Register(reg)
	return Entry{Registry: reg, Profile: l.Profile(), LSP: l}
}

// KwardRPC is `kast kward rpc`: the Kward family with Kward's own
// initialize and shutdown over Content-Length stdio.
func KwardRPC(h *host.Host) Entry {
	reg := server.NewRegistry()
	k := kward.New(h)
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
