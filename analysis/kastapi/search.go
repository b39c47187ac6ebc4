package kastapi

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// SearchQuery is a text search over files.
type SearchQuery struct {
	Pattern       string
	Regex         bool
	CaseSensitive bool
	Glob          string // matched against the base name and the root-relative path; "" matches all
	Max           int
}

// Match is one matching line: 1-based line and byte column, the line trimmed.
type Match struct {
	Path    string
	Line    int
	Column  int
	Preview string
}

// Search scans files in the given (sorted) order and returns up to q.Max
// matches, reporting whether more were left.
func Search(root string, files []string, q SearchQuery) ([]Match, bool, error) {
	expr := q.Pattern
	if !q.Regex {
		expr = regexp.QuoteMeta(expr)
	}
	if !q.CaseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, false, errorf(Validation, map[string]string{"pattern": q.Pattern}, "Invalid regular expression: %v", err)
	}
	if q.Glob != "" {
		if _, err := path.Match(q.Glob, ""); err != nil {
			return nil, false, errorf(Validation, map[string]string{"fileGlob": q.Glob}, "Invalid file glob: %v", err)
		}
	}
	out := []Match{}
	for _, file := range files {
		if q.Glob != "" && !globMatch(q.Glob, root, file) {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			continue // deleted since it was indexed
		}
		lineNo := 0
		for line := range bytes.Lines(src) {
			lineNo++
			loc := re.FindIndex(line)
			if loc == nil {
				continue
			}
			if len(out) == q.Max {
				return out, true, nil
			}
			out = append(out, Match{Path: file, Line: lineNo, Column: loc[0] + 1, Preview: strings.TrimRight(string(line), " \t\r\n")})
		}
	}
	return out, false, nil
}

func globMatch(glob, root, file string) bool {
	if ok, _ := path.Match(glob, filepath.Base(file)); ok {
		return true
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if ok, _ := path.Match(glob, rel); ok {
		return true
	}
	// "**/" prefixes match at any depth.
	if rest, ok := strings.CutPrefix(glob, "**/"); ok {
		m, _ := path.Match(rest, filepath.Base(file))
		return m
	}
	return false
}
