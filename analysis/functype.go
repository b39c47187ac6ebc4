package analysis

import "strings"

// FunctionTypeResult is what a written TypeScript function type
// `(a: A) => R` or `<T>(a: T) => R` returns: R, and false for any other
// type. The extractor (contextual results) and the resolver (calls of
// typed values) read function types alike through it.
func FunctionTypeResult(t string) (string, bool) {
	s := strings.TrimSpace(t)
	if !strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "<") {
		return "", false
	}
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '(', '<', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case '>':
			if i == 0 || s[i-1] != '=' {
				depth--
			}
		case '=':
			if depth == 0 && s[i+1] == '>' {
				return strings.TrimSpace(s[i+2:]), true
			}
		}
	}
	return "", false
}

// GoStructLiteral reports whether a written Go type is an anonymous struct
// type, struct{...}, and not a type whose name starts with struct
// (gin's structNoValidationValues).
func GoStructLiteral(t string) bool {
	rest, ok := strings.CutPrefix(t, "struct")
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), "{")
}
