package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
)

// maxListEntries caps a directory listing.
const maxListEntries = 1000

var readFileSpec = agent.ToolSpec{
	Name:        ReadFile,
	Description: "Read a text file in the workspace. offset is the first line (1-based), limit the number of lines.",
	Parameters: object(map[string]any{
		"path":   str("File path, relative to the workspace root or absolute inside it."),
		"offset": integer("First line to read, 1-based."),
		"limit":  integer("Maximum number of lines to read."),
	}, "path"),
}

func readFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
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
	data, err := os.ReadFile(abs)
	if err != nil {
		return errorf("%v", describe(err))
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return failed(agent.FailureBinary, "%s is a binary file", args.Path)
	}
	env.Reads.Mark(abs)
	return lineWindow(args.Path, string(data), args.Offset, args.Limit)
}

// lineWindow is read_file's answer: text from line offset (1-based), at most
// limit lines (0: to the end).
func lineWindow(path, text string, offset, limit int) agent.ToolResult {
	if offset > 1 || limit > 0 {
		lines := strings.SplitAfter(text, "\n")
		start := max(offset, 1) - 1
		if start >= len(lines) {
			return errorf("%s has %d lines; offset %d is past the end", path, len(lines), offset)
		}
		end := len(lines)
		if limit > 0 && start+limit < end {
			end = start + limit
		}
		text = strings.Join(lines[start:end], "")
	}
	return agent.ToolResult{Content: text}
}

var writeFileSpec = agent.ToolSpec{
	Name:        WriteFile,
	Description: "Create a file or replace its whole content. An existing file must be read first.",
	Parameters: object(map[string]any{
		"path":    str("File path, relative to the workspace root or absolute inside it."),
		"content": str("The complete new content."),
	}, "path", "content"),
}

// writeArgs are write_file's arguments.
type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
	reviewArgs
}

// decodeWrite reads write_file's arguments and resolves its path for writing.
func decodeWrite(env *agent.ToolEnv, raw json.RawMessage) (args writeArgs, abs, rel string, err error) {
	if err = decode(raw, &args); err != nil {
		return args, "", "", err
	}
	if args.Content == nil {
		return args, "", "", errors.New("content is required")
	}
	abs, rel, err = resolve(env, args.Path, confine.Write)
	return args, abs, rel, err
}

func writeFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	args, abs, rel, err := decodeWrite(env, raw)
	if err != nil {
		return errorf("%v", err)
	}
	old, err := os.ReadFile(abs)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errorf("%v", describe(err))
	}
	if env.Propose != nil {
		// The person reviews the diff against the file as it is now, and
		// the change applies only while it still is: no prior read needed.
		p := agent.Proposal{Change: agent.ChangeWrite, Path: rel, File: abs, Original: string(old), Proposed: *args.Content}
		verb := "Wrote"
		if !exists {
			p.Change, verb = agent.ChangeCreate, "Created"
		}
		return propose(ctx, env, p, args.reviewArgs, fmt.Sprintf("%s %s (%d bytes).", verb, rel, len(*args.Content)))
	}
	if exists && !env.Reads.Has(abs) {
		return errorf("%s exists and was not read in this session; read it before overwriting it", args.Path)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return errorf("%v", describe(err))
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(abs, []byte(*args.Content), mode); err != nil {
		return errorf("%v", describe(err))
	}
	env.Reads.Mark(abs)
	return written(rel, string(old), *args.Content, exists)
}

// written is write_file's answer: what changed, as a diff.
func written(rel, old, content string, existed bool) agent.ToolResult {
	diff, first := UnifiedDiff(rel, old, content)
	verb := "Created"
	if existed {
		verb = "Wrote"
	}
	return agent.ToolResult{Content: fmt.Sprintf("%s %s (%d bytes).", verb, rel, len(content)),
		Diff: diff, ChangedFiles: []string{rel}, FirstChangedLine: first}
}

