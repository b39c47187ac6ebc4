package complete

import (
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// What Go expects where a member is completed, read from the text around
// the `x.` as gopls reads it from the syntax tree: the parameter of the
// call it is an argument of, the result of the function it is returned
// from, the variable it is assigned to, the literal it is compared with;
// and how many values a call there should give (a, b := x.F()).

// goExpect is the expectation at a completion point.
type goExpect struct {
	typ       goType
	known     bool // typ is set
	assignees int  // values a call there should give; 0 when any number
	variadic  bool // the last assignee takes any number
	// assigneeTypes are the types of those values, where known.
	assigneeTypes []goType
	// used are the other cases of the switch whose case list the member
	// is in: gopls ranks them lower.
	used      map[string]bool
	qualifier string
}

// goExpectation reads the expectation for the member after the qualifier
// that starts at qstart and the name that ends at end.
func (c *collector) goExpectation(qstart, end int) goExpect {
	text := c.text
	j := skipSpaceBack(text, qstart)
	for j > 0 && (text[j-1] == '!' || text[j-1] == '&' || text[j-1] == '-' && j > 1 && !isIdent(text[j-2]) && text[j-2] != ')') {
		j = skipSpaceBack(text, j-1) // unary operators keep looking outwards
	}
	if j == 0 {
		return goExpect{}
	}
	if e, ok := c.goCaseExpectation(qstart); ok {
		return e
	}
	switch b := text[j-1]; {
	case strings.IndexByte("<>+-*/%|&^", b) >= 0 && !(b == '>' && j >= 2 && text[j-2] == '-'):
		return c.goOperandExpectation(j)
	case b == '(' || b == ',':
		return c.goArgumentExpectation(j, end)
	case b == '=' && j >= 2 && strings.IndexByte("=!<>", text[j-2]) >= 0:
		return c.goComparedWith(text[:j-2], false)
	case b == '=':
		return c.goAssignedTo(j - 1)
	case wordBefore(text, j) == "return":
		return c.goReturnExpectation(j, 0)
	}
	// The name on the left of a comparison: `x.Name == ""`.
	k := skipSpace(text, skipCall(text, end))
	if k+1 < len(text) && (text[k] == '=' || text[k] == '!') && text[k+1] == '=' {
		return c.goComparedWith(text[k+2:], true)
	}
	return goExpect{}
}

// goArgumentExpectation is the expectation of an argument: j is just past
// the '(' or ',' before it.
func (c *collector) goArgumentExpectation(j, end int) goExpect {
	text := c.text
	open, index := j-1, 0
	for depth := 0; open >= 0; open-- {
		switch text[open] {
		case '"', '`', '\'':
			open = quoteStart(text, open)
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
		case ',':
			if depth == 0 {
				index++
			}
		}
		if depth < 0 {
			break
		}
	}
	if open < 0 || text[open] != '(' {
		if open >= 0 && text[open] == '{' {
			return goExpect{} // a composite literal or a block
		}
		return goExpect{}
	}
	if wordBefore(text, open) == "return" || open > 0 && !isIdent(text[open-1]) {
		return goExpect{} // parentheses, or a call of a call's result
	}
	nameEnd := open
	nameStart := nameEnd
	for nameStart > 0 && isIdent(text[nameStart-1]) {
		nameStart--
	}
	v, ok := c.goCallee(nameStart, nameStart > 0 && text[nameStart-1] == '.')
	if !ok || len(v.params) == 0 {
		return goExpect{}
	}
	var e goExpect
	if index == 0 && argumentCount(text, open) <= 1 {
		e.assignees = len(v.params)
		e.variadic = strings.HasPrefix(v.params[len(v.params)-1], "...")
		e.assigneeTypes = c.readGoTypes(v.path, v.params)
	}
	param := v.params[min(index, len(v.params)-1)]
	if index >= len(v.params) && !strings.HasPrefix(param, "...") {
		return goExpect{}
	}
	param = strings.TrimPrefix(param, "...")
	e.typ, e.known = c.readGoType(v.path, param, v.imports)
	if e.known && (e.typ.name == "any" && e.typ.dirs == nil || strings.HasPrefix(param, "interface")) {
		e.known = false // every value fits an empty interface
	}
	return e
}

// calleeValue is a called function's declaration and where it is written.
type calleeValue struct {
	goValue
	path    string
	imports func() []analysis.Import
}

// goCallee reads the function whose name starts at offset; a name called
// without a selector is not a method (a method may share a function's
// name: the package's function of that name is looked up instead).
func (c *collector) goCallee(offset int, selected bool) (calleeValue, bool) {
	read := func(cands []resolve.Candidate) (calleeValue, bool) {
		for _, cand := range cands {
			g := c.s.File(cand.Def.Path)
			if g == nil || int(cand.Def.Index) >= len(g.Defs) {
				continue
			}
			d := g.Defs[cand.Def.Index]
			if !selected && d.Receiver != "" || d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
				continue
			}
			return calleeValue{goFuncValue(d.Signature), cand.Def.Path, func() []analysis.Import { return g.Imports }}, true
		}
		return calleeValue{}, false
	}
	cands := c.s.Resolver().DefinitionAt(c.f.Path, offset)
	if v, ok := read(cands); ok || selected || len(cands) == 0 {
		return v, ok
	}
	var funcs []resolve.Candidate
	for _, e := range c.s.DefsNamed(wordAfter(c.text, offset)) {
		if e.Kind == analysis.KindFunction && !e.Nested && filepath.Dir(e.Path) == filepath.Dir(c.f.Path) {
			funcs = append(funcs, resolve.Candidate{Def: e.DefID})
		}
	}
	return read(funcs)
}

