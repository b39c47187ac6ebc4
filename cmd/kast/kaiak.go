package main

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
)

func newKaiakCmd(g *globalFlags, exit *int) *cobra.Command {
	kaiak := &cobra.Command{
		Use:   "kaiak",
		Short: "Kaiak: migration fixes for Konveyor incidents, each change approved by you",
		Long: `Kaiak turns the incidents of a Konveyor analysis into fixes: the agent is
asked, file by file, for minimal changes, and every change it makes is a
proposal (path, diff, confidence) that is applied only once approved.`,
	}
	var listen string
	rpc := &cobra.Command{
		Use:   "rpc",
		Short: "Serve the Kaiak protocol on stdin/stdout, or on a private unix socket",
		Long: `Serve Kaiak JSON-RPC (specs/kaiak-api.md: kaiak/session/*, kaiak/fix/*,
kaiak/interaction/respond and the kaiak/stream/* notifications, plus the v2
names kaiak/generate_fix, kaiak/delete_session and kaiak/client/user_message)
with Content-Length framing on stdin and stdout, or with --listen unix:PATH on
a socket only this user can open (mode 0600). shutdown terminates the
connection's sessions, denying what waits for approval, and ends it.
Diagnostics go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			var network, address string
			if listen != "" {
				if network, address, err = parseListen(listen); err != nil {
					return err
				}
				if network != "unix" {
					return errors.New("--listen: kast kaiak rpc listens on unix:PATH only, as Kaiak does")
				}
			}
			logger.Info("kast kaiak rpc starting", "version", kastVersion(), "pid", os.Getpid())
			h := newServerHost(cmd.Context(), logger)
			srv := server.New(handlers.KaiakRPC(handlers.NewProcess(h)).Options(kastVersion(), logger))
			if listen == "" {
				*exit = serveKwardStdio(srv) // the same stdio rules: shutdown ends the process after its reply
				return nil
			}
			ln, err := listenPrivate(network, address)
			if err != nil {
				return err
			}
			defer ln.Close()
			logger.Info("listening", "network", network, "address", ln.Addr().String())
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return acceptUntilDone(ctx, ln, func(ctx context.Context, c net.Conn) {
				srv.Serve(ctx, c)
			})
		},
	}
	rpc.Flags().StringVar(&listen, "listen", "", "listen on unix:PATH (mode 0600) instead of stdio")
	kaiak.AddCommand(rpc, newKaiakFixCmd(g, exit))
	return kaiak
}
