package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Resource sources.
const (
	SourceUser      = "user"
	SourceWorkspace = "workspace"
)

// PromptTemplate is a slash command that expands to a prompt: a Markdown
// file in prompts/, named by its base name.
type PromptTemplate struct {
	Name, Description, Path, Source string
	Content                         string
}

// Skill is a folder under skills/ whose SKILL.md holds instructions; its
// command is skill:<name>.
type Skill struct {
	Name, Description, Path, Source string
	Content                         string
}

// PluginCommand is an executable command declared by a JSON file in the
// user's plugins/ folder: {"name", "description", "command": [argv…],
// "timeoutSeconds"}. Workspace folders cannot declare plugins, so opening
// an untrusted repository never runs its programs.
type PluginCommand struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Command        []string `json:"command"`
	TimeoutSeconds int      `json:"timeoutSeconds"`
	Path           string   `json:"-"`
}

// ContextFile is an AGENTS.md whose text joins the system prompt.
type ContextFile struct {
	Path, Source, Content string
}

// Resources are the prompt templates, skills, plugin commands and context
// files of a workspace and the user's config folder. Workspace prompts and
// skills override the user's of the same name.
type Resources struct {
	Prompts []PromptTemplate
	Skills  []Skill
	Plugins []PluginCommand
	Context []ContextFile
}

// LoadResources reads resources from userDir (the kast config folder) and
// the workspace's .kast folder and AGENTS.md; unreadable entries are skipped.
func LoadResources(workspace, userDir string) *Resources {
	r := &Resources{}
	prompts := map[string]PromptTemplate{}
	skills := map[string]Skill{}
	for _, src := range []struct{ dir, source string }{{userDir, SourceUser}, {filepath.Join(workspace, ".kast"), SourceWorkspace}} {
		files, _ := filepath.Glob(filepath.Join(src.dir, "prompts", "*.md"))
		for _, path := range files {
			meta, body, err := readFrontmatter(path)
			if err != nil {
				continue
			}
			name := strings.TrimSuffix(filepath.Base(path), ".md")
			prompts[name] = PromptTemplate{Name: name, Description: firstNonEmpty(meta["description"], firstLine(body)), Path: path, Source: src.source, Content: body}
		}
		files, _ = filepath.Glob(filepath.Join(src.dir, "skills", "*", "SKILL.md"))
		for _, path := range files {
			meta, body, err := readFrontmatter(path)
			if err != nil {
				continue
			}
			name := firstNonEmpty(meta["name"], filepath.Base(filepath.Dir(path)))
			skills[name] = Skill{Name: name, Description: firstNonEmpty(meta["description"], firstLine(body)), Path: path, Source: src.source, Content: body}
		}
	}
	for _, p := range prompts {
		r.Prompts = append(r.Prompts, p)
	}
	for _, s := range skills {
		r.Skills = append(r.Skills, s)
	}
	sort.Slice(r.Prompts, func(i, j int) bool { return r.Prompts[i].Name < r.Prompts[j].Name })
	sort.Slice(r.Skills, func(i, j int) bool { return r.Skills[i].Name < r.Skills[j].Name })

	files, _ := filepath.Glob(filepath.Join(userDir, "plugins", "*.json"))
	for _, path := range files {
		data, err := os.ReadFile(path)
		var pc PluginCommand
		if err != nil || json.Unmarshal(data, &pc) != nil || pc.Name == "" || len(pc.Command) == 0 {
			continue
		}
		pc.Path = path
		r.Plugins = append(r.Plugins, pc)
	}
	sort.Slice(r.Plugins, func(i, j int) bool { return r.Plugins[i].Name < r.Plugins[j].Name })

	for _, src := range []struct{ path, source string }{{filepath.Join(userDir, "AGENTS.md"), SourceUser}, {filepath.Join(workspace, "AGENTS.md"), SourceWorkspace}} {
		if data, err := os.ReadFile(src.path); err == nil && len(bytes.TrimSpace(data)) > 0 {
			r.Context = append(r.Context, ContextFile{Path: src.path, Source: src.source, Content: string(data)})
		}
	}
	return r
}

