package resolve

import (
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript callbacks typed from their context: in `xs.map(x => x.id)`
// x is what the parameter of map's declared callback type says, with the
// type parameters of xs's type (Array<T>) replaced by xs's type arguments.
// The extractor marks such a parameter's Value "=>callee#arg#param", or
// "=>:T#-1#param" for a function written where one of type T is expected
// (a typed variable's value, or what a function of known result returns).

// contextType is a written type and where it is to be resolved.
type contextType struct {
	file  *analysis.FileFacts
	text  string
	scope int32
	at    analysis.Span
}

// callbackContext splits a parameter's Value "=>callee#arg#param".
func callbackContext(v string) (callee string, arg, param int, ok bool) {
	callee, arg, param, _, _, ok = callbackSite(v)
	return callee, arg, param, ok
}

// callbackSite splits a parameter's Value "=>callee#arg#param", whose arg
// and param may go on into their types: "1/hooks/afterResponse/[]" is the
// element of the member afterResponse of the member hooks of argument 1's
// type; "0/response" the member response of parameter 0's type (a name
// of a destructured parameter).
func callbackSite(v string) (callee string, arg, param int, argPath, paramPath []string, ok bool) {
	rest, ok := strings.CutPrefix(v, "=>")
	if !ok {
		return "", 0, 0, nil, nil, false
	}
	parts := strings.Split(rest, "#")
	if len(parts) < 3 {
		return "", 0, 0, nil, nil, false
	}
	n := len(parts)
	argPath, paramPath = strings.Split(parts[n-2], "/"), strings.Split(parts[n-1], "/")
	a, err1 := strconv.Atoi(argPath[0])
	p, err2 := strconv.Atoi(paramPath[0])
	callee = strings.Join(parts[:n-2], "#")
	return callee, a, p, argPath[1:], paramPath[1:], err1 == nil && err2 == nil && callee != ""
}

// isCallbackParam reports whether d is a parameter typed from its context.
func isCallbackParam(g *analysis.FileFacts, d analysis.Def) bool {
	return ecmaLang(g.Lang) && d.Kind == analysis.KindParameter && strings.HasPrefix(d.Value, "=>")
}

// callbackParamTypes are the type definitions of callback parameter d.
func (r *Resolver) callbackParamTypes(g *analysis.FileFacts, d analysis.Def, depth int) []Candidate {
	var out []Candidate
	for _, t := range r.contextTypes(g, d, depth) {
		out = append(out, r.typesNamed(t.file, t.text, t.scope, t.at, depth+1)...)
	}
	return out
}

// contextTypes are the written types callback parameter d of f takes from
// the function it is passed to.
func (r *Resolver) contextTypes(f *analysis.FileFacts, d analysis.Def, depth int) []contextType {
	callee, arg, param, argPath, paramPath, ok := callbackSite(d.Value)
	if !ok || r.tooDeep(f.Lang, depth) {
		return nil
	}
	out := r.paramContextTypes(f, d, callee, arg, param, argPath, depth)
	if len(paramPath) == 0 {
		return out
	}
	// A name of a destructured parameter: its key's member of the type.
	kept := out[:0]
	for _, ct := range out {
		if t, ok := tsIndexedAlong(ct.text, paramPath); ok {
			ct.text = t
			kept = append(kept, ct)
		}
	}
	return kept
}

// paramContextTypes are the written types of parameter param of a function
// passed as argument arg of callee (or, with callee ":T", written where T
// is expected), argPath inside that argument.
func (r *Resolver) paramContextTypes(f *analysis.FileFacts, d analysis.Def, callee string, arg, param int, argPath []string, depth int) []contextType {
	if written, ok := strings.CutPrefix(callee, ":"); ok {
		// The function is written where a function of type written is
		// expected (ecma's contextual): its parameter param is that type's.
		ct, ok := r.typeAlong(contextType{f, written, d.Scope, d.NameSpan}, argPath, depth)
		if ok {
			ct, ok = r.callbackParam(ct, param, depth)
		}
		if !ok || ct.text == "" || ct.text == "any" || ct.text == "unknown" {
			return nil
		}
		return []contextType{ct}
	}
	cref := valueRef(d)
	cref.Role = analysis.RoleCall
	cref.Qualifier, cref.Name = splitQualifier(callee)
	var receiverArgs []string
	receiverRead := false
	var out []contextType
	for _, c := range best(r.resolve(f, cref, depth+1)) {
		if c.Confidence < r.threshold {
			continue
		}
		g, fd, ok := r.entry(c.Def)
		if !ok || fd.Kind.IsType() {
			continue
		}
		pt := paramTypeAt(fd, arg)
		pg, pscope, pat := g, fd.Scope, fd.NameSpan
		if pt == "" && fd.TypeName != "" && fd.Kind != analysis.KindFunction && fd.Kind != analysis.KindMethod {
			// A constant of a type with a call signature: ava's `test`,
			// express's `app.get`.
			for _, sig := range r.callSignatures(g, fd, depth) {
				if pt = paramTypeAt(analysis.Def{Kind: analysis.KindVariable, TypeName: sig.text}, arg); pt != "" {
					pg, pscope, pat = sig.file, sig.scope, sig.at
					break
				}
			}
		}
		if pt == "" {
			continue
		}
		ct, ok := r.typeAlong(contextType{pg, pt, pscope, pat}, argPath, depth)
		if ok {
			ct, ok = r.callbackParam(ct, param, depth)
		}
		t := ct.text
		if !ok || t == "" || t == "any" || t == "unknown" {
			continue
		}
		if ct.file != g || ct.scope != fd.Scope {
			out = append(out, ct) // read through a type alias, where it is declared
			continue
		}
		// The receiver's type arguments stand for the type parameters of
		// the type declaring the callee: T of Array<T> in xs.map.
		names := ownerTypeParams(g, fd.Container)
		if len(names) > 0 && cref.Qualifier != "" {
			if !receiverRead {
				receiverRead = true
				qref := cref
				qref.Role, qref.Qualifier, qref.Name = analysis.RoleRead, cref.Qualifier, ""
				for _, w := range r.writtenTypes(f, qref, depth+1) {
					if a := tsTypeArgs(w); len(a) > 0 {
						receiverArgs = a
						break
					}
				}
				if len(receiverArgs) == 0 && fd.Container != analysis.None {
					receiverArgs = r.supertypeArgs(f, qref, g.Defs[fd.Container].Name, depth+1)
				}
			}
			if s, ok := substituteWords(t, names, receiverArgs); ok {
				out = append(out, contextType{f, s, d.Scope, d.NameSpan})
				continue
			}
			if mentionsAny(t, names) {
				continue // T unknown: not the type parameter's declaration
			}
		}
		if mentionsAny(t, ownerTypeParams(g, c.Def.Index)) {
			continue // the callee's own type parameter, inferred from elsewhere
		}
		out = append(out, contextType{g, t, fd.Scope, fd.NameSpan})
	}
	return out
}

// callSignatures are the call signatures of the types def d's declared
// type names, an object type alias or an interface (each part of an
// intersection): `type TestFn = { (title: string): void }`.
func (r *Resolver) callSignatures(g *analysis.FileFacts, d analysis.Def, depth int) []contextType {
	var out []contextType
	for _, part := range tsSplit(d.TypeName, '&') {
		part = strings.TrimSpace(part)
		for strings.HasPrefix(part, "(") && tsClosing(part, 0) == len(part)-1 {
			part = strings.TrimSpace(part[1 : len(part)-1])
		}
		if (strings.HasPrefix(part, "(") || strings.HasPrefix(part, "<")) && calledType(g.Lang, part) != part {
			out = append(out, contextType{g, part, d.Scope, d.NameSpan}) // a function type
			continue
		}
		for _, c := range best(r.typesNamed(g, part, d.Scope, d.NameSpan, depth+1)) {
			ag, ad, ok := r.entry(c.Def)
			if !ok || c.Confidence < r.threshold {
				continue
			}
			if sig := callSignatureOf(ad); sig != "" {
				out = append(out, contextType{ag, sig, ad.Scope, ad.NameSpan})
			}
		}
	}
	return out
}

// callbackParam is the type of parameter param of the function type t,
// read through type aliases (ava's Implementation) and unions whose
// function types agree on it.
func (r *Resolver) callbackParam(t contextType, param, depth int) (contextType, bool) {
	return r.callbackParamIn(t, param, depth, 4)
}

func (r *Resolver) callbackParamIn(t contextType, param, depth, hops int) (contextType, bool) {
	if s, ok := functionParamType(t.text, param); ok {
		t.text = s
		return t, true
	}
	if hops == 0 || r.tooDeep(t.file.Lang, depth) {
		return t, false
	}
	parts := tsSplit(t.text, '|')
	if len(parts) > 1 {
		// A union of aliases: the first that is a function type.
		for _, part := range parts {
			u := t
			u.text = strings.TrimSpace(part)
			if out, ok := r.callbackParamIn(u, param, depth+1, hops-1); ok {
				return out, true
			}
		}
		return t, false
	}
	for _, c := range best(r.typesNamed(t.file, t.text, t.scope, t.at, depth+1)) {
		g, d, ok := r.entry(c.Def)
		if sig := callSignatureOf(d); ok && c.Confidence >= r.threshold && sig != "" && d.Kind == analysis.KindInterface {
			// A handler interface: express's RequestHandler.
			return r.callbackParamIn(contextType{g, sig, d.Scope, d.NameSpan}, param, depth+1, hops-1)
		}
		if ok && c.Confidence >= r.threshold && d.Kind == analysis.KindTypeAlias && d.TypeName != "" {
			return r.callbackParamIn(contextType{g, d.TypeName, d.Scope, d.NameSpan}, param, depth+1, hops-1)
		}
	}
	return t, false
}

// functionParamType is the type of parameter param of the function types
// in t, which must all agree on it; members of a union that are no
// function type (undefined, a Macro object) are left out.
func functionParamType(t string, param int) (string, bool) {
	found := ""
	for _, part := range tsSplit(t, '|') {
		part = strings.TrimSpace(part)
		for strings.HasPrefix(part, "(") && tsClosing(part, 0) == len(part)-1 {
			part = strings.TrimSpace(part[1 : len(part)-1])
		}
		if !strings.HasPrefix(part, "(") && !strings.HasPrefix(part, "<") || calledType("typescript", part) == part {
			continue
		}
		params := declaredParamTypes(analysis.Def{Kind: analysis.KindVariable, TypeName: part})
		if param >= len(params) || params[param] == "" || found != "" && params[param] != found {
			return "", false
		}
		found = params[param]
	}
	return found, found != ""
}

// declaredParamTypes are the written types of the parameters of a
// function or method (from its signature) or of a variable or property of
// function type; "" for a parameter without a type.
func declaredParamTypes(d analysis.Def) []string {
	s := d.Signature
	if d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
		s = d.TypeName
	}
	open := paramListStart(s)
	if open < 0 {
		return nil
	}
	end := tsClosing(s, open)
	if end < 0 {
		return nil
	}
	var out []string
	for _, p := range tsSplit(s[open+1:end], ',') {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "this:") || strings.HasPrefix(p, "this :") {
			continue
		}
		colon := tsTopLevel(p, ':')
		if colon < 0 || strings.HasPrefix(p, "...") {
			out = append(out, "")
			continue
		}
		out = append(out, strings.TrimSpace(p[colon+1:]))
	}
	return out
}

