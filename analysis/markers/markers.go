// Package markers parses the marker comments of txtar test workspaces, so
// engine tests (analysis/...) and protocol tests (handlers/...) share one
// format without the engine tests importing the server's test harness.
package markers

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A marker test is a txtar archive: its sections form a small workspace whose
// comments carry markers, in the gopls style:
//
//	fun greet() = 1 //@loc(greetDecl, "greet")
//	val x = greet() //@def("greet", greetDecl), refs(greetDecl, "greet")
//
// A marker comment starts with //@ or #@ and holds calls name(arg, ...). An
// argument is a Go string literal, an identifier, an integer or name=value.
// loc(name, "text") binds name to the first "text" on its line; every other
// marker is handed to the Checker registered under its name. Sections named
// "@name" are golden outputs, "capabilities.json" replaces the client
// capabilities and "skip" skips the archive with its content as the reason.

// Arg is one marker argument.
type Arg struct {
	Str   string // string literal value, or the identifier's name
	Int   int
	Kind  ArgKind
	Key   string // for name=value: the name; the value is the rest of the Arg
	Quote bool   // the value was a string literal
}

// ArgKind says what an Arg holds.
type ArgKind int

const (
	ArgString ArgKind = iota
	ArgIdent
	ArgInt
)

// Marker is one call in a marker comment.
type Marker struct {
	Name   string
	Args   []Arg
	File   string // archive-relative path
	Line   int    // 0-based line of the comment
	source []byte // the file's content, for locating text on the line
}

func (m Marker) String() string { return fmt.Sprintf("%s:%d: @%s", m.File, m.Line+1, m.Name) }

// Location is a point in a workspace file.
type Location struct {
	File   string // archive-relative path
	Offset int    // byte offset
	Line   int    // 0-based
	Col    int    // 0-based UTF-8 byte column
	Col16  int    // 0-based UTF-16 column
}

// Position returns the location as an LSP position in encoding enc.
func (l Location) Position(enc string) map[string]int {
	if enc == "utf-8" {
		return map[string]int{"line": l.Line, "character": l.Col}
	}
	return map[string]int{"line": l.Line, "character": l.Col16}
}

func (l Location) String() string { return fmt.Sprintf("%s:%d:%d", l.File, l.Line+1, l.Col+1) }

// Find locates the first occurrence of text on the marker's line, before
// the marker comment.
func (m Marker) Find(text string) (Location, error) {
	return FindOnLine(m.File, m.source, m.Line, text)
}

// ParseMarkers finds the marker comments (//@ or #@) in a file.
func ParseMarkers(file string, src []byte) ([]Marker, error) {
	var out []Marker
	for i, line := range strings.Split(string(src), "\n") {
		_, body := markerComment(line)
		if body < 0 {
			continue
		}
		calls, err := parseCalls(line[body:])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
		}
		for _, c := range calls {
			c.File, c.Line, c.source = file, i, src
			out = append(out, c)
		}
	}
	return out, nil
}

// markerComment returns where a "//@" or "#@" comment starts on line and
// where its calls start, or -1, -1.
func markerComment(line string) (comment, body int) {
	for _, open := range []string{"//@", "#@"} {
		if i := strings.Index(line, open); i >= 0 {
			return i, i + len(open)
		}
	}
	return -1, -1
}

// parseCalls parses `name(args), name2(args)` up to the end of the line.
func parseCalls(s string) ([]Marker, error) {
	p := &markerParser{s: s}
	var out []Marker
	for {
		p.space()
		if p.done() {
			return out, nil
		}
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("marker name expected at %q", p.rest())
		}
		m := Marker{Name: name}
		p.space()
		if !p.eat('(') {
			return nil, fmt.Errorf("@%s: '(' expected", name)
		}
		for p.space(); !p.eat(')'); p.space() {
			a, err := p.arg()
			if err != nil {
				return nil, fmt.Errorf("@%s: %v", name, err)
			}
			m.Args = append(m.Args, a)
			p.space()
			if !p.eat(',') && p.peek() != ')' {
				return nil, fmt.Errorf("@%s: ',' or ')' expected at %q", name, p.rest())
			}
		}
		out = append(out, m)
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.done() && !strings.HasPrefix(p.rest(), "*/") {
				return nil, fmt.Errorf("unexpected %q after @%s(...)", p.rest(), name)
			}
			return out, nil
		}
	}
}

