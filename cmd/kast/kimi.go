package main

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kimi"
	"github.com/kast-dev/kast/server"
)

// wireEndOfInputWait bounds how long `kast kimi --wire` lets prompts still
// running answer once its input has ended (a one-shot client pipes its
// requests and closes stdin).
const wireEndOfInputWait = 30 * time.Second

func newKimiCmd(g *globalFlags, exit *int) *cobra.Command {
	var (
		wireStdio, wire, cont, yolo bool
		workDir, session, model     string
	)
	cmd := &cobra.Command{
		Use:   "kimi",
		Short: "Serve the Kimi wires on stdin/stdout: the IDE extension's (--wire-stdio) or kimi-cli's wire mode (--wire)",
		Long: `Serve a Kimi agent wire on stdin and stdout, newline-delimited JSON.

--wire-stdio speaks the Kimi IDE extension's protocol (sendMessage,
interruptTurn, submitApproval, ping; events as notifications named after the
event). --wire speaks kimi-cli's wire mode, protocol 1.10 (initialize,
prompt, steer, cancel, set_plan_mode, replay; string ids), with kimi-cli's
flags: --work-dir, --session, --continue, --model, --yolo (--model and
--yolo apply to --wire-stdio too). The model is
kast's configured provider (KAST_PROVIDER=moonshot and MOONSHOT_API_KEY for
Kimi models). Diagnostics go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if wire == wireStdio {
				return errors.New("give exactly one of --wire and --wire-stdio")
			}
			if model != "" {
				// The engine resolves the provider per turn from the
				// environment; --model is KAST_MODEL for this process.
				if err := os.Setenv("KAST_MODEL", model); err != nil {
					return err
				}
			}
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			logger.Info("kast kimi starting", "version", kastVersion(), "pid", os.Getpid(), "wire", wire)
			p := handlers.NewProcess(newServerHost(cmd.Context(), logger))
			var opts server.Options
			if wire {
				opts = handlers.KimiWire(p, kimi.WireOptions{WorkDir: workDir, SessionID: session, Continue: cont, Yolo: yolo,
					Version: kastVersion()}).Options(kastVersion(), logger)
				opts.EndOfInputWait = wireEndOfInputWait
			} else {
				opts = handlers.KimiIDE(p, kimi.IDEOptions{Yolo: yolo}).Options(kastVersion(), logger)
			}
			*exit = serveKwardStdio(server.New(opts))
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&wireStdio, "wire-stdio", false, "serve the Kimi IDE extension's protocol")
	f.BoolVar(&wire, "wire", false, "serve kimi-cli's wire mode (protocol 1.10)")
	f.StringVarP(&workDir, "work-dir", "w", "", "with --wire: the work folder (default: the current folder)")
	f.StringVarP(&session, "session", "S", "", "with --wire: resume (or create) the session with this id")
	f.BoolVarP(&cont, "continue", "C", false, "with --wire: resume the work folder's latest session")
	f.StringVarP(&model, "model", "m", "", "the model of the configured provider")
	f.BoolVarP(&yolo, "yolo", "y", false, "approve every tool call without asking")
	return cmd
}