// goReturnExpectation is the expectation of the index-th result returned
// from the function enclosing the cursor.
func (c *collector) goReturnExpectation(j, _ int) goExpect {
	fn := analysis.None
	for i, d := range c.f.Defs {
		if (d.Kind == analysis.KindFunction || d.Kind == analysis.KindMethod || d.Kind == analysis.KindLambda) &&
			d.FullSpan.Start <= j && j <= d.FullSpan.End && (fn == analysis.None || d.FullSpan.Start >= c.f.Defs[fn].FullSpan.Start) {
			fn = int32(i)
		}
	}
	if fn == analysis.None {
		return goExpect{}
	}
	v := goFuncValue(c.f.Defs[fn].Signature)
	if len(v.results) == 0 {
		return goExpect{}
	}
	var e goExpect
	e.typ, e.known = c.readGoType(c.f.Path, v.results[0], func() []analysis.Import { return c.f.Imports })
	return e
}

// goAssignedTo is the expectation of the value assigned by the '=' at eq:
// the variable's declared type, and with `:=` the number of names.
func (c *collector) goAssignedTo(eq int) goExpect {
	text := c.text
	define := eq > 0 && text[eq-1] == ':'
	lineStart := eq
	for lineStart > 0 && text[lineStart-1] != '\n' && text[lineStart-1] != ';' && text[lineStart-1] != '{' {
		lineStart--
	}
	lhs := strings.TrimSpace(string(text[lineStart:eq]))
	lhs = strings.TrimSuffix(lhs, ":")
	for _, kw := range []string{"if ", "for ", "switch "} {
		lhs = strings.TrimSpace(strings.TrimPrefix(lhs, kw))
	}
	names := resolve.SplitTopLevel(lhs)
	e := goExpect{assignees: len(names)}
	if define || len(names) != 1 {
		return e
	}
	if name, typ, ok := strings.Cut(strings.TrimPrefix(lhs, "var "), " "); ok && lhs != strings.TrimPrefix(lhs, "var ") {
		_ = name
		e.typ, e.known = c.readGoType(c.f.Path, typ, func() []analysis.Import { return c.f.Imports })
		return e
	}
	// A variable declared earlier with its type.
	name := strings.TrimSpace(names[0])
	best := analysis.None
	for i, d := range c.f.Defs {
		if d.Name == name && d.NameSpan.End <= eq && d.TypeName != "" &&
			(d.Kind == analysis.KindVariable || d.Kind == analysis.KindParameter) && (best == analysis.None || d.NameSpan.Start > c.f.Defs[best].NameSpan.Start) {
			best = int32(i)
		}
	}
	if best != analysis.None {
		e.typ, e.known = c.readGoType(c.f.Path, c.f.Defs[best].TypeName, func() []analysis.Import { return c.f.Imports })
	}
	return e
}

// goComparedWith is the expectation of an operand compared with a
// literal: rest is the text after the operator (right is set) or before it.
func (c *collector) goComparedWith(side []byte, right bool) goExpect {
	s := strings.TrimSpace(string(side))
	if !right {
		return c.goOperandExpectation(len(side) + 2)
	}
	if t, ok := literalType(s); ok {
		return goExpect{typ: t, known: true}
	}
	return goExpect{}
}

// literalType is the default type of the literal expr starts with.
func literalType(expr string) (goType, bool) {
	if expr == "true" || expr == "false" || strings.HasPrefix(expr, "true ") || strings.HasPrefix(expr, "false ") {
		return goType{name: "bool"}, true
	}
	kind := literalKind(expr)
	if kind == "" || isIdent(expr[0]) {
		return goType{}, false
	}
	return goType{name: map[string]string{"float": "float64", "rune": "rune"}[kind] + map[string]string{"int": "int", "string": "string"}[kind]}, true
}

func skipSpaceBack(text []byte, i int) int {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i
}

func skipSpace(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// skipCall steps over the arguments of a call right after i.
func skipCall(text []byte, i int) int {
	if i < len(text) && text[i] == '(' {
		return min(closeOf(string(text[i:min(len(text), i+4096)]), 0)+i+1, len(text))
	}
	return i
}

// wordBefore is the identifier ending at i, after any blanks.
func wordBefore(text []byte, i int) string {
	i = skipSpaceBack(text, i)
	s := i
	for s > 0 && isIdent(text[s-1]) {
		s--
	}
	return string(text[s:i])
}

// argumentCount counts the arguments of the call whose '(' is at open.
func argumentCount(text []byte, open int) int {
	n, depth, empty := 1, 0, true
	for i := open + 1; i < len(text) && i < open+8192; i++ {
		switch b := text[i]; b {
		case '"', '`', '\'':
			i = quoteEnd(text, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if empty {
					return 0
				}
				return n
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
		if text[i] != ' ' && text[i] != '\n' && text[i] != '\t' {
			empty = false
		}
	}
	return n
}

// quoteStart is where the string or rune literal ending at the quote at i
// begins (i itself when it is unbalanced on its line).
func quoteStart(text []byte, i int) int {
	q := text[i]
	for k := i - 1; k >= 0 && (q == '`' || text[k] != '\n'); k-- {
		if text[k] == q && (q == '`' || k == 0 || text[k-1] != '\\') {
			return k
		}
	}
	return i
}

// quoteEnd is where the literal opened by the quote at i ends.
func quoteEnd(text []byte, i int) int {
	q := text[i]
	for k := i + 1; k < len(text) && (q == '`' || text[k] != '\n'); k++ {
		if text[k] == '\\' && q != '`' {
			k++
			continue
		}
		if text[k] == q {
			return k
		}
	}
	return i
}

// wordAfter is the identifier starting at i.
func wordAfter(text []byte, i int) string {
	e := i
	for e < len(text) && isIdent(text[e]) {
		e++
	}
	return string(text[i:e])
}