var editFileSpec = agent.ToolSpec{
	Name: EditFile,
	Description: "Edit a file by exact replacements. Each old_text must occur exactly once in the file as last read; " +
		"edits must not overlap. The file must be read first.",
	Parameters: object(map[string]any{
		"path": str("File path, relative to the workspace root or absolute inside it."),
		"edits": map[string]any{
			"type": "array",
			"items": object(map[string]any{
				"old_text": str("Exact text to replace; must match once."),
				"new_text": str("Replacement text."),
			}, "old_text", "new_text"),
		},
	}, "path", "edits"),
}

func editFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Path  string     `json:"path"`
		Edits []textEdit `json:"edits"`
		reviewArgs
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	if len(args.Edits) == 0 {
		return failed(agent.FailureInvalidArguments, "edits is empty")
	}
	abs, rel, err := resolve(env, args.Path, confine.Write)
	if err != nil {
		return errorf("%v", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return errorf("%v", describe(err))
	}
	if env.Propose == nil && !env.Reads.Has(abs) {
		return errorf("%s was not read in this session; read it before editing it", args.Path)
	}
	old := string(data)
	updated, err := replaceExact(old, args.Path, args.Edits)
	if err != nil {
		return errorf("%v", err)
	}
	spans := args.Edits
	if env.Propose != nil {
		p := agent.Proposal{Change: agent.ChangeEdit, Path: rel, File: abs, Original: old, Proposed: updated}
		return propose(ctx, env, p, args.reviewArgs, fmt.Sprintf("Edited %s: %d replacement(s).", rel, len(spans)))
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return errorf("%v", describe(err))
	}
	if err := os.WriteFile(abs, []byte(updated), fi.Mode().Perm()); err != nil {
		return errorf("%v", describe(err))
	}
	diff, first := UnifiedDiff(rel, old, updated)
	return agent.ToolResult{Content: fmt.Sprintf("Edited %s: %d replacement(s).", rel, len(spans)),
		Diff: diff, ChangedFiles: []string{rel}, FirstChangedLine: first}
}

// textEdit is one exact replacement of edit_file.
type textEdit struct {
	OldText string `json:"old_text"`
	NewText string `json:"new_text"`
}

// replaceExact applies edits to old: each old_text must occur exactly once
// and the edits must not overlap. path names the file in errors.
func replaceExact(old, path string, edits []textEdit) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for i, e := range edits {
		if e.OldText == "" {
			return "", fmt.Errorf("edit %d: old_text is empty", i+1)
		}
		switch n := strings.Count(old, e.OldText); n {
		case 0:
			return "", fmt.Errorf("edit %d: %w in %s", i+1, errOldTextNotFound, path)
		case 1:
			start := strings.Index(old, e.OldText)
			spans = append(spans, span{start, start + len(e.OldText), e.NewText})
		default:
			return "", fmt.Errorf("edit %d: old_text occurs %d times in %s; include more context so it matches once", i+1, n, path)
		}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	var b strings.Builder
	pos := 0
	for i, s := range spans {
		if i > 0 && s.start < spans[i-1].end {
			return "", fmt.Errorf("edits overlap in %s", path)
		}
		b.WriteString(old[pos:s.start])
		b.WriteString(s.text)
		pos = s.end
	}
	b.WriteString(old[pos:])
	return b.String(), nil
}

var deleteFileSpec = agent.ToolSpec{
	Name:        DeleteFile,
	Description: "Delete a file in the workspace.",
	Parameters: object(map[string]any{
		"path": str("File path, relative to the workspace root or absolute inside it."),
	}, "path"),
}

func deleteFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Path string `json:"path"`
		reviewArgs
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	abs, rel, err := resolve(env, args.Path, confine.Delete)
	if err != nil {
		return errorf("%v", err)
	}
	if fi, err := os.Lstat(abs); err != nil {
		return errorf("%v", describe(err))
	} else if fi.IsDir() {
		return failed(agent.FailureNotAFile, "%s is a folder; only files are deleted", rel)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return errorf("%v", describe(err))
	}
	if env.Propose != nil {
		p := agent.Proposal{Change: agent.ChangeDelete, Path: rel, File: abs, Original: string(data)}
		return propose(ctx, env, p, args.reviewArgs, fmt.Sprintf("Deleted %s.", rel))
	}
	if !env.Reads.Has(abs) {
		return errorf("%s was not read in this session; read it before deleting it", args.Path)
	}
	if err := os.Remove(abs); err != nil {
		return errorf("%v", describe(err))
	}
	diff, _ := UnifiedDiff(rel, string(data), "")
	return agent.ToolResult{Content: fmt.Sprintf("Deleted %s.", rel), Diff: diff, ChangedFiles: []string{rel}}
}

var renameFileSpec = agent.ToolSpec{
	Name:        RenameFile,
	Description: "Move a file to a new path in the workspace; the new path must not exist.",
	Parameters: object(map[string]any{
		"path":     str("File path, relative to the workspace root or absolute inside it."),
		"new_path": str("The new path, relative to the workspace root or absolute inside it."),
	}, "path", "new_path"),
}

func renameFile(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Path    string `json:"path"`
		NewPath string `json:"new_path"`
		reviewArgs
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	abs, rel, err := resolve(env, args.Path, confine.Delete)
	if err != nil {
		return errorf("%v", err)
	}
	if args.NewPath == "" {
		return failed(agent.FailureInvalidArguments, "new_path is required")
	}
	newAbs, newRel, err := resolve(env, args.NewPath, confine.Create)
	if err != nil {
		return errorf("%v", err)
	}
	if fi, err := os.Lstat(abs); err != nil {
		return errorf("%v", describe(err))
	} else if fi.IsDir() {
		return failed(agent.FailureNotAFile, "%s is a folder; only files are renamed", rel)
	}
	if _, err := os.Lstat(newAbs); err == nil {
		return errorf("%s exists already", newRel)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return errorf("%v", describe(err))
	}
	done := fmt.Sprintf("Renamed %s to %s.", rel, newRel)
	if env.Propose != nil {
		p := agent.Proposal{Change: agent.ChangeRename, Path: rel, NewPath: newRel, File: abs, NewFile: newAbs,
			Original: string(data), Proposed: string(data)}
		return propose(ctx, env, p, args.reviewArgs, done)
	}
	if err := os.MkdirAll(filepath.Dir(newAbs), 0o755); err != nil {
		return errorf("%v", describe(err))
	}
	if err := os.Rename(abs, newAbs); err != nil {
		return errorf("%v", describe(err))
	}
	return agent.ToolResult{Content: done, ChangedFiles: []string{rel, newRel}}
}

var listDirectorySpec = agent.ToolSpec{
	Name:        ListDirectory,
	Description: "List a directory in the workspace; folders end with /.",
	Parameters: object(map[string]any{
		"path": str("Directory path, relative to the workspace root; default the root."),
	}),
}

func listDirectory(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Path string `json:"path"`
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	if args.Path == "" {
		args.Path = "."
	}
	abs, _, err := resolve(env, args.Path, confine.Read)
	if err != nil {
		return errorf("%v", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return errorf("%v", describe(err))
	}
	var b strings.Builder
	for i, e := range entries {
		if i == maxListEntries {
			fmt.Fprintf(&b, "… and %d more entries\n", len(entries)-i)
			break
		}
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if len(entries) == 0 {
		return agent.ToolResult{Content: "(empty directory)"}
	}
	return agent.ToolResult{Content: b.String()}
}

// describe drops the Go-specific "open /x:" noise while keeping the cause.
func describe(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

func object(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required == nil {
		required = []string{}
	}
	o["required"] = required
	return o
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
func integer(desc string) map[string]any {
	return map[string]any{"type": "integer", "description": desc}
}
