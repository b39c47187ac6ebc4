package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
)

// Failures a tool reports carry their kind (agent.Failure) so that clients
// label them without reading the text.

var (
	errInvalidArguments = errors.New("invalid arguments")
	errPathRequired     = errors.New("path is required")
	errOldTextNotFound  = errors.New("old_text was not found")
)

// failed is a failed result of a known kind.
func failed(kind agent.Failure, format string, args ...any) agent.ToolResult {
	r := errorf(format, args...)
	r.Failure = kind
	return r
}

// failureOf classifies the first error among a failure's arguments.
func failureOf(args []any) agent.Failure {
	for _, a := range args {
		err, ok := a.(error)
		if !ok {
			continue
		}
		var refused *confine.Error
		switch {
		case errors.As(err, &refused):
			return agent.FailurePathRefused
		case errors.Is(err, fs.ErrNotExist):
			return agent.FailureNotFound
		case errors.Is(err, fs.ErrPermission):
			return agent.FailurePermission
		case errors.Is(err, syscall.EISDIR):
			return agent.FailureNotAFile
		case errors.Is(err, errInvalidArguments), errors.Is(err, errPathRequired):
			return agent.FailureInvalidArguments
		case errors.Is(err, errOldTextNotFound):
			return agent.FailureNoMatch
		}
	}
	return ""
}

// timedOut and cancelled are a command's or a wait's ends.
func timedOut(timeout int, output string) agent.ToolResult {
	return agent.ToolResult{Content: fmt.Sprintf("Error: the command timed out after %ds.\n%s", timeout, output), IsError: true,
		Failure: agent.FailureTimeout}
}

func cancelled() agent.ToolResult {
	return agent.ToolResult{Content: "Cancelled.", IsError: true, Failure: agent.FailureCancelled}
}
