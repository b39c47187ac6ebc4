package search

import "unicode"

// Terms splits text into the lowercase terms lexical search indexes: every
// identifier-like word, plus its camelCase and snake_case parts when it has
// several ("parseHTTPRequest" → parsehttprequest, parse, http, request).
// Terms shorter than two bytes are dropped: they match almost everything.
func Terms(text string, fn func(term string)) {
	emit := func(s string) {
		if len(s) >= 2 {
			fn(s)
		}
	}
	start := -1
	for i, r := range text + " " {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			w := text[start:i]
			start = -1
			parts := splitIdent(w)
			emit(lower(w))
			if len(parts) > 1 {
				for _, p := range parts {
					emit(lower(p))
				}
			}
		}
	}
}

// splitIdent splits an identifier at underscores, lower→upper case changes,
// the end of an acronym ("HTTPServer" → HTTP, Server) and letter/digit edges.
func splitIdent(w string) []string {
	var parts []string
	rs := []rune(w)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		p := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(p),
			unicode.IsDigit(r) != unicode.IsDigit(p):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(p) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		}
	}
	flush(len(rs))
	return parts
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return toLowerSlow(s)
		}
	}
	return s
}

func toLowerSlow(s string) string {
	rs := []rune(s)
	for i, r := range rs {
		rs[i] = unicode.ToLower(r)
	}
	return string(rs)
}

// foldByte lowercases ASCII letters. Trigrams are taken over ASCII-folded bytes
// so one index serves case-sensitive and case-insensitive patterns.
func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// trigram packs three folded bytes.
func trigram(a, b, c byte) uint32 {
	return uint32(foldByte(a))<<16 | uint32(foldByte(b))<<8 | uint32(foldByte(c))
}

// TrigramSet collects the distinct trigrams of a file; reuse one per worker.
type TrigramSet struct {
	bits []uint64 // one bit per possible trigram (2^24)
	list []uint32
}

// NewTrigramSet returns an empty set.
func NewTrigramSet() *TrigramSet { return &TrigramSet{bits: make([]uint64, 1<<24/64)} }

// Of returns the distinct folded trigrams of src, unordered. The slice is
// reused by the next call.
func (s *TrigramSet) Of(src []byte) []uint32 {
	for _, t := range s.list {
		s.bits[t>>6] = 0
	}
	s.list = s.list[:0]
	for i := 0; i+2 < len(src); i++ {
		t := trigram(src[i], src[i+1], src[i+2])
		if w, b := t>>6, uint64(1)<<(t&63); s.bits[w]&b == 0 {
			s.bits[w] |= b
			s.list = append(s.list, t)
		}
	}
	return s.list
}