// tsThisParam is the type a TypeScript function declares for `this` with
// a first parameter `this: T` (zod's `get(this: ZodError)`), or "".
func tsThisParam(lang string, d analysis.Def) string {
	if !ecmaLang(lang) {
		return ""
	}
	list, ok := tsParamList(d)
	if !ok {
		return ""
	}
	first := strings.TrimSpace(tsSplit(list, ',')[0])
	if rest, ok := strings.CutPrefix(first, "this"); ok {
		if t, ok := strings.CutPrefix(strings.TrimSpace(rest), ":"); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// paramListStart is the index of the '(' opening a signature's parameters,
// past the name and any type parameters; -1 if there is none.
func paramListStart(s string) int {
	angle := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			angle++
		case '>':
			if i > 0 && s[i-1] == '=' {
				continue
			}
			angle--
		case '(':
			if angle == 0 {
				return i
			}
			if end := tsClosing(s, i); end > i {
				i = end
			}
		}
	}
	return -1
}

// tsClosing is the index of the bracket closing the one at open, reading
// TypeScript's `=>` as no bracket; -1 if it is not closed.
func tsClosing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i > 0 && s[i-1] == '=' {
				continue
			}
			depth--
		}
		if depth == 0 {
			return i
		}
	}
	return -1
}

// tsTopLevel is the index of sep outside brackets, or -1.
func tsTopLevel(s string, sep byte) int { return tsTopLevelWord(s, string(sep)) }

