package kaiak

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// systemPrompt introduces the migration agent: Kaiak's responsibilities
// (minimal, explained fixes; no change without approval) in terms of kast's
// tools.
const systemPrompt = `You are kast's migration assistant. Static analysis (Konveyor) found incidents in a workspace that block its migration; you fix them, one file at a time.

- Make minimal, precise changes that resolve the incidents given, keep the behaviour and stay compatible; change nothing unrelated.
- Change files only with the tools: edit_file for targeted replacements (preferred), or write_file with the whole updated file; delete_file and rename_file when the migration needs it. Give each change a short description and your confidence.
- Every change is shown to the user as a proposal with its diff, and is made only if they approve it. If a change is rejected, do not propose it again: try another way, or explain why it is needed. If a file changed meanwhile, read it again first.
- Use read_file, list_directory and the code-intelligence tools (resolve_symbol, find_references, file_outline, workspace_symbols) to check declarations and usages before changing an API.
- When done, answer briefly: the changes and why, possible side effects, and how to test them.`

// prompt is the user message of one file's turn: the file, its incidents,
// the migration context, the rules' links and the file's current content.
func prompt(workspace string, g group, migration map[string]any) string {
	var b strings.Builder
	if g.Path == "" {
		fmt.Fprintf(&b, "Fix the following migration incidents, which concern the workspace %s as a whole rather than one file.\n\n", workspace)
	} else {
		fmt.Fprintf(&b, "Fix the following migration incidents in `%s` (workspace %s).\n\n", g.Path, workspace)
	}
	b.WriteString("## Incidents\n\n")
	var links []string
	for i, in := range g.Incidents {
		where := fmt.Sprintf("line %d", in.LineNumber)
		if in.LineNumber == 0 {
			where = "the file as a whole"
		}
		fmt.Fprintf(&b, "%d. Rule `%s`, %s (severity %s", i+1, in.RuleID, where, in.Severity)
		if in.Category != "" {
			fmt.Fprintf(&b, ", category %s", in.Category)
		}
		b.WriteString(")\n")
		if d := strings.TrimSpace(in.Description); d != "" {
			fmt.Fprintf(&b, "   Description: %s\n", indent(d))
		}
		if m := strings.TrimSpace(in.Message); m != "" && m != strings.TrimSpace(in.Description) {
			fmt.Fprintf(&b, "   Details: %s\n", indent(m))
		}
		meta := map[string]any{}
		for k, v := range in.Metadata {
			meta[k] = v
		}
		if snip, ok := meta["code_snip"].(string); ok && strings.TrimSpace(snip) != "" {
			fmt.Fprintf(&b, "   Code:\n   ```\n%s\n   ```\n", indentAll(strings.TrimRight(snip, "\n"), "   "))
		}
		delete(meta, "code_snip")
		for _, l := range linkList(meta["links"]) {
			if !contains(links, l) {
				links = append(links, l)
			}
		}
		delete(meta, "links")
		if len(meta) > 0 {
			fmt.Fprintf(&b, "   Metadata: %s\n", compactJSON(meta))
		}
	}
	if len(migration) > 0 {
		b.WriteString("\n## Migration context\n\n")
		keys := make([]string, 0, len(migration))
		for k := range migration {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := migration[k]
			if s, ok := v.(string); ok {
				fmt.Fprintf(&b, "- %s: %s\n", k, s)
			} else {
				fmt.Fprintf(&b, "- %s: %s\n", k, compactJSON(v))
			}
		}
	}
	if len(links) > 0 {
		b.WriteString("\n## Links from the rules\n\n")
		for _, l := range links {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if g.Path != "" {
		data, err := os.ReadFile(g.File)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "\n## Current content of `%s`\n\nThe file does not exist (%v).\n", g.Path, describeErr(err))
		default:
			fence := "```"
			for strings.Contains(string(data), fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "\n## Current content of `%s`\n\n%s%s\n%s", g.Path, fence, language(g.Path), string(data))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				b.WriteByte('\n')
			}
			b.WriteString(fence + "\n")
		}
		fmt.Fprintf(&b, "\nPropose the fix with edit_file (targeted replacements, preferred) or write_file with the entire updated content of `%s`. "+
			"The user approves or rejects each change.\n", g.Path)
	} else {
		b.WriteString("\nPropose the fix with the file tools; the user approves or rejects each change.\n")
	}
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n   ") }

func indentAll(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// linkList reads metadata.links: [{url, title}] or [url].
func linkList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, item := range list {
		switch l := item.(type) {
		case string:
			out = append(out, l)
		case map[string]any:
			u, _ := l["url"].(string)
			t, _ := l["title"].(string)
			switch {
			case u != "" && t != "":
				out = append(out, fmt.Sprintf("%s: %s", t, u))
			case u != "":
				out = append(out, u)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// language is the fence's info string for a file.
func language(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".java":
		return "java"
	case ".go":
		return "go"
	case ".py":
		return "python"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".ts", ".tsx":
		return "typescript"
	case ".kt", ".kts":
		return "kotlin"
	case ".rs":
		return "rust"
	case ".xml", ".pom":
		return "xml"
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	case ".properties":
		return "properties"
	case ".gradle":
		return "groovy"
	}
	return ""
}

func describeErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
