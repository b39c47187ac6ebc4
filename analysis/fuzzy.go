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

// FuzzyMask is the set of characters FuzzyScore can match in name, one bit
// per ASCII character (letters either case) folded into 64 bits: a pattern
// whose FuzzyPatternMask is not within it scores 0, which a symbol search
// tells with one AND per name instead of scoring every name of the index.
// A name with a character beyond ASCII, which Unicode's case folding may
// equal to an ASCII one (the Kelvin sign and k), has every bit.
func FuzzyMask(name string) uint64 {
	var m uint64
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			return ^uint64(0)
		}
		m |= 1 << (LowerASCII(c) % 64)
	}
	return m
}

// FuzzyPatternMask is the bits of the pattern's ASCII characters: each
// must be in a matching name's FuzzyMask. A character beyond ASCII sets
// none, since a name's ASCII character may fold to it.
func FuzzyPatternMask(pattern string) uint64 {
	var m uint64
	for i := 0; i < len(pattern); i++ {
		if c := pattern[i]; c < utf8.RuneSelf {
			m |= 1 << (LowerASCII(c) % 64)
		}
	}
	return m
}

// LowerASCII lowers an ASCII upper-case letter and leaves any other byte.
func LowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
