package kaiak

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Konveyor's analyzer output (analyzer-lsp, kantra) as it really is: a
// YAML (or JSON) list of rulesets, each with violations by rule id, each
// with incidents:
//
//	- name: eap8/eap7
//	  description: …
//	  violations:
//	    javax-to-jakarta-import-00001:
//	      description: …
//	      category: mandatory | optional | potential
//	      labels: [konveyor.io/source=…, …]
//	      incidents:
//	      - uri: file:///opt/input/source/src/…/Order.java
//	        message: …            (often Markdown)
//	        codeSnip: " 3  import javax…"
//	        lineNumber: 3         (0 or absent: the file as a whole)
//	        variables: {…}
//	      links: [{url, title}]
//	      effort: 1
//	  insights: {…}               (informational, same shape)
//	  errors: {ruleID: text}, unmatched: [ruleID], skipped: [ruleID]
//
// ConvertAnalysis maps each incident to a v1 Incident: id
// <ruleset>/<ruleID>/<n> (a ruleset name seen before is numbered:
// <name>#2), rule_id, file_path (the URI's path, relative to
// the workspace when it is found there), line_number, severity from the
// category (mandatory → error, optional → warning, potential → info),
// description, message, category, and metadata holding the rest (ruleset,
// labels, effort, links, variables, code_snip, is_dependency_incident).

type ruleSet struct {
	Name        string               `yaml:"name"`
	Description string               `yaml:"description"`
	Violations  map[string]violation `yaml:"violations"`
	Insights    map[string]violation `yaml:"insights"`
	Errors      map[string]string    `yaml:"errors"`
	Unmatched   []string             `yaml:"unmatched"`
	Skipped     []string             `yaml:"skipped"`
}

type violation struct {
	Description string             `yaml:"description"`
	Category    string             `yaml:"category"`
	Labels      []string           `yaml:"labels"`
	Incidents   []analyzerIncident `yaml:"incidents"`
	Links       []struct {
		URL   string `yaml:"url"`
		Title string `yaml:"title"`
	} `yaml:"links"`
	Effort *int `yaml:"effort"`
}

type analyzerIncident struct {
	URI                  string         `yaml:"uri"`
	Message              string         `yaml:"message"`
	CodeSnip             string         `yaml:"codeSnip"`
	LineNumber           *int           `yaml:"lineNumber"`
	Variables            map[string]any `yaml:"variables"`
	IsDependencyIncident *bool          `yaml:"isDependencyIncident"`
}

// ConvertOptions says how analyzer output converts.
type ConvertOptions struct {
	// Workspace, when set, is the folder the analysis ran on: a URI's path
	// under it becomes relative, and one from elsewhere (the container the
	// analyzer ran in, such as /opt/input/source) is matched by its longest
	// tail that names a file there.
	Workspace string
	// Insights converts the insights too (informational findings, which
	// need no fix); they are counted either way.
	Insights bool
}

// Analysis is analyzer output converted to incidents, with the counts.
type Analysis struct {
	Incidents  []Incident
	Rulesets   int
	Violations int // violations with at least one incident
	Files      int // distinct files named
	FileLevel  int // incidents of a whole file (line 0 or none)
	Insights   int // insight incidents found (converted with Options.Insights)
	Errors     int // rules the analyzer could not run
	// Unresolved are the converted file paths found neither under the
	// workspace nor by a tail of theirs; they stay as the analyzer wrote
	// them.
	Unresolved []string
	PerRuleset []RulesetCount
	// Repaired are the lines (1-based) of a key indented by an odd number
	// of spaces that were moved one space left so the output would parse.
	Repaired []int
}

// RulesetCount is one ruleset's share.
type RulesetCount struct {
	Name       string
	Violations int
	Incidents  int
}

// severityOf maps a violation's category to a v1 severity.
func severityOf(category string) string {
	switch category {
	case "mandatory":
		return "error"
	case "optional":
		return "warning"
	}
	return "info"
}

