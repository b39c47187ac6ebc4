package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
)

// Delegation to the editor: an agent protocol whose client offers file
// access (ACP's fs/read_text_file, fs/write_text_file) or a terminal
// (terminal/create …) runs kast's file and shell tools through it, so the
// model sees unsaved buffers and the editor applies the edits and shows the
// commands. The confinement rule and read-before-write still apply here.

// ClientFiles reads and writes text files through the client. Paths are
// absolute; a file the client cannot find is an error wrapping
// fs.ErrNotExist.
type ClientFiles interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// ClientTerminal runs a shell command line in the client's terminal for the
// tool call callID and returns its output (capped by the client) and exit
// code (nil when a signal ended it). It must stop the command when ctx ends.
type ClientTerminal interface {
	Run(ctx context.Context, callID, command, cwd string) (output string, exitCode *int, err error)
}

// ClientTools is a toolset whose file and shell tools go through the client
// where it offers them; every other tool, and every tool the client does not
// offer, runs as in Base.
type ClientTools struct {
	Base     agent.Toolset
	Files    ClientFiles    // nil: files are read and written here
	Terminal ClientTerminal // nil: commands run here
	// Texts keeps what the session read and wrote through Files, for the
	// code tools to answer from (see EditorTexts); nil keeps nothing.
	Texts *EditorTexts
}

// Specs lists Base's tools.
func (c *ClientTools) Specs() []agent.ToolSpec { return c.Base.Specs() }

// Kind classifies a tool as Base does.
func (c *ClientTools) Kind(name string) agent.ToolKind {
	if k, ok := c.Base.(agent.ToolKinds); ok {
		return k.Kind(name)
	}
	return agent.KindOther
}

// Run runs call through the client when it offers what the tool needs.
func (c *ClientTools) Run(ctx context.Context, env *agent.ToolEnv, call agent.ToolCall) agent.ToolResult {
	args := json.RawMessage(call.Arguments)
	if strings.TrimSpace(call.Arguments) == "" {
		args = json.RawMessage("{}")
	}
	var run func(context.Context, *agent.ToolEnv, json.RawMessage) agent.ToolResult
	switch {
	case c.Files != nil && call.Name == ReadFile:
		run = c.readFile
	case c.Files != nil && call.Name == WriteFile && env.Propose == nil:
		run = c.writeFile
	case c.Files != nil && call.Name == EditFile && env.Propose == nil:
		run = c.editFile
	case c.Terminal != nil && call.Name == RunShellCommand:
		run = func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
			return c.runShell(ctx, env, call.ID, raw)
		}
	default:
		if c.Texts != nil {
			ctx = withEditorTexts(ctx, c.Texts)
		}
		return c.Base.Run(ctx, env, call)
	}
	if !json.Valid(args) {
		return failed(agent.FailureInvalidArguments, "the arguments of %s are not valid JSON: %s", call.Name, Sanitize(call.Arguments, 200))
	}
	r := run(ctx, env, args)
	r.Content = Sanitize(r.Content, MaxOutput)
	return r
}

func (c *ClientTools) readFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	abs, _, err := resolve(env, args.Path, confine.Read)
	if err != nil {
		return errorf("%v", err)
	}
	text, err := c.Files.ReadTextFile(ctx, abs)
	if err != nil {
		return errorf("%s: %v", args.Path, err)
	}
	env.Reads.Mark(abs)
	c.remember(abs, text)
	return lineWindow(args.Path, text, args.Offset, args.Limit)
}

func (c *ClientTools) writeFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	args, abs, rel, err := decodeWrite(env, raw)
	if err != nil {
		return errorf("%v", err)
	}
	// Existence is the disk's: an unsaved buffer of a file not yet on disk
	// is still a new file.
	_, statErr := os.Stat(abs)
	exists := statErr == nil
	old := ""
	if exists {
		if !env.Reads.Has(abs) {
			return errorf("%s exists and was not read in this session; read it before overwriting it", args.Path)
		}
		if old, err = c.Files.ReadTextFile(ctx, abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errorf("%s: %v", args.Path, err)
		}
	}
	if err := c.Files.WriteTextFile(ctx, abs, *args.Content); err != nil {
		return errorf("%s: %v", args.Path, err)
	}
	c.remember(abs, *args.Content)
	env.Reads.Mark(abs)
	return written(rel, old, *args.Content, exists)
}

func (c *ClientTools) editFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Path  string     `json:"path"`
		Edits []textEdit `json:"edits"`
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	if len(args.Edits) == 0 {
		return errorf("edits is empty")
	}
	abs, rel, err := resolve(env, args.Path, confine.Write)
	if err != nil {
		return errorf("%v", err)
	}
	if !env.Reads.Has(abs) {
		return errorf("%s was not read in this session; read it before editing it", args.Path)
	}
	old, err := c.Files.ReadTextFile(ctx, abs)
	if err != nil {
		return errorf("%s: %v", args.Path, err)
	}
	updated, err := replaceExact(old, args.Path, args.Edits)
	if err != nil {
		return errorf("%v", err)
	}
	if err := c.Files.WriteTextFile(ctx, abs, updated); err != nil {
		return errorf("%s: %v", args.Path, err)
	}
	c.remember(abs, updated)
	diff, first := UnifiedDiff(rel, old, updated)
	return agent.ToolResult{Content: fmt.Sprintf("Edited %s: %d replacement(s).", rel, len(args.Edits)),
		Diff: diff, ChangedFiles: []string{rel}, FirstChangedLine: first}
}

func (c *ClientTools) runShell(ctx context.Context, env *agent.ToolEnv, callID string, raw json.RawMessage) agent.ToolResult {
	command, timeout, err := shellArgs(raw)
	if err != nil {
		return errorf("%v", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second)
	defer cancel()
	output, code, err := c.Terminal.Run(runCtx, callID, command, env.Workspace)
	switch {
	case ctx.Err() != nil:
		return cancelled()
	case runCtx.Err() == context.DeadlineExceeded:
		return timedOut(timeout, output)
	case err != nil:
		return errorf("%v", err)
	case code == nil:
		return agent.ToolResult{Content: output + "\nKilled by a signal."}
	case *code != 0:
		return agent.ToolResult{Content: fmt.Sprintf("%s\nExit code: %d", output, *code)}
	}
	if output == "" {
		output = "(no output)"
	}
	return agent.ToolResult{Content: output}
}

// remember keeps the editor's text of a file for the code tools.
func (c *ClientTools) remember(abs, text string) {
	if c.Texts != nil {
		c.Texts.Set(abs, []byte(text))
	}
}
