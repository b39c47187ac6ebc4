package extract

import (
	"bytes"
	"strings"
)

// CommentStyle says which comments document the declaration that follows them.
type CommentStyle struct {
	Line         string // line comment prefix: "//", "#"
	Block        bool   // whether a /* ... */ block counts
	DocBlockOnly bool   // whether only /** ... */ blocks count
}

var (
	// CStyle is Kotlin, Java, JavaScript and TypeScript: KDoc/JavaDoc/JSDoc blocks.
	CStyle = CommentStyle{Line: "//", Block: true, DocBlockOnly: true}
	// GoStyle is Go and Rust: line comments directly above.
	GoStyle = CommentStyle{Line: "//", Block: true}
	// HashStyle is Python and Ruby.
	HashStyle = CommentStyle{Line: "#"}
)

// Doc returns the comment that ends right above start (only blank space and
// at most one line break in between), with comment markers removed.
func Doc(src []byte, start int, style CommentStyle) string {
	end := skipBackSpace(src, start)
	if end == 0 || bytes.Count(src[end:start], []byte("\n")) > 1 {
		return ""
	}
	if style.Block && bytes.HasSuffix(src[:end], []byte("*/")) {
		open := bytes.LastIndex(src[:end], []byte("/*"))
		if open < 0 || (style.DocBlockOnly && !bytes.HasPrefix(src[open:], []byte("/**"))) {
			return ""
		}
		return cleanBlock(string(src[open+2 : end-2]))
	}
	if style.Line == "" {
		return ""
	}
	// Collect consecutive line comments upwards.
	var lines []string
	for end > 0 {
		lineStart := bytes.LastIndexByte(src[:end], '\n') + 1
		line := strings.TrimSpace(string(src[lineStart:end]))
		if !strings.HasPrefix(line, style.Line) {
			break
		}
		lines = append(lines, strings.TrimSpace(strings.TrimLeft(line, style.Line[:1]+"!")))
		if lineStart == 0 {
			break
		}
		end = lineStart - 1
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func skipBackSpace(src []byte, i int) int {
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n' || src[i-1] == '\r') {
		i--
	}
	return i
}

func cleanBlock(body string) string {
	body = strings.TrimPrefix(body, "*")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		lines[i] = strings.TrimSpace(strings.TrimPrefix(l, "*"))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
