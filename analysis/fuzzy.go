package analysis

import (
	"unicode"
	"unicode/utf8"
)

// FuzzyScore scores name against a symbol-picker pattern: the pattern's
// letters must appear in order, ignoring case; matches at word starts and
// runs of adjacent matches score higher, an exact match highest. 0 means no
// match; an empty pattern matches everything weakly.
func FuzzyScore(pattern, name string) int {
	if pattern == "" {
		return 1
	}
	pr := []rune(pattern)
	score, matched, prevMatch := 0, 0, -2
	prev := rune(0)
	for i, r := range []rune(name) {
		if matched == len(pr) {
			break
		}
		if unicode.ToLower(r) == unicode.ToLower(pr[matched]) {
			score++
			if i == prevMatch+1 {
				score += 4
			}
			if i == 0 || wordStart(prev, r) {
				score += 8
			}
			if r == pr[matched] {
				score++ // same case
			}
			prevMatch = i
			matched++
		}
		prev = r
	}
	if matched < len(pr) {
		return 0
	}
	n := utf8.RuneCountInString(name)
	if len(pr) == n {
		score += 100
	}
	return max(1, score*16-n)
}

func wordStart(prev, r rune) bool {
	switch {
	case prev == '_' || prev == '-' || prev == '.' || prev == '$':
		return true
	case unicode.IsUpper(r) && !unicode.IsUpper(prev):
		return true
	}
	return unicode.IsDigit(r) != unicode.IsDigit(prev)
}
