package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent/tools"
)

// The client's file system and terminal, for tools.ClientTools.

type clientFiles struct{ ss *session }

// ReadTextFile asks the editor for the file's text, unsaved changes
// included.
func (f clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	var res struct {
		Content string `json:"content"`
	}
	_, err := f.ss.conn.RPC().Call(ctx, "fs/read_text_file", map[string]any{"sessionId": f.ss.id, "path": path}, &res)
	if err != nil {
		return "", clientError(err)
	}
	return res.Content, nil
}

// WriteTextFile has the editor write the file (and update its buffer).
func (f clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	var res any
	_, err := f.ss.conn.RPC().Call(ctx, "fs/write_text_file", map[string]any{"sessionId": f.ss.id, "path": path, "content": content}, &res)
	return clientError(err)
}

// clientError keeps a client's "not found" recognisable as fs.ErrNotExist.
func clientError(err error) error {
	if err == nil {
		return nil
	}
	var re *jsonrpc2.Error
	if errors.As(err, &re) && re.Code == CodeResourceNotFound {
		return fmt.Errorf("%s: %w", re.Message, fs.ErrNotExist)
	}
	return fmt.Errorf("the editor refused: %w", err)
}

type clientTerminal struct{ ss *session }

var _ tools.ClientTerminal = clientTerminal{}

// terminalReleaseWait bounds the kill and release requests that clean up
// after a command, which run when the turn's context may be gone.
const terminalReleaseWait = 5 * time.Second

// Run runs command in a terminal of the editor, shown in the tool call as
// it runs: create, wait for its exit (killing it when ctx ends), read its
// output, release it.
func (t clientTerminal) Run(ctx context.Context, callID, command, cwd string) (string, *int, error) {
	rpc := t.ss.conn.RPC()
	var created struct {
		TerminalID string `json:"terminalId"`
	}
	if _, err := rpc.Call(ctx, "terminal/create", map[string]any{"sessionId": t.ss.id, "command": "bash", "args": []string{"-c", command},
		"cwd": cwd, "outputByteLimit": tools.MaxOutput}, &created); err != nil {
		return "", nil, fmt.Errorf("the editor could not start the command: %w", err)
	}
	ids := map[string]any{"sessionId": t.ss.id, "terminalId": created.TerminalID}
	t.ss.notify(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": callID, "status": "in_progress",
		"content": []any{map[string]any{"type": "terminal", "terminalId": created.TerminalID}}})
	cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminalReleaseWait)
	defer cancel()
	defer func() { _, _ = rpc.Call(cleanup, "terminal/release", ids, nil) }()
	var exit struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	}
	_, waitErr := rpc.Call(ctx, "terminal/wait_for_exit", ids, &exit)
	if waitErr != nil {
		_, _ = rpc.Call(cleanup, "terminal/kill", ids, nil)
	}
	var out struct {
		Output    string `json:"output"`
		Truncated bool   `json:"truncated"`
	}
	if _, err := rpc.Call(cleanup, "terminal/output", ids, &out); err != nil {
		return "", nil, fmt.Errorf("the editor did not give the command's output: %w", err)
	}
	if out.Truncated {
		out.Output = "… [the start of the output was cut by the editor]\n" + out.Output
	}
	if waitErr != nil {
		return out.Output, nil, waitErr
	}
	return out.Output, exit.ExitCode, nil
}
