// Package tools implements the agent's tools: file reading, writing and
// editing, shell commands, directory listings and questions to the user,
// plus the code-intelligence tools when an analysis backend is plugged in.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
)

// MaxOutput caps the bytes of one tool result given to the model.
const MaxOutput = 32 << 10

// Raw tool names, as the model sees them.
const (
	ReadFile        = "read_file"
	WriteFile       = "write_file"
	EditFile        = "edit_file"
	DeleteFile      = "delete_file"
	RenameFile      = "rename_file"
	RunShellCommand = "run_shell_command"
	ListDirectory   = "list_directory"
	AskUserQuestion = "ask_user_question"
)

// Set is the agent's toolset. It implements agent.Toolset.
type Set struct {
	// Code backs the code-intelligence tools; nil leaves them out.
	Code CodeIntel
	// Proposals shapes the set for sessions whose file changes a person
	// approves (agent.ToolEnv.Propose, see agent.Proposal): delete_file and
	// rename_file join write_file and edit_file, whose parameters then take
	// a description and a confidence for the reviewer, and the shell, whose
	// changes could not be proposed, is left out.
	Proposals bool
}

type tool struct {
	spec agent.ToolSpec
	run  func(ctx context.Context, env *agent.ToolEnv, args json.RawMessage) agent.ToolResult
}

func (s *Set) tools() []tool {
	ts := []tool{
		{readFileSpec, readFile},
		{writeFileSpec, writeFile},
		{editFileSpec, editFile},
		{runShellSpec, runShell},
		{listDirectorySpec, listDirectory},
		{askUserSpec, askUser},
	}
	if s.Proposals {
		ts = []tool{
			{readFileSpec, readFile},
			{proposalSpec(writeFileSpec), writeFile},
			{proposalSpec(editFileSpec), editFile},
			{proposalSpec(deleteFileSpec), deleteFile},
			{proposalSpec(renameFileSpec), renameFile},
			{listDirectorySpec, listDirectory},
			{askUserSpec, askUser},
		}
	}
	if s.Code != nil {
		ts = append(ts, codeTools(s.Code)...)
	}
	return ts
}

// Specs lists the tools offered to the model.
func (s *Set) Specs() []agent.ToolSpec {
	var specs []agent.ToolSpec
	for _, t := range s.tools() {
		specs = append(specs, t.spec)
	}
	return specs
}

// Run executes call. An unknown tool or bad arguments come back as an error
// result for the model, never as a crash.
func (s *Set) Run(ctx context.Context, env *agent.ToolEnv, call agent.ToolCall) agent.ToolResult {
	for _, t := range s.tools() {
		if t.spec.Name == call.Name {
			args := json.RawMessage(call.Arguments)
			if strings.TrimSpace(call.Arguments) == "" {
				args = json.RawMessage("{}")
			}
			if !json.Valid(args) {
				return failed(agent.FailureInvalidArguments, "the arguments of %s are not valid JSON: %s", call.Name, Sanitize(call.Arguments, 200))
			}
			r := t.run(context.WithValue(ctx, callKey{}, call), env, args)
			r.Content = Sanitize(r.Content, MaxOutput)
			return r
		}
	}
	return failed(agent.FailureUnknownTool, "unknown tool %q", call.Name)
}

// errorf is a failed result; the Error: prefix is how Kward-style clients and
// models recognise failures in text.
func errorf(format string, args ...any) agent.ToolResult {
	return agent.ToolResult{Content: "Error: " + fmt.Sprintf(format, args...), IsError: true, Failure: failureOf(args)}
}

// decode unmarshals args into v or explains the problem.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%w: %v", errInvalidArguments, err)
	}
	return nil
}

// resolve applies the confinement rule (package confine) to a path the model
// names, relative to the workspace or absolute inside it, for access. It
// returns the path to do the I/O on (links resolved: a write through a link
// that stays inside lands on its target) and that path relative to the
// workspace, for display. A refusal's message names the rule.
func resolve(env *agent.ToolEnv, path string, access confine.Access) (real, rel string, err error) {
	if path == "" {
		return "", "", errPathRequired
	}
	if !filepath.IsAbs(path) {
		// Joined without cleaning, so that a ".." after a link is seen.
		path = env.Workspace + string(filepath.Separator) + path
	}
	real, err = confine.Check(append([]string{env.Workspace}, env.Roots...), path, access)
	if err != nil {
		return "", "", err
	}
	if !within(env.Workspace, real) {
		return real, filepath.ToSlash(real), nil // under a further root: shown whole
	}
	rel, err = filepath.Rel(filepath.Clean(env.Workspace), real)
	if err != nil {
		return "", "", err
	}
	return real, filepath.ToSlash(rel), nil
}

// rootOf is the root of env holding abs, the innermost of the workspace
// and its further roots, whose index the code tools query.
func rootOf(env *agent.ToolEnv, abs string) string {
	best := ""
	for _, r := range append([]string{env.Workspace}, env.Roots...) {
		if within(r, abs) && len(filepath.Clean(r)) > len(best) {
			best = filepath.Clean(r)
		}
	}
	if best == "" {
		return env.Workspace
	}
	return best
}

func within(root, abs string) bool {
	root = filepath.Clean(root)
	return abs == root || strings.HasPrefix(abs, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// Sanitize makes s valid UTF-8 and caps it at max bytes, cut on a rune
// boundary, saying how much was left out.
func Sanitize(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… [output truncated: %d more bytes]", len(s)-cut)
}
