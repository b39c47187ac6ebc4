package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/acp"
	"github.com/kast-dev/kast/server"
)

// acpEndOfInputWait bounds how long prompts still running may answer once
// the editor has closed kast's input.
const acpEndOfInputWait = 30 * time.Second

func newACPCmd(g *globalFlags, exit *int) *cobra.Command {
	var model string
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol (v1) on stdin/stdout, for Zed, JetBrains, Neovim and other ACP editors",
		Long: `Serve kast as an Agent Client Protocol agent: newline-delimited JSON-RPC
on stdin and stdout, the editor as the client. Sessions are kast's session
files (session/load replays them); the model is kast's configured provider
(or the one authenticate picks); --model sets KAST_MODEL for this process.
Diagnostics go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if model != "" {
				if err := os.Setenv("KAST_MODEL", model); err != nil {
					return err
				}
			}
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			logger.Info("kast acp starting", "version", kastVersion(), "pid", os.Getpid())
			p := handlers.NewProcess(newServerHost(cmd.Context(), logger))
			opts := handlers.ACP(p, acp.Options{Version: kastVersion()}).Options(kastVersion(), logger)
			opts.EndOfInputWait = acpEndOfInputWait
			*exit = serveKwardStdio(server.New(opts))
			return nil
		},
	}
	cmd.Flags().StringVarP(&model, "model", "m", "", "the model of the configured provider")
	return cmd
}
