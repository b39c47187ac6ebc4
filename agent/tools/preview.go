package tools

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
)

// ChangePreview is what a write_file or edit_file call would do to its file,
// computed without writing: for clients that show the change while asking
// to approve it (kimi-cli's diff blocks). The path is confined as the call's
// own; ok is false for another tool or a call that would fail.
func ChangePreview(env *agent.ToolEnv, call agent.ToolCall) (abs, old, updated string, ok bool) {
	raw := json.RawMessage(call.Arguments)
	switch call.Name {
	case WriteFile:
		args, abs, _, err := decodeWrite(env, raw)
		if err != nil {
			return "", "", "", false
		}
		data, err := os.ReadFile(abs)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", "", "", false
		}
		return abs, string(data), *args.Content, true
	case EditFile:
		var args struct {
			Path  string     `json:"path"`
			Edits []textEdit `json:"edits"`
		}
		if decode(raw, &args) != nil || len(args.Edits) == 0 {
			return "", "", "", false
		}
		abs, _, err := resolve(env, args.Path, confine.Write)
		if err != nil {
			return "", "", "", false
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return "", "", "", false
		}
		updated, err := replaceExact(string(data), args.Path, args.Edits)
		if err != nil {
			return "", "", "", false
		}
		return abs, string(data), updated, true
	}
	return "", "", "", false
}
