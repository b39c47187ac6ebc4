package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"go.lsp.dev/jsonrpc2"
	"golang.org/x/term"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kaiak"
	"github.com/kast-dev/kast/server"
)

// kaiakFix is `kast kaiak fix`: a Kaiak client of an in-process server.
type kaiakFix struct {
	analysis    string
	workspace   string
	incidents   string
	autoApprove string
	dryRun      bool
	insights    bool
	jsonOut     bool
	verbose     bool
	color       string
}

func newKaiakFixCmd(g *globalFlags, exit *int) *cobra.Command {
	f := &kaiakFix{}
	cmd := &cobra.Command{
		Use:   "fix --analysis output.yaml",
		Short: "Fix the incidents of a Konveyor analysis, approving each change",
		Long: `Read Konveyor analyzer output (the YAML or JSON list of rulesets, violations
and incidents that analyzer-lsp and kantra write), convert every incident, and
ask the configured model for fixes, one file at a time. Each proposed change is
shown as a coloured unified diff and applied only if you answer y (on a
terminal), or as --auto-approve says: all applies every change, none applies
none. A progress line is printed per file and a summary at the end.

File URIs from the container the analyzer ran in (file:///opt/input/source/…)
are matched to the workspace by their longest tail that exists there.
--dry-run only converts and prints the counts and the incidents.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			code, err := f.run(cmd.Context(), cmd.OutOrStdout(), g.logLevel)
			*exit = code
			return err
		},
	}
	cmd.Flags().StringVar(&f.analysis, "analysis", "", "analyzer output file (YAML or JSON)")
	cmd.Flags().StringVar(&f.workspace, "workspace", "", "the analyzed source folder (default: the nearest folder with .git, go.mod, pom.xml or another project marker)")
	cmd.Flags().StringVar(&f.workspace, "root", "", "the same as --workspace")
	cmd.Flags().StringVar(&f.incidents, "incidents", "", "only these incidents: comma-separated ids (ruleset/rule/n) or rule ids")
	cmd.Flags().StringVar(&f.autoApprove, "auto-approve", "", "none or all; default: ask on a terminal, none otherwise")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "convert and print the incidents; change nothing")
	cmd.Flags().BoolVar(&f.insights, "insights", false, "convert the analysis's insights too (informational findings)")
	cmd.Flags().BoolVar(&f.jsonOut, "json", false, "with --dry-run, print the incidents as JSON (the v1 contract's incident objects)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "also print the model's thinking and tool calls")
	cmd.Flags().StringVar(&f.color, "color", "auto", "auto, always or never")
	_ = cmd.MarkFlagRequired("analysis")
	return cmd
}

// palette colours output when it goes to a terminal.
type palette struct{ on bool }

func (p palette) c(code, s string) string {
	if !p.on {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) diff(d string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(d, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff --git"):
			b.WriteString(p.c("1", line))
		case strings.HasPrefix(line, "+"):
			b.WriteString(p.c("32", line))
		case strings.HasPrefix(line, "-"):
			b.WriteString(p.c("31", line))
		case strings.HasPrefix(line, "@@"), strings.HasPrefix(line, "rename "):
			b.WriteString(p.c("36", line))
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

func (f *kaiakFix) run(ctx context.Context, out io.Writer, logLevel string) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	switch f.autoApprove {
	case "", "none", "all":
	default:
		return 2, fmt.Errorf("--auto-approve %q: want none or all", f.autoApprove)
	}
	pal := palette{on: f.color == "always" || (f.color == "auto" && os.Getenv("NO_COLOR") == "" && isTerminal(out))}
	if f.color != "auto" && f.color != "always" && f.color != "never" {
		return 2, fmt.Errorf("--color %q: want auto, always or never", f.color)
	}
	data, err := os.ReadFile(f.analysis)
	if err != nil {
		return 2, err
	}
	ws, err := workspaceRoot(f.workspace, ".")
	if err != nil {
		return 2, err
	}
	a, err := kaiak.ConvertAnalysis(data, kaiak.ConvertOptions{Workspace: ws, Insights: f.insights})
	if err != nil {
		return 2, fmt.Errorf("%s: %w", f.analysis, err)
	}
	incidents := a.Incidents
	if f.incidents != "" {
		want := map[string]bool{}
		for _, id := range strings.Split(f.incidents, ",") {
			if id = strings.TrimSpace(id); id != "" {
				want[id] = true
			}
		}
		var kept []kaiak.Incident
		for _, in := range incidents {
			if want[in.ID] || want[in.RuleID] {
				kept = append(kept, in)
			}
		}
		incidents = kept
	}
	for _, line := range a.Repaired {
		fmt.Fprintf(out, "%s %s:%d: a key indented by an odd number of spaces was moved one space left to parse the file\n", pal.c("33", "!"), f.analysis, line)
	}
	fmt.Fprintf(out, "Converted %d incidents (%d file-level) from %d violations in %d rulesets; %d files.\n",
		len(a.Incidents), a.FileLevel, a.Violations, a.Rulesets, a.Files)
	for _, rs := range a.PerRuleset {
		fmt.Fprintf(out, "  %s: %d incidents in %d violations\n", rs.Name, rs.Incidents, rs.Violations)
	}
	if a.Insights > 0 {
		verb := "not converted (--insights converts them)"
		if f.insights {
			verb = "converted"
		}
		fmt.Fprintf(out, "  %d insight incidents %s\n", a.Insights, verb)
	}
	if a.Errors > 0 {
		fmt.Fprintf(out, "  %d rules failed in the analyzer\n", a.Errors)
	}
	if f.incidents != "" {
		fmt.Fprintf(out, "Selected %d of them (--incidents).\n", len(incidents))
	}
	if f.dryRun {
		if len(a.Unresolved) > 0 {
			fmt.Fprintf(out, "%d files were not found in %s:\n", len(a.Unresolved), ws)
			for _, p := range a.Unresolved {
				fmt.Fprintf(out, "  %s\n", p)
			}
		}
		if f.jsonOut {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return 0, enc.Encode(incidents)
		}
		for _, in := range incidents {
			fmt.Fprintf(out, "%s\t%s:%d\t%s\t%s\n", in.ID, in.FilePath, in.LineNumber, in.Severity, firstLine(in.Message))
		}
		return 0, nil
	}
	// Files the workspace does not have cannot be fixed there.
	unresolved := map[string]bool{}
	for _, p := range a.Unresolved {
		unresolved[p] = true
	}
	var runnable []kaiak.Incident
	for _, in := range incidents {
		if unresolved[in.FilePath] {
			continue
		}
		runnable = append(runnable, in)
	}
	if skipped := len(incidents) - len(runnable); skipped > 0 {
		fmt.Fprintf(out, "%s %d incidents name files not found in %s; skipped.\n", pal.c("33", "!"), skipped, ws)
	}
	if len(runnable) == 0 {
		fmt.Fprintln(out, "Nothing to fix.")
		return 0, nil
	}

	mode := f.autoApprove
	var in *bufio.Reader
	if mode == "" {
		if term.IsTerminal(int(os.Stdin.Fd())) {
			in = bufio.NewReader(os.Stdin)
			mode = "ask"
		} else {
			mode = "none"
			fmt.Fprintln(out, "stdin is not a terminal: no change will be applied (--auto-approve all applies them).")
		}
	}
	c, stop, err := dialKaiak(ctx, logLevel)
	if err != nil {
		return 1, err
	}
	defer stop()
	var created struct {
		SessionID string `json:"session_id"`
	}
	if err := c.call(ctx, "kaiak/session/create", map[string]any{"workspace_path": ws, "session_name": "kast kaiak fix"}, &created); err != nil {
		return 1, err
	}
	defer func() {
		_ = c.call(context.Background(), "kaiak/session/terminate", map[string]any{"session_id": created.SessionID}, nil)
	}()
	ui := &fixUI{out: out, pal: pal, mode: mode, in: in, verbose: f.verbose, c: c, proposals: map[string]map[string]any{}}
	start := time.Now()
	failed := false
	for len(runnable) > 0 {
		batch := runnable[:min(len(runnable), kaiak.MaxIncidents)]
		runnable = runnable[len(batch):]
		var res struct {
			RequestID string `json:"request_id"`
		}
		params := map[string]any{"session_id": created.SessionID, "incidents": batch,
			"migration_context": map[string]any{"source": "Konveyor analysis " + filepath.Base(f.analysis)}}
		if err := c.call(ctx, "kaiak/fix/generate", params, &res); err != nil {
			return 1, err
		}
		if status := ui.follow(ctx, res.RequestID); status != "success" {
			failed = true
			if status == "cancelled" {
				break
			}
		}
	}
	fmt.Fprintf(out, "\n%s %d incidents processed in %d files; %d changes proposed: %d applied, %d rejected, %d not applied; %d errors; %.1fs.\n",
		pal.c("1", "Summary:"), ui.processed, ui.files, ui.proposed, ui.applied, ui.rejected, ui.failedApply, ui.errors, time.Since(start).Seconds())
	if failed {
		return 1, nil
	}
	return 0, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// kaiakClient talks to the in-process server; notifications queue for the
// main goroutine, so the read loop never waits for the user.
type kaiakClient struct {
	conn jsonrpc2.Conn

	mu    sync.Mutex
	queue []kaiakNote
	ready chan struct{}
}

type kaiakNote struct {
	method string
	params map[string]any
}

func (c *kaiakClient) call(ctx context.Context, method string, params, result any) error {
	_, err := c.conn.Call(ctx, method, params, result)
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return fmt.Errorf("%s: %s (%d)", method, rpcErr.Message, rpcErr.Code)
	}
	return err
}

// next waits for the next notification.
func (c *kaiakClient) next(ctx context.Context) (kaiakNote, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			n := c.queue[0]
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return n, nil
		}
		ready := c.ready
		c.mu.Unlock()
		select {
		case <-ready:
		case <-c.conn.Done():
			return kaiakNote{}, errors.New("the Kaiak server ended")
		case <-ctx.Done():
			return kaiakNote{}, ctx.Err()
		}
	}
}

// dialKaiak starts the Kaiak server in-process and connects to it.
func dialKaiak(ctx context.Context, logLevel string) (*kaiakClient, func(), error) {
	logger, err := newLogger(logLevel)
	if err != nil {
		return nil, nil, err
	}
	if logLevel == "info" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	h := host.New(host.Options{Logger: logger, Version: kastVersion()})
	srv := server.New(handlers.KaiakRPC(handlers.NewProcess(h)).Options(kastVersion(), logger))
	a, b := net.Pipe()
	srv.Serve(context.Background(), a)
	c := &kaiakClient{conn: jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b)), ready: make(chan struct{})}
	c.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var params map[string]any
		_ = json.Unmarshal(req.Params(), &params)
		c.mu.Lock()
		c.queue = append(c.queue, kaiakNote{method: strings.Clone(req.Method()), params: params})
		close(c.ready)
		c.ready = make(chan struct{})
		c.mu.Unlock()
		return nil, nil
	})
	return c, func() { c.conn.Close(); a.Close(); h.Close() }, nil
}

// fixUI follows requests: progress lines, diffs, questions, the summary.
type fixUI struct {
	out     io.Writer
	pal     palette
	mode    string // ask, all or none
	in      *bufio.Reader
	verbose bool
	c       *kaiakClient

	proposals                                                          map[string]map[string]any
	processed, files, proposed, applied, rejected, failedApply, errors int
}

func content(n kaiakNote) map[string]any { c, _ := n.params["content"].(map[string]any); return c }

func num(v any) int { f, _ := v.(float64); return int(f) }

// follow prints a request's stream until it completes and returns its
// status.
func (u *fixUI) follow(ctx context.Context, requestID string) string {
	for {
		n, err := u.c.next(ctx)
		if err != nil {
			fmt.Fprintf(u.out, "%s %v\n", u.pal.c("31", "!"), err)
			return "failed"
		}
		if n.params["request_id"] != requestID {
			continue
		}
		c := content(n)
		switch n.method {
		case "kaiak/stream/progress":
			if c["phase"] == "processing_incidents" {
				fmt.Fprintf(u.out, "%s %s\n", u.pal.c("1;34", "▸"), c["description"])
			}
		case "kaiak/stream/thinking":
			if u.verbose {
				fmt.Fprint(u.out, u.pal.c("2", fmt.Sprint(c["text"])))
			}
		case "kaiak/stream/ai_response":
			if c["partial"] == false {
				if text := strings.TrimSpace(fmt.Sprint(c["text"])); text != "" {
					fmt.Fprintf(u.out, "  %s\n", strings.ReplaceAll(text, "\n", "\n  "))
				}
			}
		case "kaiak/stream/tool_call":
			if u.verbose {
				fmt.Fprintf(u.out, "  %s %s %s\n", u.pal.c("2", "tool"), c["tool_name"], c["operation"])
			}
		case "kaiak/stream/file_modification":
			u.proposals[fmt.Sprint(n.params["proposal_id"])] = c
			u.proposed++
		case "kaiak/stream/user_interaction":
			u.interact(ctx, n, c)
		case "kaiak/stream/error":
			u.errors++
			color := "31"
			if c["recoverable"] == true {
				color = "33"
			}
			fmt.Fprintf(u.out, "  %s %s\n", u.pal.c(color, "!"), c["message"])
		case "kaiak/stream/system":
			if c["event"] == "request_completed" {
				s, _ := c["summary"].(map[string]any)
				u.processed += num(s["incidents_processed"])
				u.files += num(s["files"])
				return fmt.Sprint(c["status"])
			}
		}
	}
}

// interact answers an interaction: an approval after showing its diff, a
// choice by its number.
func (u *fixUI) interact(ctx context.Context, n kaiakNote, c map[string]any) {
	id := n.params["interaction_id"]
	switch c["interaction_type"] {
	case "approval":
		p := u.proposals[fmt.Sprint(c["proposal_id"])]
		fmt.Fprintf(u.out, "\n%s %s %s (confidence %.2f): %s\n", u.pal.c("1", "Proposed"), p["change_type"], u.pal.c("1", fmt.Sprint(p["file_path"])),
			p["confidence"], p["description"])
		fmt.Fprint(u.out, u.pal.diff(fmt.Sprint(p["diff"])))
		approve := u.mode == "all"
		if u.mode == "ask" {
			for {
				fmt.Fprint(u.out, u.pal.c("1", "Apply this change? [y/N/a(ll)/q(uit)] "))
				line, err := u.in.ReadString('\n')
				answer := strings.ToLower(strings.TrimSpace(line))
				if answer == "a" {
					u.mode, approve = "all", true
				}
				if answer == "y" || answer == "yes" {
					approve = true
				}
				if answer == "q" {
					u.mode = "none"
					_ = u.c.call(ctx, "kaiak/fix/cancel", map[string]any{"request_id": n.params["request_id"]}, nil)
					return
				}
				if answer == "" || answer == "n" || answer == "no" || approve || err != nil {
					break
				}
			}
		}
		var res map[string]any
		err := u.c.call(ctx, "kaiak/interaction/respond", map[string]any{"interaction_id": id, "response_type": "approval",
			"response_data": map[string]any{"approved": approve}}, &res)
		switch {
		case err != nil:
			u.failedApply++
			fmt.Fprintf(u.out, "  %s %v\n", u.pal.c("31", "✗ not applied:"), err)
		case approve:
			u.applied++
			fmt.Fprintf(u.out, "  %s\n", u.pal.c("32", "✓ applied"))
		default:
			u.rejected++
			fmt.Fprintf(u.out, "  %s\n", u.pal.c("33", "✗ rejected"))
		}
	case "choice":
		options, _ := c["options"].([]any)
		fmt.Fprintf(u.out, "\n%s %s\n", u.pal.c("1", "?"), c["prompt"])
		for i, o := range options {
			fmt.Fprintf(u.out, "  %d. %v\n", i+1, o)
		}
		pick := 0
		if u.mode == "ask" {
			fmt.Fprint(u.out, "Your choice [1]: ")
			line, _ := u.in.ReadString('\n')
			if _, err := fmt.Sscan(strings.TrimSpace(line), &pick); err == nil && pick >= 1 && pick <= len(options) {
				pick--
			} else {
				pick = 0
			}
		} else {
			fmt.Fprintf(u.out, "  (answering %d: no one to ask)\n", pick+1)
		}
		_ = u.c.call(ctx, "kaiak/interaction/respond", map[string]any{"interaction_id": id, "response_type": "choice",
			"response_data": map[string]any{"selected_indices": []int{pick}}}, nil)
	}
}
