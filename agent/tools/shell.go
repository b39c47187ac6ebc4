package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/kast-dev/kast/agent"
)

// Shell command timeouts, in seconds.
const (
	DefaultShellTimeout = 30
	MaxShellTimeout     = 600
)

var runShellSpec = agent.ToolSpec{
	Name:        RunShellCommand,
	Description: "Run a shell command (bash -c) from the workspace root and return its combined output and exit code.",
	Parameters: object(map[string]any{
		"command":         str("The command line."),
		"timeout_seconds": integer(fmt.Sprintf("Timeout in seconds; default %d, at most %d.", DefaultShellTimeout, MaxShellTimeout)),
	}, "command"),
}

// shellArgs reads run_shell_command's arguments, the timeout defaulted and
// capped.
func shellArgs(raw json.RawMessage) (command string, timeoutSeconds int, err error) {
	var args struct {
		Command string `json:"command"`
		Timeout int    `json:"timeout_seconds"`
	}
	if err := decode(raw, &args); err != nil {
		return "", 0, err
	}
	if args.Command == "" {
		return "", 0, errors.New("command is required")
	}
	timeout := args.Timeout
	if timeout <= 0 {
		timeout = DefaultShellTimeout
	}
	return args.Command, min(timeout, MaxShellTimeout), nil
}

func runShell(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	command, timeout, err := shellArgs(raw)
	if err != nil {
		return errorf("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second)
	defer cancel()

	shell := "bash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = env.Workspace
	// Its own process group, so a timeout kills the command's children too,
	// and the group's leader dies with kast (see sysProcAttr).
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	// The id marks the group's processes as this command's, for the next
	// kast to find if this one dies (see agent.Procs).
	id := agent.NewID()
	cmd.Env = append(os.Environ(), agent.CommandIDEnv+"="+id)
	out := &cappedBuffer{max: MaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	// The parent-death signal fires when the thread that started the child
	// ends, not the process: keep this thread until the command has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err = cmd.Start()
	if err == nil {
		release := env.Procs.Track(cmd.Process.Pid, id)
		err = cmd.Wait()
		release()
	}

	output := out.String()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return timedOut(timeout, output)
	case ctx.Err() != nil:
		return cancelled()
	case errors.As(err, &exitErr):
		return agent.ToolResult{Content: fmt.Sprintf("%s\nExit code: %d", output, exitErr.ExitCode())}
	case err != nil:
		return errorf("%v", err)
	}
	if output == "" {
		output = "(no output)"
	}
	return agent.ToolResult{Content: output}
}

// cappedBuffer keeps the first max bytes written and counts the rest, so a
// chatty command cannot exhaust memory.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		c.buf.Write(p[:max(room, 0)])
		c.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Sanitize(c.buf.String(), c.max)
	if c.dropped > 0 {
		s += fmt.Sprintf("\n… [output truncated: %d more bytes]", c.dropped)
	}
	return s
}
