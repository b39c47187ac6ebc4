package tools

import (
	"context"
	"encoding/json"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/analysis/confine"
)

// CodeIntel is the analysis core as the agent's tools use it. Each method
// returns text for the model. Positions are 1-based lines and columns in
// workspace files. A call's context may carry the editor's texts of the
// session's files (see EditorTexts), which answers then prefer to the disk;
// roots are the session's workspace followed by its further roots (ACP's
// additional directories), paths shown relative to the first.
type CodeIntel interface {
	Resolve(ctx context.Context, root, path string, line, column int) (string, error)
	References(ctx context.Context, root, path string, line, column int) (string, error)
	Outline(ctx context.Context, root, path string) (string, error)
	WorkspaceSymbols(ctx context.Context, roots []string, query string) (string, error)
	Diagnostics(ctx context.Context, root, path string) (string, error)
}

type position struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

var positionParams = object(map[string]any{
	"path":   str("File path, relative to the workspace root."),
	"line":   integer("1-based line."),
	"column": integer("1-based column."),
}, "path", "line", "column")

// codeTools exposes code through the model's tools.
func codeTools(code CodeIntel) []tool {
	atPosition := func(f func(context.Context, string, string, int, int) (string, error)) func(context.Context, *agent.ToolEnv, json.RawMessage) agent.ToolResult {
		return func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
			var p position
			if err := decode(raw, &p); err != nil {
				return errorf("%v", err)
			}
			abs, _, err := resolve(env, p.Path, confine.Read)
			if err != nil {
				return errorf("%v", err)
			}
			return textResult(f(ctx, rootOf(env, abs), abs, p.Line, p.Column))
		}
	}
	inFile := func(f func(context.Context, string, string) (string, error)) func(context.Context, *agent.ToolEnv, json.RawMessage) agent.ToolResult {
		return func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
			var p position
			if err := decode(raw, &p); err != nil {
				return errorf("%v", err)
			}
			abs, _, err := resolve(env, p.Path, confine.Read)
			if err != nil {
				return errorf("%v", err)
			}
			return textResult(f(ctx, rootOf(env, abs), abs))
		}
	}
	pathOnly := object(map[string]any{"path": str("File path, relative to the workspace root.")}, "path")
	ts := []tool{
		{agent.ToolSpec{Name: "resolve_symbol", Description: "Find the declaration of the symbol at a position.", Parameters: positionParams}, atPosition(code.Resolve)},
		{agent.ToolSpec{Name: "find_references", Description: "Find references to the symbol at a position.", Parameters: positionParams}, atPosition(code.References)},
		{agent.ToolSpec{Name: "file_outline", Description: "Outline a file's declarations.", Parameters: pathOnly}, inFile(code.Outline)},
		{agent.ToolSpec{Name: "file_diagnostics", Description: "Report a file's syntax diagnostics.", Parameters: pathOnly}, inFile(code.Diagnostics)},
		{agent.ToolSpec{Name: WorkspaceSymbols, Description: "Search the declarations of the workspace and the session's further roots by name.",
			Parameters: object(map[string]any{"query": str("Name or part of a name.")}, "query")},
			func(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
				var p struct {
					Query string `json:"query"`
				}
				if err := decode(raw, &p); err != nil {
					return errorf("%v", err)
				}
				return textResult(code.WorkspaceSymbols(ctx, roots(env), p.Query))
			}},
	}
	if cs, ok := code.(CodeSearch); ok {
		ts = append(ts, searchTools(cs)...)
	}
	return ts
}

// roots are env's workspace and its further roots, the workspace first.
func roots(env *agent.ToolEnv) []string {
	return append([]string{env.Workspace}, env.Roots...)
}

func textResult(text string, err error) agent.ToolResult {
	if err != nil {
		return errorf("%v", err)
	}
	return agent.ToolResult{Content: text}
}
