package semantic

import "strings"

// callArgs reads the argument list of a call from the text after the
// callee's name, for languages whose facts do not carry argument shapes.
// It returns the arguments' texts, trimmed, or false when the text there
// is no plain argument list.
func callArgs(src []byte, at int, lang string) ([]string, bool) {
	i := skipSpace(src, at)
	if i < len(src) && (lang == "go" && src[i] == '[' || lang == "typescript" && src[i] == '<') {
		open, close := src[i], byte(']')
		if open == '<' {
			close = '>'
		}
		end := matchingBracket(src, i, open, close, lang)
		if end < 0 {
			return nil, false
		}
		i = skipSpace(src, end+1)
	}
	if i >= len(src) || src[i] != '(' {
		return nil, false
	}
	end := matchingBracket(src, i, '(', ')', lang)
	if end < 0 {
		return nil, false
	}
	var out []string
	depth, start := 0, i+1
	for j := i + 1; j < end; j++ {
		if k := skipLiteral(src, j, lang); k > j {
			j = k - 1
			continue
		}
		switch src[j] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(string(src[start:j])))
				start = j + 1
			}
		}
	}
	if last := strings.TrimSpace(string(src[start:end])); last != "" {
		out = append(out, last)
	}
	return out, true
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// matchingBracket is the index of the bracket closing the one at i, or -1.
func matchingBracket(src []byte, i int, open, close byte, lang string) int {
	depth := 0
	for j := i; j < len(src); j++ {
		if k := skipLiteral(src, j, lang); k > j {
			j = k - 1
			continue
		}
		switch src[j] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// skipLiteral returns the index after a string, character literal or
// comment starting at i, or i when none starts there.
func skipLiteral(src []byte, i int, lang string) int {
	c := src[i]
	switch {
	case c == '/' && i+1 < len(src) && src[i+1] == '/' && lang != "python",
		c == '#' && lang == "python":
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i
	case c == '/' && i+1 < len(src) && src[i+1] == '*' && lang != "python":
		end := strings.Index(string(src[i+2:]), "*/")
		if end < 0 {
			return len(src)
		}
		return i + 2 + end + 2
	case c == '"' || c == '\'' || c == '`':
		if lang == "go" && c == '`' {
			for j := i + 1; j < len(src); j++ {
				if src[j] == '`' {
					return j + 1
				}
			}
			return len(src)
		}
		if lang == "python" && i+2 < len(src) && src[i+1] == c && src[i+2] == c {
			end := strings.Index(string(src[i+3:]), strings.Repeat(string(c), 3))
			if end < 0 {
				return len(src)
			}
			return i + 3 + end + 3
		}
		for j := i + 1; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++
			case c:
				return j + 1
			case '\n':
				if c != '`' {
					return j // an unterminated literal ends with its line
				}
			}
		}
		return len(src)
	}
	return i
}
