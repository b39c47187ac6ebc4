package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Handlers passed to an interface with call signatures, as express
// declares its routers: `app.get(path, (req, res) => …)` calls a property
// of type IRouterMatcher<this>, whose call signature takes
// `...handlers: Array<RequestHandler>`, itself an interface whose call
// signature types req and res. Extraction records an interface's call
// signatures as its TypeName, "{ (a: A): R; … }".

// paramTypeAt is the written type of the parameter that argument arg of a
// call of d binds: a rest parameter's element type for the arguments from
// its position on.
func paramTypeAt(d analysis.Def, arg int) string {
	params := declaredParamTypes(d)
	if arg < len(params) && params[arg] != "" {
		return params[arg]
	}
	list, ok := tsParamList(d)
	if !ok {
		return ""
	}
	i := 0
	for _, p := range tsSplit(list, ',') {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "this:") || strings.HasPrefix(p, "this :") {
			continue
		}
		if rest, ok := strings.CutPrefix(p, "..."); ok && arg >= i {
			if colon := tsTopLevel(rest, ':'); colon >= 0 {
				return elementType(strings.TrimSpace(rest[colon+1:]))
			}
			return ""
		}
		i++
	}
	return ""
}

// tsParamList is the text between the parentheses of the parameters a
// function declares, or a function-typed value's written type has; false
// when there are none.
func tsParamList(d analysis.Def) (string, bool) {
	s := d.Signature
	if d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod {
		s = d.TypeName
	}
	open := paramListStart(s)
	if open < 0 {
		return "", false
	}
	end := tsClosing(s, open)
	if end < 0 {
		return "", false
	}
	return s[open+1 : end], true
}

// elementType is the element type of a written array type: T of T[],
// Array<T>, readonly T[], ReadonlyArray<T>; "" for any other.
func elementType(t string) string {
	t = strings.TrimSpace(strings.TrimPrefix(t, "readonly "))
	if e, ok := strings.CutSuffix(t, "[]"); ok {
		return strings.TrimSpace(e)
	}
	for _, g := range []string{"Array<", "ReadonlyArray<"} {
		if strings.HasPrefix(t, g) && strings.HasSuffix(t, ">") {
			return strings.TrimSpace(t[len(g) : len(t)-1])
		}
	}
	return ""
}

// callSignatureOf is the first call signature of an object type alias or
// an interface with call signatures, or the function type a type alias
// names; "" for any other.
func callSignatureOf(d analysis.Def) string {
	if d.Kind != analysis.KindTypeAlias && d.Kind != analysis.KindInterface {
		return ""
	}
	body := strings.TrimSpace(d.TypeName)
	if _, ok := analysis.FunctionTypeResult(body); ok && d.Kind == analysis.KindTypeAlias {
		return body // an alias of a function type (zod's `$SafeParse`)
	}
	if !strings.HasPrefix(body, "{") || tsClosing(body, 0) != len(body)-1 {
		return ""
	}
	for _, m := range tsSplit(strings.ReplaceAll(body[1:len(body)-1], "\n", ";"), ';') {
		if m = strings.TrimSpace(m); strings.HasPrefix(m, "(") || strings.HasPrefix(m, "<") {
			// `(a: A): R` as the function type `(a: A) => R`.
			if open := paramListStart(m); open >= 0 {
				if end := tsClosing(m, open); end > 0 {
					if rest, ok := strings.CutPrefix(strings.TrimSpace(m[end+1:]), ":"); ok {
						return m[:end+1] + " => " + strings.TrimSpace(rest)
					}
				}
			}
			return m
		}
	}
	return ""
}

