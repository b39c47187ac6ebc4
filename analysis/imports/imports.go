// Package imports organizes a file's imports: each run of import lines is
// sorted, duplicates dropped, and imports whose name the file never uses
// removed where the language binds imports to names.
package imports

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Edit replaces the byte range [Start, End) with NewText.
type Edit struct {
	Start, End int
	NewText    string
}

// pruned lists the languages whose imports bind exactly the imported name,
// so an import whose name never appears is unused.
var pruned = map[string]bool{"kotlin": true, "java": true, "python": true, "typescript": true, "tsx": true, "javascript": true}

// Organize returns the edits that organize f's imports, none when they are
// already in order.
func Organize(f *analysis.FileFacts, text []byte) []Edit {
	imports := importStatements(f)
	if len(imports) == 0 {
		return nil
	}
	// Each import occupies whole lines; several imports may share one.
	type unit struct {
		start, end int // byte range of the line(s), without the final '\n'
		imps       []analysis.Import
	}
	var units []unit
	for _, imp := range imports {
		start, end := lineStart(text, imp.Span.Start), importEnd(text, imp.Span)
		if n := len(units); n > 0 && start <= units[n-1].end {
			units[n-1].end = max(units[n-1].end, end)
			units[n-1].imps = append(units[n-1].imps, imp)
			continue
		}
		units = append(units, unit{start, end, []analysis.Import{imp}})
	}
	rest := withoutImports(text, func(yield func(int, int) bool) {
		for _, u := range units {
			if !yield(u.start, u.end) {
				return
			}
		}
	})
	var edits []Edit
	for i := 0; i < len(units); {
		j := i + 1
		for j < len(units) && units[j].start == units[j-1].end+1 {
			j++
		}
		var lines []string
		for _, u := range units[i:j] {
			if !pruned[f.Lang] || used(u.imps, rest) {
				lines = append(lines, string(text[u.start:u.end]))
			}
		}
		slices.SortFunc(lines, func(a, b string) int { return strings.Compare(strings.TrimSpace(a), strings.TrimSpace(b)) })
		lines = slices.Compact(lines)
		start, end := units[i].start, units[j-1].end
		next := strings.Join(lines, "\n")
		if len(lines) == 0 && end < len(text) {
			end++ // drop the emptied lines' newline too
		}
		if next != string(text[start:end]) {
			edits = append(edits, Edit{start, end, next})
		}
		i = j
	}
	return edits
}

// used reports whether any import on a line binds a name the rest of the
// file mentions; wildcard and unnamed imports count as used.
func used(imps []analysis.Import, rest string) bool {
	for _, imp := range imps {
		name := imp.Alias
		if name == "" {
			name = imp.Name
		}
		if imp.Wildcard || name == "" || regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).MatchString(rest) {
			return true
		}
	}
	return false
}

// withoutImports is the text with the import lines blanked out.
func withoutImports(text []byte, ranges func(func(int, int) bool)) string {
	b := []byte(string(text))
	for start, end := range ranges {
		for k := start; k < end; k++ {
			b[k] = ' '
		}
	}
	return string(b)
}

// importEnd is the end of an import's last line. Some grammars stretch an
// import's node over the comments after it, so an import ends on its first
// line unless that line leaves a bracket open.
func importEnd(text []byte, span analysis.Span) int {
	end := lineEnd(text, span.Start)
	first := string(text[span.Start:end])
	if strings.Count(first, "(")+strings.Count(first, "{") > strings.Count(first, ")")+strings.Count(first, "}") {
		last := min(span.End, len(text))
		for last > end && (text[last-1] == ' ' || text[last-1] == '\n' || text[last-1] == '\t' || text[last-1] == '\r') {
			last--
		}
		return lineEnd(text, last)
	}
	return end
}

// ImportLines returns the first and last line of the file's imports, or
// false when it has none.
func ImportLines(f *analysis.FileFacts, text []byte) (int, int, bool) {
	imports := importStatements(f)
	if len(imports) == 0 {
		return 0, 0, false
	}
	last := imports[len(imports)-1].Span
	end := importEnd(text, last)
	return imports[0].Span.StartPoint.Line, last.StartPoint.Line + strings.Count(string(text[last.Start:end]), "\n"), true
}

// importStatements are f's imports that import statements make: TypeScript's
// `export { a as b }` is recorded as an import of the file's own a (no
// path) and `export { a } from "m"` as one aliased to its own name, but
// both are exports, which organizing leaves where they are.
func importStatements(f *analysis.FileFacts) []analysis.Import {
	if f.Lang != "typescript" && f.Lang != "tsx" && f.Lang != "javascript" {
		return f.Imports
	}
	return slices.DeleteFunc(slices.Clone(f.Imports), func(imp analysis.Import) bool {
		return imp.Path == "" || imp.Name != "" && imp.Alias == imp.Name
	})
}

func lineStart(text []byte, i int) int {
	for i > 0 && text[i-1] != '\n' {
		i--
	}
	return i
}

func lineEnd(text []byte, i int) int {
	for i < len(text) && text[i] != '\n' {
		i++
	}
	return i
}