// ContextPrompt is the system-prompt text of the context files.
func (r *Resources) ContextPrompt() string {
	var b strings.Builder
	for _, c := range r.Context {
		fmt.Fprintf(&b, "<instructions source=%q>\n%s\n</instructions>\n", c.Path, strings.TrimSpace(c.Content))
	}
	return strings.TrimSpace(b.String())
}

// Plugin returns the plugin command named name.
func (r *Resources) Plugin(name string) (PluginCommand, bool) {
	for _, p := range r.Plugins {
		if p.Name == name {
			return p, true
		}
	}
	return PluginCommand{}, false
}

// Expand expands a prompt template or skill command (with or without its
// slash) with arguments; false when no such command exists.
func (r *Resources) Expand(command, args string) (string, bool) {
	command = strings.TrimPrefix(command, "/")
	if name, ok := strings.CutPrefix(command, "skill:"); ok {
		for _, s := range r.Skills {
			if s.Name == name {
				text := fmt.Sprintf("<skill name=%q path=%q>\n%s\n</skill>", s.Name, s.Path, strings.TrimSpace(s.Content))
				if args = strings.TrimSpace(args); args != "" {
					text += "\n\n" + args
				}
				return text, true
			}
		}
		return "", false
	}
	for _, p := range r.Prompts {
		if p.Name == command {
			return expandTemplate(p.Content, args), true
		}
	}
	return "", false
}

// SplitSlash splits "/name args" into its parts; ok is false for input that
// is not a slash command.
func SplitSlash(input string) (name, args string, ok bool) {
	trimmed := strings.TrimSpace(input)
	if !strings.HasPrefix(trimmed, "/") || len(trimmed) < 2 {
		return "", "", false
	}
	name, args, _ = strings.Cut(trimmed[1:], " ")
	return name, strings.TrimSpace(args), name != "" && !strings.ContainsAny(name, "/\n\t")
}

// expandTemplate substitutes $1…$9, $@ and $ARGUMENTS; arguments given to a
// template without placeholders are appended.
func expandTemplate(tmpl, args string) string {
	fields := strings.Fields(args)
	used := false
	out := tmpl
	for _, ph := range []string{"$ARGUMENTS", "$@"} {
		if strings.Contains(out, ph) {
			out, used = strings.ReplaceAll(out, ph, args), true
		}
	}
	for i := 9; i >= 1; i-- {
		ph := "$" + strconv.Itoa(i)
		if strings.Contains(out, ph) {
			v := ""
			if i <= len(fields) {
				v = fields[i-1]
			}
			out, used = strings.ReplaceAll(out, ph, v), true
		}
	}
	out = strings.TrimSpace(out)
	if !used && strings.TrimSpace(args) != "" {
		out += "\n\n" + strings.TrimSpace(args)
	}
	return out
}

// pluginOutputCap bounds what a plugin command may return.
const pluginOutputCap = 64 << 10

// Run runs the plugin in workspace with args appended to its argv and
// returns its standard output (capped). A non-zero exit is an error that
// carries stderr's first line.
func (p PluginCommand) Run(ctx context.Context, workspace, args string) (string, error) {
	timeout := time.Duration(p.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append(append([]string{}, p.Command...), strings.Fields(args)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = workspace
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String()
	if len(out) > pluginOutputCap {
		out = out[:pluginOutputCap] + "\n[output truncated]"
	}
	out = strings.ToValidUTF8(out, "\uFFFD")
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return out, fmt.Errorf("plugin %s timed out after %s", p.Name, timeout)
		}
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return out, fmt.Errorf("plugin %s failed: %v %s", p.Name, err, msg)
	}
	return out, nil
}

// readFrontmatter splits an optional "---" block of "key: value" lines from
// a Markdown file's body.
func readFrontmatter(path string) (map[string]string, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	meta := map[string]string{}
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if head, body, ok := strings.Cut(rest, "\n---"); ok {
			for _, line := range strings.Split(head, "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok {
					meta[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
				}
			}
			text = strings.TrimPrefix(strings.TrimPrefix(body, "\n"), "\n")
			if i := strings.IndexByte(text, '\n'); i >= 0 && strings.TrimSpace(text[:i]) == "" {
				text = text[i+1:]
			}
		}
	}
	return meta, text, nil
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(line, "# ")); line != "" {
			return compact(line, 120)
		}
	}
	return ""
}
