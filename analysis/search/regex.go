package search

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Grep semantics, as ripgrep has them without PCRE2, on Go's RE2 engine:
//
//   - Matching is line-oriented: no match spans a newline. Character classes
//     (including \s, [^x] and . under (?s)) lose \n, and a literal \n in the
//     pattern is an error, unless the search is multi-line (-U).
//   - \w, \d and \s are Unicode-aware (Go's are ASCII): they are rewritten to
//     UTS#18's word class (Alphabetic, M, Nd, Pc, Join_Control), \p{Nd} and
//     the White_Space property.
//   - \b and \B are Unicode-aware too. RE2 has no look-around, so each is
//     rewritten to an empty capture group that records where the engine
//     crossed it, and the boundary is checked on the text afterwards; a
//     candidate that fails is retried from the next character. This is exact
//     except when a failed candidate had an alternative at the same start
//     (`foo\b|foobar` on "foobar"), and a \b inside a repetition is checked on
//     its last iteration only.
//   - -w means what it means to ripgrep: the match is preceded by the line
//     start or a non-word character and followed by the line end or one.
//   - . and negated classes never match a byte of invalid UTF-8 (a Latin-1
//     byte), as in Rust's regex. RE2 would match it as U+FFFD, so such bytes
//     are searched as NUL (see matchable) and NUL is taken out of every class;
//     a real U+FFFD in the text still matches . as it does for ripgrep.

// Matcher finds grep matches in text.
type Matcher struct {
	re        *regexp.Regexp // the rewritten pattern
	noBegin   *regexp.Regexp // the same with ^ never matching: for retries mid-line
	markers   []marker       // by capture group index; nil when none
	multiline bool
	pre       prefilter // nil: every line goes to the regexp
	dfa       *lineDFA  // nil: the regexp decides every line
	trigrams  *Query
}

type markerKind uint8

const (
	markNone       markerKind = iota
	markBoundary              // \b
	markNoBoundary            // \B
	markWordStart             // -w: line start or a non-word character before
	markWordEnd               // -w: line end or a non-word character after
)

type marker struct{ kind markerKind }

const markerPrefix = "kastmark"

// RegexError is a pattern the engine cannot run, said as ripgrep says it.
type RegexError struct {
	Pattern string
	Reason  string
}

func (e *RegexError) Error() string {
	return "invalid regex pattern `" + e.Pattern + "`: " + e.Reason
}

// parseError words a syntax error for people: RE2's code, without Go's
// "error parsing regexp:" prefix, and the unsupported Perl features named.
func parseError(pattern string, err error) error {
	reason := err.Error()
	if se, ok := err.(*syntax.Error); ok {
		reason = string(se.Code)
		switch {
		case lookAround(se.Expr):
			reason = "look-around (look-ahead and look-behind) is not supported: kast uses RE2 syntax, as ripgrep does without --pcre2"
		case se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && se.Expr[1] >= '1' && se.Expr[1] <= '9':
			reason = "backreferences (" + se.Expr + ") are not supported: kast uses RE2 syntax, as ripgrep does without --pcre2"
		case se.Expr != "" && se.Expr != pattern:
			reason += ": `" + se.Expr + "`"
		}
	}
	return &RegexError{Pattern: pattern, Reason: reason}
}

func lookAround(expr string) bool {
	for _, p := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
		if strings.HasPrefix(expr, p) {
			return true
		}
	}
	return false
}

// NewMatcher compiles a query's pattern with grep semantics.
func NewMatcher(q RegexQuery) (*Matcher, error) {
	p := q.Pattern
	if q.Fixed {
		p = regexp.QuoteMeta(p)
	}
	flags := syntax.Perl
	if q.IgnoreCase {
		flags |= syntax.FoldCase
	}
	if _, err := syntax.Parse(p, flags); err != nil {
		return nil, parseError(q.Pattern, err)
	}
	m := &Matcher{multiline: q.Multiline}
	rewritten, kinds := unicodeEscapes(p)
	parsed, err := syntax.Parse(rewritten, flags)
	if err != nil {
		return nil, parseError(q.Pattern, err)
	}
	if !q.Multiline && containsNewline(parsed) {
		return nil, &RegexError{Pattern: q.Pattern, Reason: `the literal "\n" is not allowed in a line-oriented search; use multi-line mode (-U, --multiline)`}
	}
	parsed = m.rewrite(parsed)
	if q.WholeWord {
		kinds = append(kinds, markWordStart, markWordEnd)
		n := len(kinds)
		start := &syntax.Regexp{Op: syntax.OpCapture, Name: fmt.Sprintf("%s%d", markerPrefix, n-2), Sub: []*syntax.Regexp{{Op: syntax.OpEmptyMatch}}}
		end := &syntax.Regexp{Op: syntax.OpCapture, Name: fmt.Sprintf("%s%d", markerPrefix, n-1), Sub: []*syntax.Regexp{{Op: syntax.OpEmptyMatch}}}
		group := &syntax.Regexp{Op: syntax.OpCapture, Sub: []*syntax.Regexp{parsed}}
		parsed = &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{start, group, end}}
	}
	text := "(?m)" + parsed.String()
	if m.re, err = regexp.Compile(text); err != nil {
		return nil, parseError(q.Pattern, err)
	}
	if len(kinds) > 0 {
		noBegin := neverBegin(parsed)
		if m.noBegin, err = regexp.Compile("(?m)" + noBegin.String()); err != nil {
			return nil, parseError(q.Pattern, err)
		}
		m.markers = make([]marker, m.re.NumSubexp()+1)
		for i, name := range m.re.SubexpNames() {
			var k int
			if _, err := fmt.Sscanf(name, markerPrefix+"%d", &k); err == nil && k < len(kinds) {
				m.markers[i] = marker{kinds[k]}
			}
		}
	}
	if !q.Multiline {
		m.dfa = newLineDFA(text, m.markers != nil)
	}
	m.pre = newPrefilter(parsed.Simplify())
	m.trigrams = TrigramQuery(parsed)
	return m, nil
}

