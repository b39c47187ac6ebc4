package tools

import (
	"encoding/json"

	"github.com/kast-dev/kast/agent"
)

// NormalizedName is the tool name UI clients show: read, edit, write, bash,
// ls; other tools keep their own name.
func NormalizedName(raw string) string {
	switch raw {
	case ReadFile:
		return "read"
	case EditFile:
		return "edit"
	case WriteFile:
		return "write"
	case RunShellCommand:
		return "bash"
	case ListDirectory:
		return "ls"
	}
	return raw
}

// NormalizedArgs rewrites a call's arguments in the normalized vocabulary:
// edits use oldText/newText and the shell timeout is timeout (seconds).
// Arguments that do not parse are returned as {"raw": text}.
func NormalizedArgs(call agent.ToolCall) map[string]any {
	args := map[string]any{}
	if call.Arguments != "" && json.Unmarshal([]byte(call.Arguments), &args) != nil {
		return map[string]any{"raw": call.Arguments}
	}
	switch call.Name {
	case EditFile:
		var edits []map[string]any
		if list, ok := args["edits"].([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					edits = append(edits, map[string]any{"oldText": m["old_text"], "newText": m["new_text"]})
				}
			}
		}
		return map[string]any{"path": args["path"], "edits": edits}
	case RunShellCommand:
		timeout := args["timeout_seconds"]
		if timeout == nil {
			timeout = DefaultShellTimeout
		}
		return map[string]any{"command": args["command"], "timeout": timeout}
	}
	return args
}
