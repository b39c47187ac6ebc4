package kotlin

import (
	"bytes"
	"regexp"
)

// The grammar ends a class header at a line break, so the layout ktfmt
// writes,
//
//	class Widget
//	private constructor(val name: String) { ... }
//
// parses as a class without a body followed by garbage. The parser is
// given the text with that one line break turned into a space (and the
// line comments between the two, as okio writes them, blanked): offsets,
// node texts and points all still come from the file's own text.

func init() { Syntax.SetRewrite(joinConstructorLines) }

var (
	// ctorLine is the start of a line that begins a primary constructor.
	ctorLine = regexp.MustCompile(`^[ \t]*((private|internal|protected|public|actual|expect|@[\w.]+(\([^)\n]*\))?)[ \t]+)*constructor[ \t]*\(`)
	// classHeaderEnd is the end of a line that ends with a class's name.
	classHeaderEnd = regexp.MustCompile(`\bclass[ \t]+\w+[ \t]*(<[^\n]*>)?[ \t]*\r?$`)
)

// joinConstructorLines returns src, or a copy with the line breaks between
// a class name and its primary constructor made spaces.
func joinConstructorLines(src []byte) []byte {
	if !bytes.Contains(src, []byte("constructor")) {
		return src
	}
	var out []byte
	for i := 0; i < len(src); {
		j := bytes.Index(src[i:], []byte("constructor"))
		if j < 0 {
			break
		}
		at := i + j
		i = at + len("constructor")
		nl := bytes.LastIndexByte(src[:at], '\n')
		if nl < 0 || !ctorLine.Match(src[nl+1:min(len(src), i+64)]) {
			continue
		}
		// Line comments between the header and the constructor.
		var breaks []int
		prev := bytes.LastIndexByte(src[:nl], '\n') + 1
		for prev > 0 && bytes.HasPrefix(bytes.TrimLeft(src[prev:nl], " \t"), []byte("//")) {
			breaks = append(breaks, nl)
			nl = prev - 1
			prev = bytes.LastIndexByte(src[:nl], '\n') + 1
		}
		if !classHeaderEnd.Match(src[prev:nl]) {
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		for _, b := range append(breaks, nl) {
			out[b] = ' '
			if b > 0 && out[b-1] == '\r' {
				out[b-1] = ' '
			}
		}
		if len(breaks) > 0 {
			// The comment lines' text, now on the header's line.
			for k := nl + 1; k < breaks[0]; k++ {
				out[k] = ' '
			}
		}
	}
	if out == nil {
		return src
	}
	return out
}
