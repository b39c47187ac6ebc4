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
// given the text with that one line break turned into a space: offsets,
// node texts and points all still come from the file's own text.

func init() { Syntax.SetRewrite(joinConstructorLines) }

var (
	// ctorLine is the start of a line that begins a primary constructor.
	ctorLine = regexp.MustCompile(`^[ \t]*((private|internal|protected|public|@[\w.]+(\([^)\n]*\))?)[ \t]+)*constructor[ \t]*\(`)
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
		prev := bytes.LastIndexByte(src[:nl], '\n') + 1
		if !classHeaderEnd.Match(src[prev:nl]) {
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		out[nl] = ' '
		if nl > 0 && out[nl-1] == '\r' {
			out[nl-1] = ' '
		}
	}
	if out == nil {
		return src
	}
	return out
}
