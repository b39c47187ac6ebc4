package kward

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

type exportParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Format    string `json:"format"`
}

// sessionsExport writes the transcript as markdown or html, to a path inside
// the workspace or the session's folder (next to the session file by default).
func (k *Service) sessionsExport(ctx context.Context, p exportParams) (map[string]any, error) {
	ks, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	format := p.Format
	switch format {
	case "", "md":
		format = "markdown"
	case "markdown", "html":
	default:
		return nil, server.InvalidParams("unsupported export format %q; want markdown or html", p.Format)
	}
	ext := map[string]string{"markdown": ".md", "html": ".html"}[format]
	path := strings.TrimSuffix(ks.log.Path(), ".jsonl") + ext
	if p.Path != "" {
		if path, err = confinedPath(p.Path, ks.workspace, filepath.Dir(ks.log.Path())); err != nil {
			return nil, err
		}
	}
	title := ks.log.Name()
	if title == "" {
		title = "Session " + ks.log.Header().ID
	}
	text := exportMarkdown(title, ks.rt.History())
	if format == "html" {
		text = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) +
			"</title></head>\n<body><pre>" + html.EscapeString(text) + "</pre></body></html>\n"
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "format": format}, nil
}

// confinedPath resolves path against the workspace and accepts it only
// inside one of roots, symlinks of its folder resolved.
func confinedPath(path string, roots ...string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(roots[0], path)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(filepath.Clean(path)))
	if err != nil {
		return "", server.Error(jsonrpc2.InvalidParams, "EXPORT_PATH_INVALID", fmt.Sprintf("export folder %s does not exist", filepath.Dir(path)), nil)
	}
	resolved := filepath.Join(dir, filepath.Base(path))
	for _, root := range roots {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			if rel, err := filepath.Rel(real, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return resolved, nil
			}
		}
	}
	return "", server.Error(jsonrpc2.InvalidParams, "EXPORT_PATH_OUTSIDE",
		fmt.Sprintf("export path %s is outside the workspace and the session folder", path), map[string]any{"path": path})
}

func exportMarkdown(title string, history []agent.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", title)
	for _, m := range history {
		switch m.Role {
		case agent.RoleUser:
			fmt.Fprintf(&b, "\n## User\n\n%s\n", m.Text)
		case agent.RoleAssistant:
			b.WriteString("\n## Assistant\n\n")
			if m.ReasoningSummary != "" {
				fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(m.ReasoningSummary, "\n", "\n> "))
			}
			if m.Text != "" {
				fmt.Fprintf(&b, "%s\n", m.Text)
			}
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "\n**Tool call** `%s` `%s`\n", tc.Name, tc.Arguments)
			}
		case agent.RoleTool:
			fmt.Fprintf(&b, "\n## Tool result (%s)\n\n```\n%s\n```\n", m.Name, strings.TrimRight(m.Text, "\n"))
		default:
			fmt.Fprintf(&b, "\n## Summary\n\n%s\n", m.Text)
		}
	}
	return b.String()
}
