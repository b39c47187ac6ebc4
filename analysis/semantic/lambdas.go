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
	from := ref.Span.Start
	for _, d := range c.f.Defs {
		if d.Container == analysis.None && d.FullSpan.Start <= ref.Span.Start && ref.Span.Start < d.FullSpan.End {
			from = min(from, d.FullSpan.Start)
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

var blockWords = map[string]bool{"else": true, "try": true, "finally": true, "do": true, "init": true, "static": true}

var headerWords = []string{"fun ", "class ", "interface ", "object ", "if", "for", "while", "catch", "when", "constructor", "switch", "synchronized"}

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
		line := c.src[bytes.LastIndexByte(c.src[:open], '\n')+1 : open]
		if bytes.Contains(line, []byte("new ")) || bytes.Contains(line, []byte("object")) {
			return true // an anonymous class
		}
		return !hasHeaderWord(string(line))
	case isWordByte(b):
		start := j
		for start > 0 && isWordByte(c.src[start-1]) {
			start--
		}
		if blockWords[string(c.src[start:j+1])] {
			return false
		}
		line := string(c.src[bytes.LastIndexByte(c.src[:start], '\n')+1 : j+1])
		if strings.Contains(line, "object") || strings.Contains(line, "new ") {
			return true
		}
		return !hasHeaderWord(line)
	}
	return true
}

func hasHeaderWord(line string) bool {
	for _, w := range headerWords {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}