// calledValueTypes are the types a call of TypeScript value d gives when
// d's declared type is an interface or object type with a call signature
// (vitest's `expect: ExpectStatic`, debug's `Debug`): its result; ok is
// false for any other d.
func (r *Resolver) calledValueTypes(g *analysis.FileFacts, d analysis.Def, depth int) ([]Candidate, bool) {
	typedFunction := d.Kind == analysis.KindFunction && tsTypedFunctionVariable(d)
	switch {
	case !ecmaLang(g.Lang), d.Kind.IsType(), d.Kind == analysis.KindFunction && !typedFunction, d.Kind == analysis.KindMethod,
		d.Kind == analysis.KindConstructor, r.tooDeep(g.Lang, depth+1):
		return nil, false
	case typedFunction && calledType(g.Lang, d.TypeName) != d.TypeName:
		// `const f: (v: unknown) => Result = …`
		return r.typesNamed(g, calledType(g.Lang, d.TypeName), d.Scope, d.NameSpan, depth+1), true
	case d.TypeName == "" && d.Value != "" && !strings.HasPrefix(d.Value, "=>"):
		// `const ky = createInstance()`: the type its value has.
		if out, ok := r.boundFunctionResults(g, d, depth); ok {
			return out, true
		}
		vref := valueRef(d)
		vref.Qualifier = d.Value
		for _, t := range r.writtenTypes(g, vref, depth+1) {
			if res := calledType(g.Lang, t); res != t {
				// Bound to a function-valued member (zod's `const
				// stringType = ZodString.create`): what that returns.
				if out := r.typesNamed(g, res, d.Scope, d.NameSpan, depth+1); len(out) > 0 {
					return out, true
				}
				continue
			}
			typed := d
			typed.TypeName, typed.Value = t, ""
			if out, ok := r.calledValueTypes(g, typed, depth+1); ok {
				return out, true
			}
		}
		return nil, false
	case d.TypeName == "" || calledType(g.Lang, d.TypeName) != d.TypeName:
		return nil, false
	}
	for _, sig := range r.callSignatures(g, d, depth) {
		if res := calledType(g.Lang, sig.text); res != sig.text {
			if out := r.typesNamed(sig.file, res, sig.scope, sig.at, depth+1); len(out) > 0 {
				return out, true
			}
		}
	}
	return nil, false
}

// tsTypedFunctionVariable reports whether function d is a variable bound
// to a function without a written result whose own written type d's type
// is (zod's `const safeParse: $SafeParse = (schema, value) => …`): a call
// of it gives what that type returns, not the type itself.
func tsTypedFunctionVariable(d analysis.Def) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(d.Signature), d.Name)
	if !ok || d.TypeName == "" {
		return false
	}
	annotation, ok := strings.CutPrefix(strings.TrimSpace(rest), ":")
	if !ok {
		return false
	}
	if eq := tsTopLevelWord(annotation, " = "); eq >= 0 {
		annotation = annotation[:eq]
	}
	return strings.Join(strings.Fields(annotation), " ") == strings.Join(strings.Fields(d.TypeName), " ")
}

// boundFunctionResults are the types a constant bound to a function or a
// method returns when called: zod v3's `const recordType =
// ZodRecord.create`, a static method with overloads, returns a ZodRecord.
// ok is false when the value binds to no function.
func (r *Resolver) boundFunctionResults(g *analysis.FileFacts, d analysis.Def, depth int) ([]Candidate, bool) {
	if !isName(d.Value) && !isChain(g.Lang, d.Value) {
		return nil, false
	}
	ref := valueRef(d)
	ref.Qualifier, ref.Name = splitQualifier(d.Value)
	var out []Candidate
	for _, c := range best(r.resolve(g, ref, depth+1)) {
		h, fd, ok := r.entry(c.Def)
		if !ok || fd.Kind != analysis.KindFunction && fd.Kind != analysis.KindMethod || fd.TypeName == "" || c.Confidence < r.threshold {
			continue
		}
		for _, t := range r.typesNamed(h, calledType(h.Lang, fd.TypeName), fd.Scope, fd.NameSpan, depth+1) {
			t.Confidence = r.throughSure(h, c.Confidence, t.Confidence)
			out = append(out, t)
		}
	}
	return out, len(out) > 0
}
