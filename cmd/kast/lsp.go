package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

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
			logger.Info("kast lsp starting", "version", kastVersion(), "pid", os.Getpid())
			srv := newLSPServer(logger)
			if listen != "" {
				return serveListener(cmd.Context(), srv, listen, logger)
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
	h := newServerHost(context.Background(), logger)
	return server.New(handlers.LSP(h).Options(kastVersion(), logger))
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

// parseListen validates a --listen address. TCP must be loopback: the
// protocol carries file contents and edits and has no authentication.
func parseListen(addr string) (network, address string, err error) {
	network, address, ok := strings.Cut(addr, ":")
	if !ok || address == "" {
		return "", "", fmt.Errorf("--listen %q: want unix:PATH or tcp:127.0.0.1:PORT", addr)
	}
	switch network {
	case "unix":
		return network, address, nil
	case "tcp":
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return "", "", fmt.Errorf("--listen %q: %v", addr, err)
		}
		if host != "localhost" {
			ip := net.ParseIP(host)
			if ip == nil || !ip.IsLoopback() {
				return "", "", fmt.Errorf("--listen %q: refusing a non-loopback address; use 127.0.0.1, ::1 or localhost", addr)
			}
		}
		return network, address, nil
	}
	return "", "", fmt.Errorf("--listen %q: unknown network %q; want unix or tcp", addr, network)
}

func serveListener(ctx context.Context, srv *server.Server, addr string, logger *slog.Logger) error {
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
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); ln.Close() }()
	logger.Info("listening", "network", network, "address", ln.Addr().String())
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		logger.Debug("client connected", "remote", c.RemoteAddr().String())
		srv.Serve(ctx, c)
	}
}

// removeStaleSocket deletes a socket file nobody is listening on, and refuses
// to take over one that is live or a path that is not a socket.
// listenPrivate listens on address; a unix socket replaces a stale one,
// is readable by its owner only, and is removed when the listener closes.
func listenPrivate(network, address string) (net.Listener, error) {
	if network == "unix" {
		if err := removeStaleSocket(address); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		// net.UnixListener unlinks its socket file on Close.
		if err := os.Chmod(address, 0o600); err != nil {
			ln.Close()
			return nil, err
		}
	}
	return ln, nil
}

func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("--listen unix:%s: path exists and is not a socket", path)
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return fmt.Errorf("--listen unix:%s: another server is already listening there", path)
	}
	return os.Remove(path)
}
