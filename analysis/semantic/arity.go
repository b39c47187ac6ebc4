package semantic

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// arity reports a call that no definition it surely resolves to can take:
// too many or too few arguments, or a name no parameter has. Any overload
// that fits, or any candidate whose parameters are unknown, silences it.
func (c *checker) arity(i int32, ref analysis.Ref) {
	call, ok := c.callOf(ref) // the cheaper test first
	if !ok {
		return
	}
	cands := c.resolved(i)
	if len(cands) == 0 {
		return
	}
	if c.f.Lang == "kotlin" || c.f.Lang == "java" {
		if cls, ok := c.constructedClass(cands); ok {
			c.constructorArity(ref, cls, call)
			return
		}
	}
	var want string
	for _, cand := range cands {
		g, d, ok := c.def(cand.Def)
		if !ok || g.Lang != c.f.Lang || !c.judgeable(ref, g, d) {
			return
		}
		fits, known := c.fits(g, d, ref, call)
		if !known || fits {
			return
		}
		if want == "" {
			want = d.Signature
		}
	}
	if c.f.Lang == "kotlin" || c.f.Lang == "java" {
		// Another overload of the name anywhere (inherited, an expect's
		// actual) that fits: resolution may have missed it.
		for _, e := range c.ws.DefsNamed(ref.Name) {
			g, d, ok := c.def(e.DefID)
			if !ok || g.Lang != c.f.Lang {
				continue
			}
			if fits, known := c.fits(g, d, ref, call); fits || !known {
				return
			}
		}
	}
	c.report(ref.Span, Error, CodeWrongArity, fmt.Sprintf("wrong number of arguments in call to %s: %s; declared %s",
		ref.Name, call.describe(), want))
}

// constructedClass returns the class a Kotlin or Java call constructs
// when every sure candidate is that class or one of its constructors.
func (c *checker) constructedClass(cands []resolve.Candidate) (resolve.DefID, bool) {
	var cls resolve.DefID
	found := false
	for _, cand := range cands {
		g, d, ok := c.def(cand.Def)
		if !ok {
			return cls, false
		}
		id := cand.Def
		switch {
		case d.Kind == analysis.KindConstructor && d.Container != analysis.None:
			id = resolve.DefID{Path: g.Path, Index: d.Container}
		case d.Kind != analysis.KindClass:
			return cls, false
		}
		if found && id != cls {
			return cls, false
		}
		cls, found = id, true
	}
	return cls, found
}

// constructorArity reports a call of a class that none of its constructors
// takes. Classes whose construction kast cannot see whole are left alone:
// annotation, enum, expect, abstract and record classes, a companion's
// invoke operator, a factory function of the class's name.
func (c *checker) constructorArity(ref analysis.Ref, cls resolve.DefID, a call) {
	g, d, ok := c.def(cls)
	if !ok {
		return
	}
	for _, word := range []string{"annotation", "enum", "expect", "abstract", "record", "sealed", "inner", "@"} {
		if strings.Contains(d.Signature, word) {
			return
		}
	}
	var ctors []analysis.Def
	for i, m := range g.Defs {
		switch {
		case m.Container == cls.Index && m.Kind == analysis.KindConstructor:
			ctors = append(ctors, m)
		case m.Name == "invoke" && m.Container != analysis.None && g.Defs[m.Container].Kind == analysis.KindObject:
			return // a companion's invoke may take the call
		case m.Container == cls.Index && m.Kind == analysis.KindObject && i >= 0:
			// a companion: its invoke is looked for above
		}
	}
	for _, e := range c.ws.DefsNamed(d.Name) {
		if e.Kind == analysis.KindFunction || e.Kind == analysis.KindTypeAlias {
			return // fun Foo(…) beside class Foo: the call may be either
		}
	}
	if len(ctors) == 0 {
		if strings.Contains(d.Signature, "(") || a.shape == "()" {
			return // a primary constructor kast did not read, or the default one called right
		}
		c.report(ref.Span, Error, CodeWrongArity, fmt.Sprintf("wrong number of arguments to construct %s: %s; it has only the default constructor, which takes none", d.Name, a.describe()))
		return
	}
	for _, ctor := range ctors {
		if strings.Contains(ctor.Signature, "@") || commented(ctor.Signature) {
			return // an annotation's or a comment's parentheses may read as the parameters
		}
		if fits, known := resolve.ArgsFit(g.Lang, ctor, a.shape); fits || !known {
			return
		}
	}
	c.report(ref.Span, Error, CodeWrongArity, fmt.Sprintf("wrong number of arguments to construct %s: %s; declared %s%s",
		d.Name, a.describe(), d.Name, strings.TrimPrefix(ctors[0].Signature, "constructor")))
}