// tsSplit splits s at the separators outside brackets.
func tsSplit(s string, sep byte) []string {
	var out []string
	for {
		i := tsTopLevel(s, sep)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
}

// tsTypeArgs are the type arguments of a written type: ["Foo"] for
// "Foo[]", "readonly Foo[]" and "Array<Foo>"; none without arguments.
func tsTypeArgs(t string) []string {
	t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "readonly "))
	if tsTopLevel(t, '|') >= 0 {
		var kept []string
		for _, part := range tsSplit(t, '|') {
			if part = strings.TrimSpace(part); part != "" && part != "undefined" && part != "null" {
				kept = append(kept, part)
			}
		}
		if len(kept) != 1 {
			return nil
		}
		t = strings.TrimPrefix(kept[0], "readonly ")
	}
	if elem, ok := strings.CutSuffix(t, "[]"); ok {
		return []string{strings.TrimSpace(elem)}
	}
	open := strings.IndexByte(t, '<')
	if open <= 0 || tsClosing(t, open) != len(t)-1 {
		return nil
	}
	var out []string
	for _, a := range tsSplit(t[open+1:len(t)-1], ',') {
		out = append(out, strings.TrimSpace(a))
	}
	return out
}

// ownerTypeParams are the names of the type parameters def i of g
// declares, in order: those defined right after it and contained by it.
func ownerTypeParams(g *analysis.FileFacts, i int32) []string {
	var out []string
	for _, j := range declaredTypeParams(g, i) {
		out = append(out, g.Defs[j].Name)
	}
	return out
}

// substituteWords replaces in t each whole word names[k] by args[k]; false
// when t mentions none of them, or one without an argument.
func substituteWords(t string, names, args []string) (string, bool) {
	var b strings.Builder
	replaced := false
	for i := 0; i < len(t); {
		if !isWordByte(t[i]) {
			b.WriteByte(t[i])
			i++
			continue
		}
		j := i
		for j < len(t) && isWordByte(t[j]) {
			j++
		}
		word := t[i:j]
		k := indexOf(names, word)
		switch {
		case k < 0 || i > 0 && t[i-1] == '.':
			b.WriteString(word)
		case k >= len(args) || args[k] == "":
			return "", false
		default:
			b.WriteString(args[k])
			replaced = true
		}
		i = j
	}
	return b.String(), replaced
}

// mentionsAny reports whether t mentions one of names as a whole word.
func mentionsAny(t string, names []string) bool {
	for i := 0; i < len(t); {
		j := i
		for j < len(t) && isWordByte(t[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		if indexOf(names, t[i:j]) >= 0 && (i == 0 || t[i-1] != '.') {
			return true
		}
		i = j
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func indexOf(xs []string, x string) int {
	for i, s := range xs {
		if s == x {
			return i
		}
	}
	return -1
}
