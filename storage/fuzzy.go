package storage

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

type scoredName struct {
	indexedName
	score int
}

// fuzzyScore matches the runes of pattern, ignoring case, as a subsequence of
// name and scores the match the way symbol pickers do: matches at word starts
// (after _ - . or at a camelCase hump) and runs of adjacent matches score
// higher, an exact match highest, and longer names lose a little.
func fuzzyScore(pattern, name string) (int, bool) {
	score, matched, prevMatch := 0, 0, -2
	prev := rune(0)
	patternRunes := []rune(pattern)
	for i, r := range []rune(name) {
		if matched == len(patternRunes) {
			break
		}
		if unicode.ToLower(r) == unicode.ToLower(patternRunes[matched]) {
			score++
			if i == prevMatch+1 {
				score += 4
			}
			if i == 0 || isWordStart(prev, r) {
				score += 8
			}
			prevMatch = i
			matched++
		}
		prev = r
	}
	if matched < len(patternRunes) {
		return 0, false
	}
	if len(patternRunes) == utf8.RuneCountInString(name) {
		score += 100
	}
	return score*16 - utf8.RuneCountInString(name), true
}

func isWordStart(prev, r rune) bool {
	switch {
	case prev == '_' || prev == '-' || prev == '.' || prev == '$':
		return true
	case unicode.IsUpper(r) && !unicode.IsUpper(prev):
		return true
	}
	return unicode.IsDigit(r) != unicode.IsDigit(prev)
}

// rankNames orders matches best first, then by name for stable results.
func rankNames(matches []scoredName) []indexedName {
	slices.SortFunc(matches, func(a, b scoredName) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	names := make([]indexedName, len(matches))
	for i, m := range matches {
		names[i] = m.indexedName
	}
	return names
}