// call is a call's arguments as the checks see them.
type call struct {
	args     []string // the texts (Go, Python, TypeScript)
	shape    string   // analysis.Ref.Args (Kotlin, Java)
	keywords []string // Python's keyword arguments
	spread   bool     // a spread or splat fills an unknown number
}

func (a call) describe() string {
	if a.shape != "" {
		n := strings.Count(a.shape, ",") + 1
		if a.shape == "()" {
			n = 0
		}
		return fmt.Sprintf("%d given", n)
	}
	if len(a.keywords) > 0 {
		return fmt.Sprintf("%d given, and %s by name", len(a.args), strings.Join(a.keywords, ", "))
	}
	return fmt.Sprintf("%d given", len(a.args))
}

func (c *checker) callOf(ref analysis.Ref) (call, bool) {
	switch c.f.Lang {
	case "kotlin", "java":
		return call{shape: ref.Args}, ref.Args != ""
	}
	args, ok := callArgs(c.src, ref.Span.End, c.f.Lang)
	if !ok {
		return call{}, false
	}
	var a call
	for _, text := range args {
		switch c.f.Lang {
		case "go":
			a.spread = a.spread || strings.HasSuffix(text, "...")
		case "typescript":
			a.spread = a.spread || strings.HasPrefix(text, "...")
		case "python":
			if strings.HasPrefix(text, "*") {
				a.spread = true
				continue
			}
			if eq := strings.IndexByte(text, '='); eq > 0 && isIdentifier(strings.TrimSpace(text[:eq])) &&
				(eq+1 >= len(text) || text[eq+1] != '=') {
				a.keywords = append(a.keywords, strings.TrimSpace(text[:eq]))
				continue
			}
		}
		a.args = append(a.args, text)
	}
	if a.spread {
		return call{}, false
	}
	return a, true
}

// judgeable reports whether a candidate is one whose parameters say what a
// call may pass: a function or method, not a value of function type, a
// class, a decorated Python function or a Kotlin extension.
func (c *checker) judgeable(ref analysis.Ref, g *analysis.FileFacts, d analysis.Def) bool {
	if d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
		return false
	}
	switch g.Lang {
	case "go":
		// T.Method(recv, …) passes the receiver too.
		// A bare name never calls a method; T.Method(recv, …) passes the
		// receiver too.
		q := strings.TrimLeft(ref.Qualifier, "(*")
		return d.Kind == analysis.KindFunction || q != "" && !c.namesType(q)
	case "python":
		if c.decorated(g, d) {
			return false
		}
		if d.Kind == analysis.KindMethod || d.Container != analysis.None && g.Defs[d.Container].Kind.IsType() {
			// Called on self: self is passed for it. Other receivers'
			// types are inferred, and may be wrong.
			return ref.Qualifier == "self"
		}
		return ref.Qualifier == ""
	case "typescript":
		// A bare name never calls a method: only this.m(…) does.
		if d.Kind == analysis.KindMethod || d.Container != analysis.None && g.Defs[d.Container].Kind.IsType() {
			return ref.Qualifier == "this"
		}
	case "kotlin":
		if d.Receiver != "" {
			return false
		}
		if ref.Qualifier == "" {
			return c.closedChain(ref)
		}
		if d.Container != analysis.None {
			return c.closedType(resolve.DefID{Path: g.Path, Index: d.Container}, map[resolve.DefID]bool{}, 0)
		}
	case "java":
		if ref.Qualifier == "" {
			return c.closedChain(ref)
		}
		if d.Container != analysis.None {
			return c.closedType(resolve.DefID{Path: g.Path, Index: d.Container}, map[resolve.DefID]bool{}, 0)
		}
	}
	return true
}

