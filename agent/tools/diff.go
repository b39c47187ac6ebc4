package tools

import (
	udiff "github.com/aymanbagabas/go-udiff"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// UnifiedDiff returns the unified diff turning old into new for the file
// name (empty when they are equal) and the first changed line of new, 1-based.
// go-udiff is gopls's diff algorithm extracted into a module.
func UnifiedDiff(name, old, new string) (diff string, firstChangedLine int) {
	if old == new {
		return "", 0
	}
	u, err := udiff.ToUnifiedDiff("a/"+name, "b/"+name, old, udiff.Lines(old, new), diffContext)
	if err != nil || len(u.Hunks) == 0 {
		return "", 0 // the edits were computed from old itself, so this does not happen
	}
	// Before the first change the two sides are aligned, so the first hunk's
	// leading context counts the same in both.
	first := u.Hunks[0]
	firstChangedLine = first.FromLine
	for _, l := range first.Lines {
		if l.Kind != udiff.Equal {
			break
		}
		firstChangedLine++
	}
	return u.String(), firstChangedLine
}