type markerParser struct {
	s string
	i int
}

func (p *markerParser) done() bool   { return p.i >= len(p.s) }
func (p *markerParser) rest() string { return p.s[p.i:] }
func (p *markerParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}
func (p *markerParser) eat(b byte) bool {
	if p.peek() == b && !p.done() {
		p.i++
		return true
	}
	return false
}
func (p *markerParser) space() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}
func (p *markerParser) ident() string {
	start := p.i
	for !p.done() {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if !(unicode.IsLetter(r) || r == '_' || (p.i > start && (unicode.IsDigit(r) || r == '.'))) {
			break
		}
		p.i += size
	}
	return p.s[start:p.i]
}

func (p *markerParser) arg() (Arg, error) {
	start := p.i
	if id := p.ident(); id != "" {
		p.space()
		if p.eat('=') {
			p.space()
			v, err := p.arg()
			v.Key = id
			return v, err
		}
		return Arg{Kind: ArgIdent, Str: id}, nil
	}
	switch c := p.peek(); {
	case c == '"' || c == '`':
		end := p.i + 1
		for end < len(p.s) && p.s[end] != c {
			if p.s[end] == '\\' && c == '"' {
				end++
			}
			end++
		}
		if end >= len(p.s) {
			return Arg{}, fmt.Errorf("unterminated string at %q", p.s[start:])
		}
		v, err := strconv.Unquote(p.s[p.i : end+1])
		if err != nil {
			return Arg{}, fmt.Errorf("bad string %s: %v", p.s[p.i:end+1], err)
		}
		p.i = end + 1
		return Arg{Kind: ArgString, Str: v, Quote: true}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		p.i++
		for !p.done() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.Atoi(p.s[start:p.i])
		return Arg{Kind: ArgInt, Int: n, Str: p.s[start:p.i]}, err
	}
	return Arg{}, fmt.Errorf("argument expected at %q", p.rest())
}

// findOnLine locates the first occurrence of text on line (outside the
// marker comment itself).
func FindOnLine(file string, src []byte, line int, text string) (Location, error) {
	start := 0
	for i := 0; i < line; i++ {
		nl := bytes.IndexByte(src[start:], '\n')
		if nl < 0 {
			return Location{}, fmt.Errorf("line %d out of range", line+1)
		}
		start += nl + 1
	}
	end := len(src)
	if nl := bytes.IndexByte(src[start:], '\n'); nl >= 0 {
		end = start + nl
	}
	content := string(src[start:end])
	if comment, _ := markerComment(content); comment >= 0 {
		content = content[:comment]
	}
	i := wholeWordIndex(content, text)
	if i < 0 {
		i = strings.Index(content, text)
	}
	if i < 0 || text == "" {
		return Location{}, fmt.Errorf("%q not found on line %d", text, line+1)
	}
	return LocationAt(file, src, start+i), nil
}

// wholeWordIndex finds text where it is not part of a longer identifier, so
// "Greeter" finds the type and not the tail of "FriendlyGreeter".
func wholeWordIndex(s, text string) int {
	for from := 0; from <= len(s)-len(text); {
		i := strings.Index(s[from:], text)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(text):])
		if !isIdentRune(before) && !isIdentRune(after) {
			return i
		}
		from = i + 1
	}
	return -1
}

func isIdentRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

func LocationAt(file string, src []byte, offset int) Location {
	lineStart := bytes.LastIndexByte(src[:offset], '\n') + 1
	prefix := src[lineStart:offset]
	col16 := 0
	for _, r := range string(prefix) {
		col16 += max(1, utf16.RuneLen(r))
	}
	return Location{File: file, Offset: offset, Line: bytes.Count(src[:offset], []byte("\n")), Col: len(prefix), Col16: col16}
}