// namesType reports whether a qualifier is the name of a type.
func (c *checker) namesType(q string) bool {
	if q == "" || !isIdentifier(q) {
		return q != ""
	}
	for _, e := range c.ws.DefsNamed(q) {
		if e.Kind.IsType() {
			return true
		}
	}
	return false
}

// fits reports whether the call can pass its arguments to d, and whether
// d's parameters are known.
func (c *checker) fits(g *analysis.FileFacts, d analysis.Def, ref analysis.Ref, a call) (fits, known bool) {
	if commented(d.Signature) {
		return false, false // a comment among the parameters hides their count
	}
	switch g.Lang {
	case "kotlin", "java":
		return resolve.ArgsFit(g.Lang, d, a.shape)
	}
	params, ok := paramList(d, g.Lang)
	if !ok {
		return false, false
	}
	switch g.Lang {
	case "go":
		return goFits(params, a.args), true
	case "typescript":
		return tsFits(params, a.args), true
	case "python":
		if d.Kind == analysis.KindMethod || d.Container != analysis.None && g.Defs[d.Container].Kind.IsType() {
			if len(params) == 0 {
				return false, false
			}
			params = params[1:]
		}
		return pyFits(params, a), true
	}
	return false, false
}

func commented(sig string) bool {
	return strings.Contains(sig, "/*") || strings.Contains(sig, "//") || pythonComment(sig)
}

// pythonComment reports a Python comment inside a signature's parameters.
func pythonComment(sig string) bool {
	return strings.HasPrefix(sig, "def ") && strings.Contains(sig, "#")
}

// paramList cuts the parameter list out of a Go, Python or TypeScript
// signature and splits it.
func paramList(d analysis.Def, lang string) ([]string, bool) {
	sig := d.Signature
	if sig == "" || strings.HasSuffix(sig, "…") || strings.HasSuffix(sig, "...") {
		return nil, false
	}
	from := 0
	if lang == "go" && strings.HasPrefix(sig, "func (") {
		end := matchingBracket([]byte(sig), len("func "), '(', ')', lang)
		if end < 0 {
			return nil, false
		}
		from = end + 1
	}
	if at := strings.Index(sig[from:], d.Name); at >= 0 {
		from += at + len(d.Name)
	} else if lang != "typescript" {
		return nil, false
	}
	b := []byte(sig)
	open := strings.IndexByte(sig[from:], '(')
	if open < 0 {
		return nil, false
	}
	open += from
	if lang == "go" || lang == "typescript" {
		// Type parameters may come first: f[T any](…), f<T>(…).
		if between := strings.TrimSpace(sig[from:open]); between != "" && !strings.HasPrefix(between, "[") &&
			!strings.HasPrefix(between, "<") && !strings.HasPrefix(between, "=") && !strings.HasPrefix(between, ":") {
			return nil, false
		}
	}
	end := matchingBracket(b, open, '(', ')', lang)
	if end < 0 {
		return nil, false
	}
	return splitParams(sig[open+1 : end]), true
}

