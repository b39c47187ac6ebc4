package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/agent"
)

// linkedEnv is a workspace with a folder and a file linked outside it and a
// file linked inside, next to the folder outside, which holds secret.txt.
func linkedEnv(t *testing.T) (env *agent.ToolEnv, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s3cr3t\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644))
	must(os.Symlink(outside, filepath.Join(ws, "out")))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "leak.txt")))
	must(os.Symlink("a.txt", filepath.Join(ws, "alias.txt")))
	return &agent.ToolEnv{Workspace: ws, Reads: &agent.ReadSet{}}, outside
}

// The model's probes: every tool that takes a path refuses the ways out and
// says which rule refused.
func TestToolsConfined(t *testing.T) {
	env, outside := linkedEnv(t)
	secret := filepath.Join(outside, "secret.txt")
	for _, p := range []struct {
		tool string
		args map[string]any
		rule string
	}{
		{ReadFile, map[string]any{"path": "out/secret.txt"}, "SYMLINK_ESCAPE"},
		{ReadFile, map[string]any{"path": "leak.txt"}, "SYMLINK_ESCAPE"},
		{ReadFile, map[string]any{"path": secret}, "OUTSIDE_WORKSPACE"},
		{ReadFile, map[string]any{"path": "out/../a.txt"}, "DOTDOT_AFTER_LINK"},
		{ListDirectory, map[string]any{"path": "out"}, "SYMLINK_ESCAPE"},
		{ListDirectory, map[string]any{"path": outside}, "OUTSIDE_WORKSPACE"},
		{WriteFile, map[string]any{"path": "out/new.txt", "content": "pwned"}, "SYMLINK_ESCAPE"},
		{WriteFile, map[string]any{"path": "out/secret.txt", "content": "pwned"}, "SYMLINK_ESCAPE"},
		{WriteFile, map[string]any{"path": "leak.txt", "content": "pwned"}, "SYMLINK_ESCAPE"},
		{WriteFile, map[string]any{"path": "out/../dotdot.txt", "content": "x"}, "DOTDOT_AFTER_LINK"},
		{EditFile, map[string]any{"path": "out/secret.txt", "edits": []map[string]string{{"old_text": "s3cr3t", "new_text": "pwned"}}}, "SYMLINK_ESCAPE"},
		{EditFile, map[string]any{"path": "leak.txt", "edits": []map[string]string{{"old_text": "s3cr3t", "new_text": "pwned"}}}, "SYMLINK_ESCAPE"},
	} {
		r := run(t, env, p.tool, p.args)
		if !r.IsError || !strings.Contains(r.Content, "confinement rule "+p.rule) || strings.Contains(r.Content, "s3cr3t") {
			t.Errorf("%s %v: %+v; want an error naming the rule %s", p.tool, p.args, r, p.rule)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "s3cr3t\n" {
		t.Errorf("the file outside changed: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("a file was created outside: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "dotdot.txt")); err == nil {
		t.Errorf("a path with .. after a link was written")
	}

	// The code tools take paths too.
	code := &recordingCode{}
	set := &Set{Code: code}
	for _, tool := range []string{"file_outline", "file_diagnostics"} {
		r := set.Run(context.Background(), env, agent.ToolCall{Name: tool, Arguments: `{"path":"out/secret.txt"}`})
		if !r.IsError || !strings.Contains(r.Content, "SYMLINK_ESCAPE") {
			t.Errorf("%s through the link: %+v", tool, r)
		}
	}
	r := set.Run(context.Background(), env, agent.ToolCall{Name: "resolve_symbol", Arguments: `{"path":"leak.txt","line":1,"column":1}`})
	if !r.IsError || !strings.Contains(r.Content, "SYMLINK_ESCAPE") {
		t.Errorf("resolve_symbol through the link: %+v", r)
	}
	if len(code.paths) != 0 {
		t.Errorf("the code tools were asked about %v", code.paths)
	}
}

// A link that stays inside works as its target: reading it counts as
// reading the target, and a write lands on the target, the link kept.
func TestToolsThroughLinkInside(t *testing.T) {
	env, _ := linkedEnv(t)
	alias, target := filepath.Join(env.Workspace, "alias.txt"), filepath.Join(env.Workspace, "a.txt")
	if r := run(t, env, ReadFile, map[string]any{"path": "alias.txt"}); r.IsError || r.Content != "one\n" {
		t.Fatalf("read through the link: %+v", r)
	}
	r := run(t, env, EditFile, map[string]any{"path": "a.txt", "edits": []map[string]string{{"old_text": "one", "new_text": "two"}}})
	if r.IsError || len(r.ChangedFiles) != 1 || r.ChangedFiles[0] != "a.txt" {
		t.Fatalf("editing the target read through its link: %+v", r)
	}
	if r := run(t, env, WriteFile, map[string]any{"path": "alias.txt", "content": "three\n"}); r.IsError {
		t.Fatalf("write through the link: %+v", r)
	}
	if fi, err := os.Lstat(alias); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "three\n" {
		t.Errorf("the target holds %q", b)
	}
}

// recordingCode is a CodeIntel that records the paths it is asked about.
type recordingCode struct{ paths []string }

func (c *recordingCode) Resolve(_ context.Context, _, path string, _, _ int) (string, error) {
	c.paths = append(c.paths, path)
	return "", nil
}

func (c *recordingCode) References(_ context.Context, _, path string, _, _ int) (string, error) {
	c.paths = append(c.paths, path)
	return "", nil
}

func (c *recordingCode) Outline(_ context.Context, _, path string) (string, error) {
	c.paths = append(c.paths, path)
	return "", nil
}

func (c *recordingCode) WorkspaceSymbols(context.Context, []string, string) (string, error) {
	return "", nil
}

func (c *recordingCode) Diagnostics(_ context.Context, _, path string) (string, error) {
	c.paths = append(c.paths, path)
	return "", nil
}
