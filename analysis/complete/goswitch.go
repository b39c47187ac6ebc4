package complete

import (
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Expectations that need an expression's type: a switch's tag in its case
// lists, the other operand of a comparison or an arithmetic operator.

// goCaseExpectation reads, when the member at qstart is in the list of a
// `case` (qstart's line starts with it), the type of the switch's tag and
// the other cases' expressions, which gopls ranks lower (used already).
func (c *collector) goCaseExpectation(qstart int) (goExpect, bool) {
	text := c.text
	line := qstart
	for line > 0 && text[line-1] != '\n' {
		line--
	}
	head := strings.TrimSpace(string(text[line:qstart]))
	list, isCase := strings.CutPrefix(head, "case")
	if !isCase || strings.TrimLeft(list, " \t,.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
		return goExpect{}, false // not a list of names: `case x < y.M` compares
	}
	open := line - 1 // the switch body's brace: the first one unclosed before the case
	for depth := 0; open >= 0; open-- {
		switch text[open] {
		case '"', '`', '\'':
			open = quoteStart(text, open)
		case '}':
			depth++
		case '{':
			depth--
		}
		if depth < 0 {
			break
		}
	}
	if open < 0 {
		return goExpect{}, true
	}
	start := open
	for start > 0 && text[start-1] != '\n' {
		start--
	}
	stmt := strings.TrimSpace(string(text[start:open]))
	tag, ok := strings.CutPrefix(stmt, "switch")
	if !ok {
		return goExpect{}, true
	}
	if _, after, ok := strings.Cut(tag, ";"); ok {
		tag = after
	}
	tag = strings.TrimSpace(tag)
	if tag == "" || strings.Contains(tag, ".(type)") {
		return goExpect{}, true // a switch on conditions, or on a type
	}
	e := goExpect{}
	e.typ, e.known = c.goExprType(tag, open)
	if e.known {
		e.used = c.otherCases(open, qstart)
	}
	return e, true
}

// otherCases lists the expressions of the switch's cases, whose body opens
// at open, but the one at qstart.
func (c *collector) otherCases(open, qstart int) map[string]bool {
	body := string(c.text[open+1 : min(len(c.text), open+1+closeOf(string(c.text[open:min(len(c.text), open+1<<16)]), 0))])
	used := map[string]bool{}
	at := open + 1
	for l := range strings.Lines(body) {
		from := at
		at += len(l)
		list, ok := strings.CutPrefix(strings.TrimSpace(l), "case ")
		if !ok {
			continue
		}
		list, _, _ = strings.Cut(list, ":")
		off := from + strings.Index(l, "case ") + len("case ")
		for _, e := range resolve.SplitTopLevel(list) {
			expr := strings.TrimSpace(e)
			if !(off <= qstart && qstart < off+len(e)) {
				used[expr] = true
			}
			off += len(e) + 1
		}
	}
	return used
}

// goOperandExpectation reads the type of the operand left of the binary
// operator before j (latency < time.M).
func (c *collector) goOperandExpectation(j int) goExpect {
	text := c.text
	op := j - 1
	if op > 0 && (text[op] == '&' && text[op-1] == '&' || text[op] == '|' && text[op-1] == '|' || text[op] == '-' && text[op-1] == '<') {
		return goExpect{} // && and || take any boolean; <- a channel's
	}
	if op > 0 && strings.IndexByte("<>=!", text[op-1]) >= 0 && text[op] == '=' || op > 0 && (text[op] == '<' || text[op] == '>') && text[op-1] == text[op] {
		op--
	}
	end := skipSpaceBack(text, op)
	i, depth := end, 0
	for i > 0 {
		b := text[i-1]
		if b == ')' || b == ']' {
			depth++
		} else if (b == '(' || b == '[') && depth > 0 {
			depth--
		} else if depth == 0 && !isIdent(b) && b != '.' && b != '"' {
			break
		}
		i--
	}
	operand := strings.TrimSpace(string(text[i:end]))
	e := goExpect{}
	e.typ, e.known = c.goExprType(operand, i)
	return e
}

// goExprType is the type of a Go expression written at offset: a literal's
// kind, or the type its name, selector or call resolves to.
func (c *collector) goExprType(expr string, offset int) (goType, bool) {
	if expr == "" {
		return goType{}, false
	}
	if t, ok := literalType(expr); ok {
		return t, true
	}
	scope, def := innermostScope(c.f, offset), innermostDef(c.f, offset)
	for _, t := range c.s.Resolver().ReceiverTypes(c.f.Path, expr, scope, def, analysis.Span{Start: offset, End: offset}) {
		if t.Uncertain {
			continue
		}
		g := c.s.File(t.Def.Path)
		if g == nil || int(t.Def.Index) >= len(g.Defs) {
			continue
		}
		d := g.Defs[t.Def.Index]
		if filepath.Base(filepath.Dir(t.Def.Path)) == "builtin" {
			return goType{name: d.Name}, true
		}
		return goType{name: d.Name, dirs: []string{filepath.Dir(t.Def.Path)}, under: underlyingKind(d)}, true
	}
	return goType{}, false
}

// underlyingKind is the constant kind of a defined type's underlying
// predeclared type (type Kind uint: int), or "".
func underlyingKind(d analysis.Def) string {
	under := strings.TrimSpace(strings.TrimPrefix(d.Signature, d.Name))
	return basicKinds[under]
}