// Regexp is the compiled, rewritten expression.
func (m *Matcher) Regexp() *regexp.Regexp { return m.re }

// Unicode sets as ripgrep's regex engine defines \w, \d and \s.
var (
	wordTables  = []*unicode.RangeTable{unicode.L, unicode.M, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic, unicode.Join_Control}
	spaceTables = []*unicode.RangeTable{unicode.White_Space}
	wordClass   = classText(wordTables, false)
	nonWord     = classText(wordTables, true)
	spaceClass  = classText(spaceTables, false)
	nonSpace    = classText(spaceTables, true)
)

// IsWordRune reports whether r is a word character as \w matches it.
func IsWordRune(r rune) bool { return unicode.IsOneOf(wordTables, r) }

// classText spells a set of tables (or its complement) as the inside of a
// bracket class.
func classText(tables []*unicode.RangeTable, negate bool) string {
	var ranges [][2]rune
	in := func(r rune) bool { return unicode.IsOneOf(tables, r) }
	start := rune(-1)
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		ok := r <= unicode.MaxRune && in(r) != negate
		if ok && start < 0 {
			start = r
		} else if !ok && start >= 0 {
			ranges = append(ranges, [2]rune{start, r - 1})
			start = -1
		}
	}
	var b strings.Builder
	for _, rg := range ranges {
		fmt.Fprintf(&b, `\x{%x}`, rg[0])
		if rg[1] != rg[0] {
			fmt.Fprintf(&b, `-\x{%x}`, rg[1])
		}
	}
	return b.String()
}

// unicodeEscapes rewrites \w \W \d \D \s \S to their Unicode classes and \b
// \B to named empty groups (markers), returning the markers' kinds in order.
// It tokenizes just enough of the syntax to know which backslashes start an
// escape and whether they sit in a bracket class; the pattern is known to
// parse.
func unicodeEscapes(p string) (string, []markerKind) {
	var b strings.Builder
	var kinds []markerKind
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			e := p[i+1]
			i++
			if e == 'Q' { // literal text up to \E
				end := strings.Index(p[i+1:], `\E`)
				if end < 0 {
					b.WriteString(p[i-1:])
					return b.String(), kinds
				}
				b.WriteString(p[i-1 : i+1+end+2])
				i += end + 2
				continue
			}
			var rep string
			switch e {
			case 'w':
				rep = wordClass
			case 'W':
				rep = nonWord
			case 's':
				rep = spaceClass
			case 'S':
				rep = nonSpace
			case 'd':
				rep = `\p{Nd}`
			case 'D':
				rep = `\P{Nd}`
			case 'b', 'B':
				if !inClass {
					kind := markBoundary
					if e == 'B' {
						kind = markNoBoundary
					}
					fmt.Fprintf(&b, "(?P<%s%d>)", markerPrefix, len(kinds))
					kinds = append(kinds, kind)
					continue
				}
			}
			switch {
			case rep == "":
				b.WriteByte('\\')
				b.WriteByte(e)
			case inClass || e == 'd' || e == 'D':
				b.WriteString(rep)
			default:
				b.WriteString("[" + rep + "]")
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ] right after [ or [^ is a literal.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && i+1 < len(p) && p[i+1] == ':':
			end := strings.Index(p[i:], ":]")
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(p[i : i+end+2])
			i += end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), kinds
}

func containsNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, s := range re.Sub {
		if containsNewline(s) {
			return true
		}
	}
	return false
}

// rewrite makes classes line-local (unless multi-line) and keeps them off
// invalid UTF-8, and makes \A and \z line anchors as they are to grep.
func (m *Matcher) rewrite(re *syntax.Regexp) *syntax.Regexp {
	for i, s := range re.Sub {
		re.Sub[i] = m.rewrite(s)
	}
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		re = &syntax.Regexp{Op: syntax.OpCharClass, Flags: re.Flags, Rune: []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}}
		if m.multiline && re.Flags&syntax.DotNL != 0 {
			re.Rune = []rune{0, unicode.MaxRune}
		}
		re.Rune = removeRune(re.Rune, 0)
	case syntax.OpCharClass:
		if !m.multiline {
			re.Rune = removeRune(re.Rune, '\n')
		}
		re.Rune = removeRune(re.Rune, 0)
		if len(re.Rune) == 0 {
			re = &syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpBeginText:
		if !m.multiline {
			re.Op = syntax.OpBeginLine
		}
	case syntax.OpEndText:
		if !m.multiline {
			re.Op = syntax.OpEndLine
		}
	}
	return re
}

// removeRune takes r out of a class's sorted [lo, hi] pairs.
func removeRune(ranges []rune, r rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if r < lo || r > hi {
			out = append(out, lo, hi)
			continue
		}
		if lo < r {
			out = append(out, lo, r-1)
		}
		if r < hi {
			out = append(out, r+1, hi)
		}
	}
	return out
}

// neverBegin copies re with its line and text starts made unmatchable: the
// expression a retry runs on the rest of a line.
func neverBegin(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = neverBegin(s)
	}
	if c.Op == syntax.OpBeginLine || c.Op == syntax.OpBeginText {
		return &syntax.Regexp{Op: syntax.OpNoMatch}
	}
	return &c
}
