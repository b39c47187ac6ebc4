package agent

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis/confine"
)

// ExportPathError is an export path that cannot be written.
type ExportPathError struct {
	Path string
	// Outside: the path is outside the workspace and the session folder;
	// otherwise its folder does not exist.
	Outside bool
}

func (e *ExportPathError) Error() string {
	if e.Outside {
		return fmt.Sprintf("export path %s is outside the workspace and the session folder", e.Path)
	}
	return fmt.Sprintf("export folder %s does not exist", filepath.Dir(e.Path))
}

// Export writes the session's transcript as markdown or html ("" and "md"
// mean markdown) to path, inside the workspace or the session's folder
// (next to the session file when path is ""), and returns the path written
// and the format.
func (m *Manager) Export(sessionID, path, format string) (string, string, error) {
	ms, err := m.Session(sessionID)
	if err != nil {
		return "", "", err
	}
	switch format {
	case "", "md":
		format = "markdown"
	case "markdown", "html":
	default:
		return "", "", &InputError{fmt.Sprintf("unsupported export format %q; want markdown or html", format)}
	}
	ext := map[string]string{"markdown": ".md", "html": ".html"}[format]
	out := strings.TrimSuffix(ms.log.Path(), ".jsonl") + ext
	if path != "" {
		if out, err = confinedPath(path, ms.workspace, filepath.Dir(ms.log.Path())); err != nil {
			return "", "", err
		}
	}
	title := ms.log.Name()
	if title == "" {
		title = "Session " + ms.log.Header().ID
	}
	text := exportMarkdown(title, ms.rt.History())
	if format == "html" {
		text = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) +
			"</title></head>\n<body><pre>" + html.EscapeString(text) + "</pre></body></html>\n"
	}
	// An export leaves kast's keeping: known secrets and secret-looking
	// strings are redacted, as on the wire.
	text = m.opts.Secrets.String(text)
	if err := os.WriteFile(out, []byte(text), 0o600); err != nil {
		return "", "", err
	}
	return out, format, nil
}

// confinedPath resolves path against the first root and accepts it only
// under one of roots, by the one confinement rule every client path obeys
// (analysis/confine): every symlink resolved, a final link included, so an
// export never writes through a link out of the workspace.
func confinedPath(path string, roots ...string) (string, error) {
	if !filepath.IsAbs(path) {
		// Joined without cleaning, so a ".." after a link is still seen.
		path = roots[0] + string(filepath.Separator) + path
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return "", &ExportPathError{Path: path}
	}
	access := confine.Create
	if _, err := os.Lstat(path); err == nil {
		access = confine.Write
	}
	real, err := confine.Check(roots, path, access)
	if err != nil {
		return "", &ExportPathError{Path: path, Outside: true}
	}
	return real, nil
}

func exportMarkdown(title string, history []Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", title)
	for _, m := range history {
		switch m.Role {
		case RoleUser:
			fmt.Fprintf(&b, "\n## User\n\n%s\n", m.Text)
		case RoleAssistant:
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
		case RoleTool:
			fmt.Fprintf(&b, "\n## Tool result (%s)\n\n```\n%s\n```\n", m.Name, strings.TrimRight(m.Text, "\n"))
		default:
			fmt.Fprintf(&b, "\n## Summary\n\n%s\n", m.Text)
		}
	}
	return b.String()
}
