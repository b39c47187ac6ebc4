package kimi

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/agent/tools"
)

// kimi-cli's diff display blocks: one per hunk of a file's change, with
// three lines of context on each side (the unified diff's hunks), the
// hunk's first line on each side (old_start, new_start, 1-based) and the
// file's absolute path; a file of more than hugeFileLines lines gets a
// single summary block instead.

const hugeFileLines = 10000

func diffBlock(path, oldText, newText string, oldStart, newStart int, summary bool) map[string]any {
	return map[string]any{"type": "diff", "path": path, "old_text": oldText, "new_text": newText,
		"old_start": oldStart, "new_start": newStart, "is_summary": summary}
}

// changeBlocks are the blocks of a change from old to updated.
func changeBlocks(path, old, updated string) []any {
	if old == updated {
		return []any{}
	}
	oldN, newN := lineCount(old), lineCount(updated)
	if max(oldN, newN) > hugeFileLines {
		newDesc := "(" + strconv.Itoa(newN) + " lines)"
		if oldN == newN {
			newDesc = "(" + strconv.Itoa(newN) + " lines, modified)"
		}
		return []any{diffBlock(path, "("+strconv.Itoa(oldN)+" lines)", newDesc, 1, 1, true)}
	}
	diff, _ := tools.UnifiedDiff(filepath.Base(path), old, updated)
	return hunkBlocks(path, diff)
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// hunkBlocks turns a unified diff's hunks into blocks. A side with no
// lines (a created or emptied file) starts at 1, as kimi-cli counts.
func hunkBlocks(path, unified string) []any {
	blocks := []any{}
	var oldLines, newLines []string
	oldStart, newStart, inHunk := 0, 0, false
	flush := func() {
		if inHunk {
			blocks = append(blocks, diffBlock(path, strings.Join(oldLines, "\n"), strings.Join(newLines, "\n"), oldStart, newStart, false))
		}
		oldLines, newLines = nil, nil
	}
	for _, line := range strings.Split(unified, "\n") {
		switch {
		case strings.HasPrefix(line, "@@ "):
			flush()
			oldStart, newStart, inHunk = hunkStarts(line)
		case !inHunk || line == "":
		case line[0] == ' ':
			oldLines, newLines = append(oldLines, line[1:]), append(newLines, line[1:])
		case line[0] == '-':
			oldLines = append(oldLines, line[1:])
		case line[0] == '+':
			newLines = append(newLines, line[1:])
		}
	}
	flush()
	return blocks
}

// hunkStarts reads "@@ -a,b +c,d @@".
func hunkStarts(header string) (oldStart, newStart int, ok bool) {
	fields := strings.Fields(header)
	if len(fields) < 3 {
		return 0, 0, false
	}
	side := func(f string) int {
		start, count, found := strings.Cut(f[1:], ",")
		n, _ := strconv.Atoi(start)
		if found && count == "0" {
			n++ // an empty range names the line before it
		}
		return max(n, 1)
	}
	return side(fields[1]), side(fields[2]), true
}

// absPath is a tool's path as kimi-cli shows it: absolute.
func (c *wireConn) absPath(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(c.workspace, path)
}

// previewBlocks are the diff blocks of a write or edit about to run,
// against the file as it is now; a call that cannot be previewed shows its
// replacements as given.
func (c *wireConn) previewBlocks(call agent.ToolCall) []any {
	if abs, old, updated, ok := tools.ChangePreview(&agent.ToolEnv{Workspace: c.workspace}, call); ok {
		return changeBlocks(abs, old, updated)
	}
	args := argsObject(call.Arguments)
	path := c.absPath(str(args, "path"))
	blocks := []any{}
	switch call.Name {
	case tools.EditFile:
		edits, _ := args["edits"].([]any)
		for _, e := range edits {
			m, _ := e.(map[string]any)
			blocks = append(blocks, diffBlock(path, str(m, "old_text"), str(m, "new_text"), 1, 1, false))
		}
	case tools.WriteFile:
		blocks = append(blocks, diffBlock(path, "", str(args, "content"), 1, 1, false))
	}
	return blocks
}
