package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/kast-dev/kast/analysis/host"
)

// newHost builds the process's one host: every connection and family of this
// process shares its indexes and its search engines, which embed with the
// embedder the flags name. An embedder that does not answer is an error.
func newHost(ctx context.Context, logger *slog.Logger, embed *embedFlags) (*host.Host, error) {
	emb, err := embed.embedder(ctx)
	if err != nil {
		return nil, err
	}
	return host.New(host.Options{Logger: logger, Embedder: emb, Version: kastVersion()}), nil
}

// newServerHost is the host of a long-running server (kast lsp, kast serve,
// kast kward rpc), with the embedder KAST_EMBEDDER and its companions
// configure. An embedding service that does not answer leaves the built-in
// embedder in place, with a warning, so an editor still gets a server.
func newServerHost(ctx context.Context, logger *slog.Logger) *host.Host {
	embed := embedFromEnv()
	probe, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	h, err := newHost(probe, logger, embed)
	if err != nil {
		logger.Warn("the configured embedder is not available; semantic search uses the built-in one", "embedder", embed.provider, "err", err)
		h = host.New(host.Options{Logger: logger, Version: kastVersion()})
	}
	// Editors get definitions into the libraries their roots depend on;
	// KAST_LIBRARIES=off keeps kast to the workspace.
	h.Libraries = os.Getenv("KAST_LIBRARIES") != "off"
	return h
}
