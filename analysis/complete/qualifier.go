package complete

import "strings"

// qualifierBefore returns the expression before a member access ending at
// start ("a.b" for "a.b.", "Foo()" for "Foo()."), or "".
func qualifierBefore(text []byte, start int) string {
	end := start
	switch {
	case end >= 2 && string(text[end-2:end]) == "?.", end >= 2 && string(text[end-2:end]) == "::":
		end -= 2
	case end >= 2 && string(text[end-2:end]) == "..":
		return "" // a spread or rest, `...sources`, or a Go variadic type: the names in scope
	case end >= 1 && text[end-1] == '.':
		end--
	default:
		return ""
	}
	for end > 0 && strings.IndexByte(" \t\r\n", text[end-1]) >= 0 {
		end-- // a chain continued on the next line: `xs\n  .map`
	}
	i, depth := end, 0
	if q := quotedBefore(text, end); q != "" {
		return q // a string literal's members: "x".repeat
	}
	for i > 0 {
		b := text[i-1]
		switch {
		case b == '!' && depth == 0 && i == end:
			// TypeScript's non-null assertion: `signal!.reason`.
		case b == '>' && depth == 0 && i < end && text[i] == '(':
			// Explicit type arguments of a call: `expectTypeOf<User>().`.
			open := typeArgsOpen(text, i-1)
			if open <= 0 || !isIdent(text[open-1]) {
				return strings.TrimRight(string(text[i:end]), "?!")
			}
			i = open + 1
		case b == ')' || b == ']':
			depth++
		case (b == '(' || b == '[') && depth > 0:
			depth--
		case depth > 0, isIdent(b), b == '.':
		default:
			return strings.TrimRight(string(text[i:end]), "?!")
		}
		i--
	}
	return strings.TrimRight(string(text[i:end]), "?!")
}

// quotedBefore is the one-line string literal ending at end, or "".
func quotedBefore(text []byte, end int) string {
	if end < 2 || text[end-1] != '\'' && text[end-1] != '"' && text[end-1] != '`' {
		return ""
	}
	quote := text[end-1]
	for i := end - 2; i >= 0 && text[i] != '\n'; i-- {
		if text[i] == quote && (i == 0 || text[i-1] != '\\') {
			return string(text[i:end])
		}
	}
	return ""
}

// typeArgsOpen is the index of the '<' that opens the type arguments whose
// '>' is at close, or -1; an arrow's `=>` inside closes nothing.
func typeArgsOpen(text []byte, close int) int {
	depth := 0
	for j := close; j >= 0; j-- {
		switch text[j] {
		case '>':
			if j == 0 || text[j-1] != '=' {
				depth++
			}
		case '<':
			if depth--; depth == 0 {
				return j
			}
		case ';', '\n':
			return -1
		}
	}
	return -1
}
