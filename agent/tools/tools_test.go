package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/agent"
)

func run(t *testing.T, env *agent.ToolEnv, name string, args any) agent.ToolResult {
	t.Helper()
	raw, _ := json.Marshal(args)
	return (&Set{}).Run(context.Background(), env, agent.ToolCall{ID: "c", Name: name, Arguments: string(raw)})
}

func newEnv(t *testing.T) *agent.ToolEnv {
	return &agent.ToolEnv{Workspace: t.TempDir(), Reads: &agent.ReadSet{}}
}

func TestReadBeforeWriteAndEdit(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o640)

	if r := run(t, env, EditFile, map[string]any{"path": "a.txt", "edits": []map[string]string{{"old_text": "two", "new_text": "2"}}}); !r.IsError || !strings.Contains(r.Content, "read it before") {
		t.Fatalf("edit before read: %+v", r)
	}
	if r := run(t, env, WriteFile, map[string]any{"path": "a.txt", "content": "x"}); !r.IsError {
		t.Fatalf("overwrite before read: %+v", r)
	}
	if r := run(t, env, ReadFile, map[string]any{"path": "a.txt", "offset": 2, "limit": 1}); r.Content != "two\n" {
		t.Fatalf("range read: %+v", r)
	}
	r := run(t, env, EditFile, map[string]any{"path": "a.txt", "edits": []map[string]string{
		{"old_text": "three", "new_text": "3"}, {"old_text": "one\n", "new_text": "1\n"},
	}})
	if r.IsError {
		t.Fatal(r.Content)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "1\ntwo\n3\n" {
		t.Fatalf("edited: %q", data)
	}
	wantDiff := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-one\n+1\n two\n-three\n+3\n"
	if r.Diff != wantDiff || r.FirstChangedLine != 1 || r.ChangedFiles[0] != "a.txt" {
		t.Fatalf("diff:\n%s\nfirst %d files %v", r.Diff, r.FirstChangedLine, r.ChangedFiles)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("edit changed the mode to %v", fi.Mode().Perm())
	}
	for _, bad := range []map[string]string{{"old_text": "absent", "new_text": ""}, {"old_text": "\n", "new_text": ""}} {
		if r := run(t, env, EditFile, map[string]any{"path": "a.txt", "edits": []map[string]string{bad}}); !r.IsError {
			t.Fatalf("edit %v should fail", bad)
		}
	}
	if r := run(t, env, EditFile, map[string]any{"path": "a.txt", "edits": []map[string]string{
		{"old_text": "1\ntwo", "new_text": "x"}, {"old_text": "two\n3", "new_text": "y"},
	}}); !r.IsError || !strings.Contains(r.Content, "overlap") {
		t.Fatalf("overlapping edits: %+v", r)
	}
	// A new file needs no read; its diff adds every line.
	r = run(t, env, WriteFile, map[string]any{"path": "sub/new.txt", "content": "hello\n"})
	if r.IsError || r.Diff != "--- a/sub/new.txt\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+hello\n" {
		t.Fatalf("create: %+v", r)
	}
	if r := run(t, env, ReadFile, map[string]any{"path": "../outside"}); !r.IsError || !strings.Contains(r.Content, "outside the workspace") {
		t.Fatalf("escape: %+v", r)
	}
}

func TestUnifiedDiffHunks(t *testing.T) {
	var old, new []string
	for i := 1; i <= 20; i++ {
		old = append(old, fmt.Sprint("line ", i))
		new = append(new, fmt.Sprint("line ", i))
	}
	new[1], new[17] = "changed 2", "changed 18"
	diff, first := UnifiedDiff("f", strings.Join(old, "\n")+"\n", strings.Join(new, "\n"))
	if first != 2 || strings.Count(diff, "@@ -") != 2 || !strings.HasSuffix(diff, "\\ No newline at end of file\n") {
		t.Fatalf("first %d diff:\n%s", first, diff)
	}
	if !strings.Contains(diff, "@@ -1,5 +1,5 @@\n line 1\n-line 2\n+changed 2\n line 3\n") {
		t.Fatalf("first hunk:\n%s", diff)
	}
}