// ConvertAnalysis converts analyzer output (YAML or JSON).
func ConvertAnalysis(data []byte, opts ConvertOptions) (*Analysis, error) {
	var sets []ruleSet
	var repaired []int
	if err := yaml.Unmarshal(data, &sets); err != nil {
		// Hand-edited output sometimes has a key one space off; the
		// analyzer indents by two. Repaired, it must then parse.
		fixed, lines := reindent(data)
		if len(lines) == 0 || yaml.Unmarshal(fixed, &sets) != nil {
			return nil, fmt.Errorf("not Konveyor analyzer output (a list of rulesets): %w", err)
		}
		repaired = lines
	}
	a := &Analysis{Rulesets: len(sets), Repaired: repaired}
	files := map[string]bool{}
	unresolved := map[string]bool{}
	resolver := newPathResolver(opts.Workspace)
	names := map[string]int{}
	var setID string // the ruleset's name, numbered when a name repeats
	convert := func(rs ruleSet, ruleID string, v violation, insight bool) int {
		n := 0
		for i, in := range v.Incidents {
			line := 0
			if in.LineNumber != nil && *in.LineNumber > 0 {
				line = *in.LineNumber
			}
			path, ok := resolver.resolve(in.URI)
			if !ok {
				unresolved[path] = true
			}
			meta := map[string]any{"ruleset": rs.Name}
			if len(v.Labels) > 0 {
				meta["labels"] = v.Labels
			}
			if v.Effort != nil {
				meta["effort"] = *v.Effort
			}
			if len(v.Links) > 0 {
				var links []any
				for _, l := range v.Links {
					links = append(links, map[string]any{"url": l.URL, "title": l.Title})
				}
				meta["links"] = links
			}
			if len(in.Variables) > 0 {
				meta["variables"] = in.Variables
			}
			if strings.TrimSpace(in.CodeSnip) != "" {
				meta["code_snip"] = in.CodeSnip
			}
			if in.IsDependencyIncident != nil {
				meta["is_dependency_incident"] = *in.IsDependencyIncident
			}
			if in.URI != "" {
				meta["uri"] = in.URI
			}
			if insight {
				meta["insight"] = true
			}
			message := strings.TrimSpace(in.Message)
			if message == "" {
				message = strings.TrimSpace(v.Description)
			}
			if message == "" {
				message = ruleID
			}
			category := v.Category
			if category == "" && insight {
				category = "insight"
			}
			a.Incidents = append(a.Incidents, Incident{ID: fmt.Sprintf("%s/%s/%d", setID, ruleID, i), RuleID: ruleID, FilePath: path,
				LineNumber: line, Severity: severityOf(v.Category), Description: strings.TrimSpace(v.Description), Message: message,
				Category: category, Metadata: meta})
			if line == 0 {
				a.FileLevel++
			}
			if path != "" {
				files[path] = true
			}
			n++
		}
		return n
	}
	for _, rs := range sets {
		names[rs.Name]++
		setID = rs.Name
		if n := names[rs.Name]; n > 1 {
			setID = fmt.Sprintf("%s#%d", rs.Name, n)
		}
		rc := RulesetCount{Name: setID}
		for _, id := range sortedKeys(rs.Violations) {
			v := rs.Violations[id]
			if len(v.Incidents) > 0 {
				rc.Violations++
			}
			rc.Incidents += convert(rs, id, v, false)
		}
		for _, id := range sortedKeys(rs.Insights) {
			v := rs.Insights[id]
			a.Insights += len(v.Incidents)
			if opts.Insights {
				rc.Incidents += convert(rs, id, v, true)
			}
		}
		a.Violations += rc.Violations
		a.Errors += len(rs.Errors)
		a.PerRuleset = append(a.PerRuleset, rc)
	}
	a.Files = len(files)
	for p := range unresolved {
		a.Unresolved = append(a.Unresolved, p)
	}
	sort.Strings(a.Unresolved)
	return a, nil
}

// oddKey is a mapping key without a value, indented by an odd number of
// spaces.
var oddKey = regexp.MustCompile(`^ ((?:  )+)([A-Za-z0-9_./-]+:)\s*$`)

// reindent moves each oddKey line one space left and returns the lines it
// moved.
func reindent(data []byte) ([]byte, []int) {
	lines := strings.Split(string(data), "\n")
	var moved []int
	for i, l := range lines {
		if m := oddKey.FindStringSubmatch(l); m != nil {
			lines[i] = m[1] + m[2]
			moved = append(moved, i+1)
		}
	}
	return []byte(strings.Join(lines, "\n")), moved
}

func sortedKeys(m map[string]violation) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pathResolver maps analyzer URIs onto a workspace.
type pathResolver struct {
	workspace string
	cache     map[string]resolved
}

type resolved struct {
	path  string
	found bool
}

func newPathResolver(workspace string) *pathResolver {
	if workspace != "" {
		if real, err := filepath.EvalSymlinks(workspace); err == nil {
			workspace = real
		}
	}
	return &pathResolver{workspace: workspace, cache: map[string]resolved{}}
}

// resolve returns the file path for uri and whether it was found in the
// workspace (always true without one, and for "").
func (r *pathResolver) resolve(uri string) (string, bool) {
	p := uri
	if strings.HasPrefix(uri, "file://") {
		if u, err := url.Parse(uri); err == nil {
			p = u.Path
		}
	}
	if p == "" || r.workspace == "" {
		return p, true
	}
	if c, ok := r.cache[p]; ok {
		return c.path, c.found
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsAbs(clean) {
		clean = filepath.Join(r.workspace, clean)
	}
	if rel, err := filepath.Rel(r.workspace, clean); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		if _, err := os.Stat(clean); err == nil {
			r.cache[p] = resolved{filepath.ToSlash(rel), true}
			return filepath.ToSlash(rel), true
		}
	}
	// The analyzer ran elsewhere: the longest tail of the path that names
	// a file in the workspace.
	parts := strings.Split(strings.Trim(filepath.ToSlash(clean), "/"), "/")
	for i := range parts {
		tail := strings.Join(parts[i:], "/")
		if fi, err := os.Stat(filepath.Join(r.workspace, filepath.FromSlash(tail))); err == nil && !fi.IsDir() {
			r.cache[p] = resolved{tail, true}
			return tail, true
		}
	}
	r.cache[p] = resolved{p, false}
	return p, false
}
