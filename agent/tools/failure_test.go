package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/agent"
)

// Each failure a client may label carries its kind; the text stays as the
// model has always read it.
func TestFailureKinds(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	_ = os.WriteFile(filepath.Join(env.Workspace, "bin.dat"), []byte{'a', 0, 'b'}, 0o644)
	_ = os.WriteFile(filepath.Join(env.Workspace, "a.txt"), []byte("alpha\n"), 0o644)
	_ = os.Mkdir(filepath.Join(env.Workspace, "dir"), 0o755)
	env.Reads.Mark(filepath.Join(env.Workspace, "a.txt"))
	for _, tc := range []struct {
		name, args string
		want       agent.Failure
		text       string
	}{
		{ReadFile, `{"path":"missing.txt"}`, agent.FailureNotFound, "Error: " + filepath.Join(env.Workspace, "missing.txt") + ": no such file or directory"},
		{ReadFile, `{"path":"` + filepath.Join(outside, "x.txt") + `"}`, agent.FailurePathRefused, ""},
		{ReadFile, `{"path":"../x.txt"}`, agent.FailurePathRefused, ""},
		{ReadFile, `{"path":""}`, agent.FailureInvalidArguments, "Error: path is required"},
		{ReadFile, `{"path":3}`, agent.FailureInvalidArguments, ""},
		{ReadFile, `{bad`, agent.FailureInvalidArguments, ""},
		{ReadFile, `{"path":"bin.dat"}`, agent.FailureBinary, "Error: bin.dat is a binary file"},
		{ReadFile, `{"path":"dir"}`, agent.FailureNotAFile, ""},
		{EditFile, `{"path":"a.txt","edits":[{"old_text":"beta","new_text":"b"}]}`, agent.FailureNoMatch, "Error: edit 1: old_text was not found in a.txt"},
		{ListDirectory, `{"path":"nodir"}`, agent.FailureNotFound, ""},
		{"no_such_tool", `{}`, agent.FailureUnknownTool, ""},
		{ReadFile, `{"path":"a.txt"}`, "", ""},
	} {
		r := (&Set{}).Run(context.Background(), env, agent.ToolCall{Name: tc.name, Arguments: tc.args})
		if r.Failure != tc.want || r.IsError != (tc.want != "") {
			t.Errorf("%s %s: failure %q (error %v), want %q: %s", tc.name, tc.args, r.Failure, r.IsError, tc.want, r.Content)
		}
		if tc.text != "" && r.Content != tc.text {
			t.Errorf("%s %s: text %q, want %q", tc.name, tc.args, r.Content, tc.text)
		}
	}
}
