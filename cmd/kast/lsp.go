package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
)

func newLSPCmd(g *globalFlags, exit *int) *cobra.Command {
	var stdio bool
	var listen string
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server (stdio, or a loopback socket)",
		Long: `Run the language server. With --stdio (the default) it speaks LSP on stdin and
stdout, which is how editors start it. With --listen it accepts connections on
unix:PATH (a socket only this user can open) or tcp:127.0.0.1:PORT (loopback only).
Framing (Content-Length or newline-delimited JSON) is detected per connection.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if stdio && listen != "" {
				return errors.New("--stdio and --listen are mutually exclusive")
			}
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			startAutoPrune(logger) // not waited for: exit stays prompt
			// At debug: editors log kast's stderr as errors, so it carries only
			// what a user should see; the client hears the rest through
			// window/logMessage.
			logger.Debug("kast lsp starting", "version", kastVersion(), "pid", os.Getpid())
			h := newServerHost(context.Background(), logger)
			srv := lspServerOn(h, logger)
			if listen != "" {
				// The roots its clients open are announced to kast search.
				return serveListener(cmd.Context(), srv, listen, logger, func(ctx context.Context, network, address string) {
					registerLSPRoots(ctx, h, network, address, logger)
				})
			}
			*exit = serveStdio(srv)
			return nil
		},
	}
	cmd.Flags().BoolVar(&stdio, "stdio", false, "speak LSP on stdin/stdout (the default)")
	cmd.Flags().StringVar(&listen, "listen", "", "listen on unix:PATH or tcp:127.0.0.1:PORT instead of stdio")
	return cmd
}

func newLSPServer(logger *slog.Logger) *server.Server {
	return lspServerOn(newServerHost(context.Background(), logger), logger)
}

func lspServerOn(h *host.Host, logger *slog.Logger) *server.Server {
	return server.New(handlers.LSP(handlers.NewProcess(h)).Options(kastVersion(), logger))
}

// serveStdio serves one connection on stdin/stdout and returns the exit
// status LSP asks for. Anything else that writes to os.Stdout is redirected
// to stderr so it cannot corrupt the protocol stream.
func serveStdio(srv *server.Server) int {
	out := os.Stdout
	os.Stdout = os.Stderr
	conn := srv.Serve(context.Background(), stdioConn{os.Stdin, out})
	select {
	case <-conn.Done():
	case <-conn.Exited():
	}
	return conn.ExitCode()
}

type stdioConn struct {
	io.Reader
	io.WriteCloser
}

// Close closes stdout only: closing stdin would not unblock a pending read.
func (s stdioConn) Close() error { return s.WriteCloser.Close() }

// serveListener serves LSP on every connection to a --listen address.
// While it listens, announce runs (when not nil) with the address; it
// returns, its context ended, before serveListener does.
func serveListener(ctx context.Context, srv *server.Server, addr string, logger *slog.Logger, announce func(ctx context.Context, network, address string)) error {
	network, address, err := parseListen(addr)
	if err != nil {
		return err
	}
	ln, err := listenPrivate(network, address)
	if err != nil {
		return err
	}
	defer ln.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	logger.Info("listening", "network", network, "address", ln.Addr().String())
	if announce != nil {
		actx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); announce(actx, network, ln.Addr().String()) }()
		defer func() { stop(); <-done }()
	}
	return acceptUntilDone(ctx, ln, func(ctx context.Context, c net.Conn) {
		logger.Debug("client connected", "remote", c.RemoteAddr().String())
		srv.Serve(ctx, c)
	})
}
