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
	// Runes are decoded in place: symbol search scores every name of the
	// index, and converting each to []rune allocated gigabytes per minute.
	score, prevMatch, runes := 0, -2, 0
	next, width := utf8.DecodeRuneInString(pattern)
	at := 0 // byte offset of next in pattern; len(pattern) once all matched
	prev := rune(0)
	for _, r := range name {
		i := runes
		runes++
		if at == len(pattern) {
			continue // counting the rest of name's runes
		}
		if foldEqual(r, next) {
			score++
			if i == prevMatch+1 {
				score += 4
			}
			if i == 0 || wordStart(prev, r) {
				score += 8
			}
			if r == next {
				score++ // same case
			}
			prevMatch = i
			at += width
			if at < len(pattern) {
				next, width = utf8.DecodeRuneInString(pattern[at:])
			}
		}
		prev = r
	}
	if at < len(pattern) {
		return 0
	}
	if utf8.RuneCountInString(pattern) == runes {
		score += 100
	}
	return max(1, score*16-runes)
}

// foldEqual reports whether a and b are equal ignoring case, without
// unicode's tables for ASCII.
func foldEqual(a, b rune) bool {
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return a == b
	}
	return unicode.ToLower(a) == unicode.ToLower(b)
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
