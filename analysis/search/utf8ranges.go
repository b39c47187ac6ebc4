package search

import "unicode/utf8"

// byteRange is an inclusive range of byte values.
type byteRange struct{ lo, hi byte }

// utf8Sequences splits the runes lo..hi into sequences of byte ranges whose
// concatenations are exactly those runes' UTF-8 encodings (surrogates,
// which do not encode, left out), so that a byte automaton can match a
// rune class. Each sequence is 1 to 4 ranges long.
func utf8Sequences(lo, hi rune, out [][]byteRange) [][]byteRange {
	if lo > hi || lo > utf8.MaxRune {
		return out
	}
	hi = min(hi, utf8.MaxRune)
	if lo <= 0xDFFF && hi >= 0xD800 {
		if lo < 0xD800 {
			out = utf8Sequences(lo, 0xD7FF, out)
		}
		if hi > 0xDFFF {
			out = utf8Sequences(0xE000, hi, out)
		}
		return out
	}
	// Every rune of a sequence has the same encoded length.
	for _, last := range []rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= last && last < hi {
			out = utf8Sequences(lo, last, out)
			return utf8Sequences(last+1, hi, out)
		}
	}
	if hi < utf8.RuneSelf {
		return append(out, []byteRange{{byte(lo), byte(hi)}})
	}
	// Split until the runes differ only in continuation bytes that span
	// their full range, so that each byte position is one range.
	for i := 1; i < utf8.UTFMax; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m != hi&^m {
			if lo&m != 0 {
				out = utf8Sequences(lo, lo|m, out)
				return utf8Sequences((lo|m)+1, hi, out)
			}
			if hi&m != m {
				out = utf8Sequences(lo, (hi&^m)-1, out)
				return utf8Sequences(hi&^m, hi, out)
			}
		}
	}
	var a, b [utf8.UTFMax]byte
	n := utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], hi)
	seq := make([]byteRange, n)
	for i := range n {
		seq[i] = byteRange{a[i], b[i]}
	}
	return append(out, seq)
}
