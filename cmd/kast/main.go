// Command kast is the editor backend: a language server with kast's protocol
// families as LSP extensions, plus the daemon, CLI and MCP entry points.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"

	"github.com/kast-dev/kast/analysis/memlimit"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version or VCS revision recorded by the Go toolchain is used.
var version = ""

// defaultMemoryLimit is the Go runtime's soft memory limit unless GOMEMLIMIT
// is set: measured, it holds cold indexing of the Go standard library under
// 400 MB where the default GC let it reach 680 MB.
const defaultMemoryLimit = 250 << 20

// memoryLimitCeiling is the resident set the limit keeps within when it is
// raised while the live heap needs room (see analysis/memlimit), the file
// pages mapped included: the process has a 1 GB budget on ten million
// lines of Go, where the index's tables take 200 to 600 MB of mapped
// pages, and this leaves 128 MB for what the limit does not count (parse
// trees, the heap's overshoot): with 64 MB, `kastbench -scale 10` peaked
// at 1,009 MB (750 MB anonymous, 260 MB of files).
const memoryLimitCeiling = 896 << 20

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI and returns the process exit status.
func run(args []string) int {
	exit := 0
	root := newRootCmd(&exit)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kast:", err)
		if exit == 0 {
			exit = 2
		}
	}
	return exit
}

type globalFlags struct {
	logLevel string
}

func newRootCmd(exit *int) *cobra.Command {
	var g globalFlags
	root := &cobra.Command{
		Use:           "kast",
		Short:         "Fast multi-language language server and code-analysis backend",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			// A soft memory limit keeps bulk indexing's garbage in check;
			// GOMEMLIMIT in the environment still wins.
			if os.Getenv("GOMEMLIMIT") == "" {
				memlimit.Start(context.Background(), defaultMemoryLimit, memoryLimitCeiling)
			}
			_, err := newLogger(g.logLevel)
			servePprof()
			return err
		},
	}
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn or error (logs go to stderr)")
	root.AddCommand(newLSPCmd(&g, exit), newVersionCmd(), newDemoCmd(&g), newIndexCmd(&g), newQueryCmd(&g, exit), newKwardCmd(&g, exit), newKimiCmd(&g, exit), newKaiakCmd(&g, exit), newSearchCmd(&g, exit), newMCPCmd(&g), newServeCmd(&g), newRPCCmd(&g, exit), newCacheCmd())
	root.AddCommand(newACPCmd(&g, exit))
	return root
}

// newLogger returns a logger writing to stderr, never stdout: in stdio mode
// stdout carries the protocol.
func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToLower(level))); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: want debug, info, warn or error", level)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
	slog.SetDefault(logger)
	return logger, nil
}

func kastVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kast's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info, _ := debug.ReadBuildInfo()
			goVersion := "unknown"
			if info != nil {
				goVersion = info.GoVersion
			}
			fmt.Fprintf(cmd.OutOrStdout(), "kast %s (%s, LSP 3.18)\n", kastVersion(), goVersion)
			return nil
		},
	}
}
