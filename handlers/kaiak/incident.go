package kaiak

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kast-dev/kast/analysis/confine"
)

// Incident is one finding of a static analysis, as the v1 contract defines
// it. Konveyor's analyzer output converts to it (ConvertAnalysis).
type Incident struct {
	ID          string         `json:"id"`
	RuleID      string         `json:"rule_id"`
	FilePath    string         `json:"file_path"`
	LineNumber  int            `json:"line_number"`
	Severity    string         `json:"severity"`
	Description string         `json:"description"`
	Message     string         `json:"message"`
	Category    string         `json:"category"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// severities are the accepted severities ("critical" came later upstream).
var severities = []string{"error", "warning", "info", "critical"}

// incidentError is -32602 for the incident at index i.
func incidentError(i int, id, field, format string, args ...any) error {
	return invalid(map[string]any{"incident_index": i, "incident_id": id, "field": fmt.Sprintf("incidents[%d].%s", i, field)},
		"invalid params: incident %d (id %q): %s", i+1, id, fmt.Sprintf(format, args...))
}

// parseIncidents decodes the v1 incidents of a request: id, rule_id,
// file_path, line_number (0 for a file-level incident), severity and
// message are required; description, category and metadata optional.
func parseIncidents(items []json.RawMessage) ([]Incident, error) {
	if len(items) > MaxIncidents {
		return nil, limitError("incidents", map[string]any{"count": len(items), "max": MaxIncidents},
			"incident limit exceeded: the request has %d incidents; the limit is %d per request", len(items), MaxIncidents)
	}
	out := make([]Incident, 0, len(items))
	seen := map[string]bool{}
	for i, raw := range items {
		var o map[string]json.RawMessage
		if json.Unmarshal(raw, &o) != nil || o == nil {
			return nil, incidentError(i, "", "", "not an object")
		}
		f := obj(o)
		var in Incident
		var err error
		id, _ := f.str("", "id")
		str := func(key string, required bool) string {
			if err != nil {
				return ""
			}
			var v string
			if v, err = f.str("", key); err == nil && required && strings.TrimSpace(v) == "" {
				err = incidentError(i, id, key, "%s is required", key)
			} else if err != nil {
				err = incidentError(i, id, key, "%s must be a string", key)
			}
			return v
		}
		in.ID = str("id", true)
		in.RuleID = str("rule_id", true)
		if !f.has("file_path") {
			return nil, incidentError(i, id, "file_path", "file_path is required (\"\" for the workspace as a whole)")
		}
		in.FilePath = str("file_path", false)
		in.Severity = str("severity", true)
		in.Message = str("message", true)
		in.Description = str("description", false)
		in.Category = str("category", false)
		if err != nil {
			return nil, err
		}
		if !f.has("line_number") {
			return nil, incidentError(i, id, "line_number", "line_number is required (0 for a file-level incident)")
		}
		n, _, lerr := f.integer("", "line_number", 0, 1<<31-1)
		if lerr != nil {
			return nil, incidentError(i, id, "line_number", "line_number must be an integer >= 0 (0 for a file-level incident)")
		}
		in.LineNumber = n
		if !slices.Contains(severities, in.Severity) {
			return nil, incidentError(i, id, "severity", "severity %q is not one of %s", in.Severity, strings.Join(severities, ", "))
		}
		if f.has("metadata") {
			if json.Unmarshal(o["metadata"], &in.Metadata) != nil || in.Metadata == nil {
				return nil, incidentError(i, id, "metadata", "metadata must be an object")
			}
		}
		if seen[in.ID] {
			return nil, incidentError(i, id, "id", "id %q is used by an earlier incident", in.ID)
		}
		seen[in.ID] = true
		out = append(out, in)
	}
	return out, nil
}

// group is the incidents of one file: one turn, one prompt.
type group struct {
	Path      string // workspace-relative, slash-separated; "" for the workspace as a whole
	File      string // absolute, "" with Path
	Incidents []Incident
}

// groupIncidents checks every incident's file (inside the workspace, a
// regular file of at most MaxFileBytes when it exists) and groups the
// incidents by file, in the order the files first appear, each group's
// incidents by line.
func groupIncidents(workspace string, incidents []Incident) ([]group, error) {
	rule := confine.New([]string{workspace})
	var groups []group
	index := map[string]int{}
	for i, in := range incidents {
		rel, abs, err := incidentFile(rule, workspace, in.FilePath)
		if err != nil {
			return nil, incidentError(i, in.ID, "file_path", "%v", err)
		}
		if abs != "" {
			fi, err := os.Stat(abs)
			switch {
			case err == nil && fi.IsDir():
				return nil, incidentError(i, in.ID, "file_path", "%s is a folder, not a file", rel)
			case err == nil && fi.Size() > MaxFileBytes:
				return nil, limitError("fileBytes", map[string]any{"file_path": rel, "bytes": fi.Size(), "max": MaxFileBytes},
					"file content limit exceeded: %s is %d bytes; the limit is 1 MB (%d bytes) per file", rel, fi.Size(), MaxFileBytes)
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				return nil, kerr(codeWorkspaceAccessDenied, map[string]any{"file_path": rel}, "cannot read %s: %v", rel, err)
			}
		}
		k, ok := index[rel]
		if !ok {
			k = len(groups)
			index[rel] = k
			groups = append(groups, group{Path: rel, File: abs})
		}
		groups[k].Incidents = append(groups[k].Incidents, in)
	}
	for _, g := range groups {
		sort.SliceStable(g.Incidents, func(a, b int) bool { return g.Incidents[a].LineNumber < g.Incidents[b].LineNumber })
	}
	return groups, nil
}

// incidentFile resolves an incident's file_path (workspace-relative,
// absolute inside the workspace, or a file:// URI) to its workspace-relative
// and absolute forms; "" is the workspace as a whole.
func incidentFile(rule *confine.Rule, workspace, p string) (rel, abs string, err error) {
	if strings.HasPrefix(p, "file://") {
		u, perr := url.Parse(p)
		if perr != nil {
			return "", "", fmt.Errorf("file_path %q is not a valid file URI", p)
		}
		p = u.Path
	}
	if strings.TrimSpace(p) == "" {
		return "", "", nil
	}
	path := p
	if !filepath.IsAbs(path) {
		path = workspace + string(filepath.Separator) + filepath.FromSlash(p)
	}
	access := confine.Read
	if _, serr := os.Lstat(filepath.Clean(path)); serr != nil {
		access = confine.Create
	}
	real, cerr := rule.Check(path, access)
	if cerr != nil {
		var ce *confine.Error
		if errors.As(cerr, &ce) && ce.Reason != confine.OutsideWorkspace {
			return "", "", fmt.Errorf("file_path %q is refused: %v", p, cerr) // which rule: a link, a ".." after one
		}
		return "", "", fmt.Errorf("file_path %q is not inside the workspace %s", p, workspace)
	}
	r, rerr := filepath.Rel(workspace, real)
	if rerr != nil || r == "." {
		return "", "", fmt.Errorf("file_path %q names the workspace itself, not a file", p)
	}
	return filepath.ToSlash(r), real, nil
}