// splitParams splits a parameter list at its top-level commas, where type
// arguments (Record<string, unknown>) nest too; an arrow's '>' closes
// nothing.
func splitParams(list string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		if k := skipLiteral([]byte(list), i, "typescript"); k > i {
			i = k - 1
			continue
		}
		switch list[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i == 0 || list[i-1] != '=' {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(list[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

func goFits(params, args []string) bool {
	if len(params) > 0 && strings.Contains(params[len(params)-1], "...") {
		return len(args) >= len(params)-1
	}
	if len(args) == 1 && len(params) != 1 && strings.HasSuffix(args[0], ")") {
		return true // f(g()) passes all of g's results
	}
	return len(args) == len(params)
}

func tsFits(params, args []string) bool {
	required, max := 0, 0
	for _, p := range params {
		p = strings.TrimSpace(p)
		name := p
		if i := strings.IndexAny(p, ":="); i >= 0 {
			name = strings.TrimSpace(p[:i])
		}
		switch {
		case name == "this":
			continue
		case strings.HasPrefix(p, "..."):
			return len(args) >= required
		case strings.HasSuffix(name, "?") || strings.Contains(p, "="):
			max++
		default:
			max++
			required = max
		}
	}
	return len(args) >= required && len(args) <= max
}

func pyFits(params []string, a call) bool {
	var positional, keywordOnly []string // names; a trailing "=" marks a default
	varargs, varkw, kwOnly := false, false, false
	named := map[string]bool{}
	for _, p := range params {
		p = strings.TrimSpace(p)
		if colon := topLevel(p, ':'); colon >= 0 {
			if eq := topLevel(p, '='); eq > colon {
				p = p[:colon] + "=" + p[eq+1:]
			} else {
				p = p[:colon]
			}
		}
		name, _, hasDefault := strings.Cut(p, "=")
		name = strings.TrimSpace(name)
		switch {
		case name == "/":
			for _, n := range positional { // positional-only: not by keyword
				delete(named, strings.TrimSuffix(n, "="))
			}
			continue
		case name == "*":
			kwOnly = true
			continue
		case strings.HasPrefix(name, "**"):
			varkw = true
			continue
		case strings.HasPrefix(name, "*"):
			varargs, kwOnly = true, true
			continue
		}
		entry := name
		if hasDefault {
			entry += "="
		}
		named[name] = true
		if kwOnly {
			keywordOnly = append(keywordOnly, entry)
		} else {
			positional = append(positional, entry)
		}
	}
	if len(a.args) > len(positional) && !varargs {
		return false
	}
	given := map[string]bool{}
	for _, k := range a.keywords {
		if !named[k] && !varkw || given[k] {
			return false
		}
		given[k] = true
	}
	for i, p := range positional {
		name := strings.TrimSuffix(p, "=")
		if i < len(a.args) {
			if given[name] {
				return false // passed twice
			}
			continue
		}
		if !strings.HasSuffix(p, "=") && !given[name] {
			return false
		}
	}
	for _, p := range keywordOnly {
		if !strings.HasSuffix(p, "=") && !given[strings.TrimSuffix(p, "=")] {
			return false
		}
	}
	return true
}

// topLevel is the index of the first b outside brackets and strings, or -1.
func topLevel(s string, b byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
			}
		default:
			if s[i] == b && depth == 0 {
				return i
			}
		}
	}
	return -1
}

// decorated reports whether a Python definition has decorators, which may
// change what it takes: its text, or the line above it, starts with '@'.
func (c *checker) decorated(g *analysis.FileFacts, d analysis.Def) bool {
	src := c.textOf(g.Path)
	start := d.FullSpan.Start
	if src == nil || start > len(src) {
		return true // unknown: as good as decorated
	}
	if start < len(src) && src[start] == '@' {
		return true
	}
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	for end := lineStart - 1; end > 0; {
		prev := bytes.LastIndexByte(src[:end], '\n') + 1
		line := bytes.TrimSpace(src[prev:end])
		if len(line) == 0 {
			return false // decorators sit right above their def
		}
		if line[0] != '#' {
			// A line ending a bracket may close a decorator's arguments.
			return line[0] == '@' || bytes.HasSuffix(line, []byte(")")) || bytes.HasSuffix(line, []byte(","))
		}
		end = prev - 1
	}
	return false
}

// textOf is a file's text: the checked file's own, or another's read once.
func (c *checker) textOf(path string) []byte {
	if path == c.f.Path {
		return c.src
	}
	if t, ok := c.texts[path]; ok {
		return t
	}
	t, err := os.ReadFile(path)
	if err != nil {
		t = nil
	}
	if c.texts == nil {
		c.texts = map[string][]byte{}
	}
	c.texts[path] = t
	return t
}
