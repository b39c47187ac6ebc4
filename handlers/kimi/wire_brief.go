package kimi

import (
	"strconv"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// kimi-cli labels a failed call with a short `brief` display block, worded
// by its tool ("File not found", "Invalid arguments", "Rejected by user"…).
// kast's tools say why they failed (agent.Failure); the projection gives
// each failure the label kimi-cli's own tool gives the same failure, and
// the error's first line to a failure kimi-cli has no label for.

// Failures of the external tools the projection runs for the client, with
// kimi-cli's labels.
const (
	failureExternalError agent.Failure = "external_error" // the client answered the ToolCallRequest with an error
	failureInvalidResult agent.Failure = "invalid_result" // the client's reply is not a tool result
	failureTurnEnded     agent.Failure = "turn_ended"     // the turn ended before the client answered
)

// brief is the label of a failed call; feedback is what the user said when
// rejecting it.
func (c *wireConn) brief(call agent.ToolCall, r *agent.ToolResult, feedback string) string {
	dir := call.Name == tools.ListDirectory
	switch r.Failure {
	case agent.FailureNotFound:
		if dir {
			return "Directory not found"
		}
		return "File not found"
	case agent.FailurePathRefused:
		if dir {
			return "Directory outside workspace"
		}
		return "Invalid path"
	case agent.FailureNotAFile:
		if dir {
			return "Invalid directory"
		}
		return "Invalid path"
	case agent.FailureInvalidArguments:
		return "Invalid arguments"
	case agent.FailureUnknownTool:
		return "Tool `" + call.Name + "` not found"
	case agent.FailureBinary:
		return "File not readable"
	case agent.FailureNoMatch:
		return "No replacements made"
	case agent.FailurePermission:
		switch call.Name {
		case tools.ReadFile:
			return "Failed to read file"
		case tools.EditFile:
			return "Failed to edit file"
		case tools.WriteFile:
			return "Failed to write file"
		}
	case agent.FailureTimeout:
		return "Killed by timeout (" + strconv.Itoa(shellTimeout(call)) + "s)"
	case agent.FailureRejected:
		if feedback != "" {
			return "Rejected: " + feedback
		}
		return "Rejected by user"
	case agent.FailureDenied:
		return "Plan mode restriction" // the only calls the wire's policy denies
	case failureExternalError:
		return "External tool error"
	case failureInvalidResult:
		return "Invalid tool result"
	case failureTurnEnded:
		return "Turn ended"
	}
	return firstLine(r.Content)
}

// shellTimeout is a shell call's timeout in seconds, as the tool reads it.
func shellTimeout(call agent.ToolCall) int {
	if t, ok := argsObject(call.Arguments)["timeout_seconds"].(float64); ok && t > 0 {
		return min(int(t), tools.MaxShellTimeout)
	}
	return tools.DefaultShellTimeout
}

// rejected keeps the feedback of a rejected approval for its call's result.
func (c *wireConn) rejected(callID, feedback string) {
	if feedback == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.feedback == nil {
		c.feedback = map[string]string{}
	}
	c.feedback[callID] = feedback
}

// takeFeedback returns and forgets a call's rejection feedback.
func (c *wireConn) takeFeedback(callID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.feedback[callID]
	delete(c.feedback, callID)
	return f
}
