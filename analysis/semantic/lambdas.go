package semantic

import (
	"bytes"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// inLambda reports whether a Kotlin or Java reference lies inside a brace
// that may open a lambda or an anonymous object, read from the text: a
// lambda's receiver (buildString { append(…) }) or an anonymous object's
// supertype can bring any name in. Blocks of if, for, while, when, try,
// functions and classes are told apart; any other brace counts as one.
func (c *checker) inLambda(ref analysis.Ref) bool {
	// From the top-level declaration around the reference, or else (a
	// getter, which may lie outside its property's span) from the end of
	// the last one before it.
	from, inside := 0, false
	for _, d := range c.f.Defs {
		if !c.fileLevel(d) {
			continue
		}
		if d.FullSpan.Start <= ref.Span.Start && ref.Span.Start < d.FullSpan.End {
			if !inside || d.FullSpan.Start < from {
				from = d.FullSpan.Start
			}
			inside = true
		} else if !inside && d.FullSpan.End <= ref.Span.Start && d.FullSpan.End > from {
			from = d.FullSpan.End
		}
	}
	var open []bool // per unclosed brace: whether it may be a lambda
	for i := from; i < ref.Span.Start; i++ {
		if k := skipLiteral(c.src, i, c.f.Lang); k > i {
			i = k - 1
			continue
		}
		switch c.src[i] {
		case '{':
			open = append(open, c.lambdaBrace(i))
		case '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	for _, l := range open {
		if l {
			return true
		}
	}
	return false
}

// fileLevel reports whether d is declared in the file's own scope (a
// local's Container may be unset).
func (c *checker) fileLevel(d analysis.Def) bool {
	return d.Container == analysis.None && d.Scope >= 0 && int(d.Scope) < len(c.f.Scopes) &&
		c.f.Scopes[d.Scope].Parent == analysis.None
}

var blockWords = map[string]bool{"else": true, "try": true, "finally": true, "do": true, "init": true, "static": true}

// controlWords open a block after their parenthesis.
var controlWords = map[string]bool{"if": true, "for": true, "while": true, "catch": true, "when": true,
	"switch": true, "synchronized": true, "init": true, "constructor": true}

// headerWords start a declaration whose body a brace on its line opens.
var headerWords = []string{"fun ", "class ", "interface ", "enum ", "record ", "void ", "public ", "private ",
	"protected ", "static ", "override ", "internal ", "constructor"}

// lambdaBrace reports whether the brace at i may open a lambda.
func (c *checker) lambdaBrace(i int) bool {
	j := i - 1
	for j >= 0 && (c.src[j] == ' ' || c.src[j] == '\t' || c.src[j] == '\n' || c.src[j] == '\r') {
		j--
	}
	if j < 0 {
		return false
	}
	switch b := c.src[j]; {
	case b == '>' && j > 0 && c.src[j-1] == '-':
		return c.f.Lang == "java" // a when branch in Kotlin; a lambda in Java (no receiver, but cheap to skip)
	case b == ')':
		open := j
		for depth := 0; open >= 0; open-- {
			if c.src[open] == ')' {
				depth++
			} else if c.src[open] == '(' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if open < 0 {
			return true
		}
		name := c.wordBefore(open)
		if controlWords[string(name)] {
			return false
		}
		return !c.declarationHeader(open) && !(c.f.Lang == "java" && c.typedName(open-len(name)))
	case isWordByte(b):
		start := j
		for start > 0 && isWordByte(c.src[start-1]) {
			start--
		}
		if blockWords[string(c.src[start:j+1])] {
			return false
		}
		return !c.declarationHeader(start)
	}
	return true
}

// declarationHeader reports whether the line up to i declares a function
// or a named type whose body the brace opens: a header word, no '=' (an
// expression body, whose braces are a call's lambda), no anonymous object.
func (c *checker) declarationHeader(i int) bool {
	line := string(c.src[bytes.LastIndexByte(c.src[:i], '\n')+1 : i])
	if strings.Contains(line, "new ") || strings.Contains(line, "object :") || strings.Contains(line, "object:") ||
		strings.Contains(strings.NewReplacer("==", "", "!=", "", "<=", "", ">=", "").Replace(line), "=") {
		return false
	}
	for _, w := range headerWords {
		if strings.Contains(line, w) {
			return true
		}
	}
	return strings.Contains(line, "object ") // a named object declaration
}

// typedName reports whether a Java name ending before i follows a type,
// as a method's name in its declaration does (int run(), List<T> all()).
func (c *checker) typedName(i int) bool {
	j := i - 1
	for j >= 0 && (c.src[j] == ' ' || c.src[j] == '\t') {
		j--
	}
	if j < 0 || j == i-1 && !isWordByte(c.src[j]) {
		return false
	}
	if c.src[j] == '>' || c.src[j] == ']' {
		return true
	}
	switch string(c.wordBefore(j + 1)) {
	case "", "return", "throw", "new", "else", "yield", "case", "assert":
		return false
	}
	return true
}

// wordBefore is the word just before i, spaces skipped.
func (c *checker) wordBefore(i int) []byte {
	j := i - 1
	for j >= 0 && (c.src[j] == ' ' || c.src[j] == '\t') {
		j--
	}
	end := j + 1
	for j >= 0 && isWordByte(c.src[j]) {
		j--
	}
	return c.src[j+1 : end]
}
