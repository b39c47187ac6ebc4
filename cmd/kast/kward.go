package main

import (
	"context"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
)

func newKwardCmd(g *globalFlags, exit *int) *cobra.Command {
	kward := &cobra.Command{
		Use:   "kward",
		Short: "Kward RPC entry points",
	}
	kward.AddCommand(&cobra.Command{
		Use:   "rpc",
		Short: "Serve Kward RPC on stdin/stdout, so a Kward UI can launch kast in place of kward",
		Long: `Serve Kward RPC (agent sessions and turns) on stdin and stdout with
Content-Length framing. initialize answers Kward's handshake and shutdown ends
the process after its reply. Diagnostics go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			logger.Info("kast kward rpc starting", "version", kastVersion(), "pid", os.Getpid())
			h := newServerHost(cmd.Context(), logger)
			srv := server.New(handlers.KwardRPC(handlers.NewProcess(h)).Options(kastVersion(), logger))
			*exit = serveKwardStdio(srv)
			return nil
		},
	})
	return kward
}

// serveKwardStdio serves one connection on stdin/stdout until the client
// closes stdin or sends shutdown. After shutdown the connection closes its
// stream once the reply is written; the read of stdin may stay blocked, so
// that close, not the end of the read loop, ends the process.
func serveKwardStdio(srv *server.Server) int {
	out := os.Stdout
	os.Stdout = os.Stderr
	closed := make(chan struct{})
	conn := srv.Serve(context.Background(), &closeSignal{stdioConn: stdioConn{os.Stdin, out}, closed: closed})
	select {
	case <-conn.Done():
	case <-closed:
	}
	return conn.ExitCode()
}

// closeSignal reports, by closing closed, that the connection closed stdout.
type closeSignal struct {
	stdioConn
	closed chan struct{}
	once   sync.Once
}

func (c *closeSignal) Close() error {
	err := c.stdioConn.Close()
	c.once.Do(func() { close(c.closed) })
	return err
}
