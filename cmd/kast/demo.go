package main

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"
	"go.lsp.dev/jsonrpc2"
	"golang.org/x/term"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/server"
)

// sample is the embedded default workspace the demo runs on, so the first
// command in the README works on a fresh machine with nothing else.
//
//go:embed sample
var sample embed.FS

func newDemoCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "demo [DIR]",
		Short: "Run a scripted editor session against kast on a workspace (default: an embedded Kotlin sample)",
		Long: `Run a scripted editor session against the real server over an in-process pipe
and print each step with its answer and latency: initialize, open every file, wait
for the index, then definition, references, hover, completion, a rename preview,
calls, the type hierarchy, diagnostics, workspace symbols, ck regex and hybrid
search, Kast raw/resolve and database/metrics, an agent turn when a model provider
is configured, shutdown. Without DIR it uses an embedded polyglot sample (Kotlin,
Go, Python, TypeScript); no network or API key is needed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			logger, err := newLogger(g.logLevel)
			if err != nil {
				return err
			}
			root := ""
			if len(args) == 1 {
				root, err = filepath.Abs(args[0])
			} else {
				root, err = extractSample()
				if err == nil {
					defer os.RemoveAll(root)
				}
			}
			if err != nil {
				return err
			}
			return runDemo(cmd.Context(), cmd.OutOrStdout(), root, newLSPServer(logger), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session's transcript as JSON, for scripts")
	return cmd
}

// extractSample writes the embedded workspace to a temporary directory.
func extractSample() (string, error) {
	dir, err := os.MkdirTemp("", "kast-demo-")
	if err != nil {
		return "", err
	}
	err = fs.WalkDir(sample, "sample", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := sample.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path[len("sample/"):]))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	return dir, err
}

// runDemo drives serve through the jsonrpc2 library as an editor would.
// With asJSON it prints only the transcript, as JSON, at the end.
func runDemo(ctx context.Context, stdout io.Writer, root string, srv *server.Server, asJSON bool) error {
	out, style := stdout, plainStyle
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		style = colourStyle
	}
	if asJSON {
		out = io.Discard
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	files, err := sourceFiles(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "workspace %s: %d source files\n", root, len(files))

	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	// A pipe write blocks until the other side reads, whatever the context
	// says: when the deadline passes, closing the pipes unblocks every step
	// so the demo fails instead of hanging.
	go func() {
		<-ctx.Done()
		for _, c := range []io.Closer{clientR, serverW, serverR, clientW} {
			_ = c.Close()
		}
	}()
	conn := srv.Serve(ctx, pipeConn{serverR, serverW})
	client := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipeConn{clientR, clientW}))
	client.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return nil, nil // accept whatever the server asks of the editor
	})
	defer client.Close()

	var init struct {
		Capabilities struct {
			PositionEncoding string          `json:"positionEncoding"`
			TextDocumentSync json.RawMessage `json:"textDocumentSync"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if _, err := client.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri.File(root),
		// No workDoneProgress: the demo's client answers server requests on
		// its read loop, and over unbuffered pipes a progress request the
		// server writes while it writes a reply deadlocks both sides.
		"capabilities": map[string]any{},
	}, &init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var sync struct {
		Change int `json:"change"`
	}
	_ = json.Unmarshal(init.Capabilities.TextDocumentSync, &sync)
	fmt.Fprintf(out, "initialize: %s %s, position encoding %s, text sync %s\n",
		init.ServerInfo.Name, init.ServerInfo.Version, init.Capabilities.PositionEncoding, syncKind(sync.Change))
	if err := client.Notify(ctx, "initialized", map[string]any{}); err != nil {
		return err
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := client.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri.File(f), "languageId": languageID(f), "version": 1, "text": string(text),
		}}); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "textDocument/didOpen: %d documents\n", len(files))

	d := &demoSession{ctx: ctx, client: client, root: root, show: func(s demoStep) { printStep(out, s, style, root) }}
	if err := d.waitIndexed(); err != nil {
		return err
	}
	d.languageSteps()
	d.familySteps()
	d.agentStep()
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"workspace": root, "files": len(files), "steps": d.steps}); err != nil {
			return err
		}
	}
	if _, err := client.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := client.Notify(ctx, "exit", nil); err != nil {
		return err
	}
	select {
	case <-conn.Done():
	case <-ctx.Done():
		return fmt.Errorf("server did not exit: %w", ctx.Err())
	}
	fmt.Fprintf(out, "shutdown, exit: server exit code %d\n", conn.ExitCode())
	return nil
}

func syncKind(k int) string {
	return map[int]string{0: "none", 1: "full", 2: "incremental"}[k]
}

type pipeConn struct {
	*io.PipeReader
	*io.PipeWriter
}

func (p pipeConn) Close() error {
	p.PipeReader.Close()
	return p.PipeWriter.Close()
}

// sourceFiles lists the files under root that kast knows a language for.
func sourceFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name()[0] == '.' || d.Name() == "node_modules" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && languageID(path) != "" {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

func languageID(path string) string {
	return map[string]string{
		".kt": "kotlin", ".kts": "kotlin", ".go": "go", ".py": "python", ".ts": "typescript",
		".tsx": "typescriptreact", ".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript",
		".java": "java", ".rs": "rust", ".rb": "ruby",
	}[filepath.Ext(path)]
}