func TestShell(t *testing.T) {
	env := newEnv(t)
	r := run(t, env, RunShellCommand, map[string]any{"command": "pwd; echo err >&2; exit 3"})
	if !strings.Contains(r.Content, env.Workspace) || !strings.Contains(r.Content, "err") || !strings.Contains(r.Content, "Exit code: 3") {
		t.Fatalf("shell: %+v", r)
	}
	start := time.Now()
	r = run(t, env, RunShellCommand, map[string]any{"command": "sleep 30 & sleep 30", "timeout_seconds": 1})
	if !r.IsError || !strings.Contains(r.Content, "timed out after 1s") || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout after %v: %+v", time.Since(start), r)
	}
	r = run(t, env, RunShellCommand, map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' a; printf '\\377'"})
	if len(r.Content) > MaxOutput+100 || !strings.Contains(r.Content, "output truncated") {
		t.Fatalf("uncapped output: %d bytes", len(r.Content))
	}
}

func TestSanitize(t *testing.T) {
	if got := Sanitize("ok\xffé", 100); got != "ok\uFFFDé" {
		t.Fatalf("sanitize %q", got)
	}
	if got := Sanitize("ééé", 3); !strings.HasPrefix(got, "é\n") {
		t.Fatalf("cut inside a rune: %q", got)
	}
}

func TestListAndUnknown(t *testing.T) {
	env := newEnv(t)
	os.Mkdir(filepath.Join(env.Workspace, "dir"), 0o755)
	os.WriteFile(filepath.Join(env.Workspace, "f"), nil, 0o644)
	if r := run(t, env, ListDirectory, map[string]any{}); r.Content != "dir/\nf\n" {
		t.Fatalf("list: %q", r.Content)
	}
	r := (&Set{}).Run(context.Background(), env, agent.ToolCall{Name: "nope", Arguments: "{}"})
	if !r.IsError || !strings.HasPrefix(r.Content, "Error: unknown tool") {
		t.Fatalf("unknown tool: %+v", r)
	}
	r = (&Set{}).Run(context.Background(), env, agent.ToolCall{Name: ReadFile, Arguments: "{bad"})
	if !r.IsError {
		t.Fatalf("bad JSON: %+v", r)
	}
}

func TestAskUser(t *testing.T) {
	env := newEnv(t)
	qs := []agent.Question{{Question: "Color?", Header: "c", Options: []agent.QuestionOption{{Label: "red"}, {Label: "blue"}}}}
	if r := run(t, env, AskUserQuestion, map[string]any{"questions": qs}); !r.IsError {
		t.Fatalf("no asker: %+v", r)
	}
	env.Ask = func(ctx context.Context, got []agent.Question) ([]agent.Answer, error) {
		return []agent.Answer{{Question: got[0].Question, Answer: "blue"}}, nil
	}
	if r := run(t, env, AskUserQuestion, map[string]any{"questions": qs}); r.Content != "Color?: blue\n" {
		t.Fatalf("answer: %+v", r)
	}
	env.Ask = func(context.Context, []agent.Question) ([]agent.Answer, error) { return nil, nil }
	if r := run(t, env, AskUserQuestion, map[string]any{"questions": qs}); r.IsError || !strings.Contains(r.Content, "dismissed") {
		t.Fatalf("dismissed: %+v", r)
	}
	qs[0].Options = qs[0].Options[:1]
	if r := run(t, env, AskUserQuestion, map[string]any{"questions": qs}); !r.IsError {
		t.Fatalf("one option accepted: %+v", r)
	}
}

func TestNormalize(t *testing.T) {
	call := agent.ToolCall{Name: EditFile, Arguments: `{"path":"a","edits":[{"old_text":"x","new_text":"y"}]}`}
	got, _ := json.Marshal(NormalizedArgs(call))
	if NormalizedName(call.Name) != "edit" || string(got) != `{"edits":[{"newText":"y","oldText":"x"}],"path":"a"}` {
		t.Fatalf("edit: %s", got)
	}
	got, _ = json.Marshal(NormalizedArgs(agent.ToolCall{Name: RunShellCommand, Arguments: `{"command":"ls"}`}))
	if string(got) != `{"command":"ls","timeout":30}` {
		t.Fatalf("bash: %s", got)
	}
}
