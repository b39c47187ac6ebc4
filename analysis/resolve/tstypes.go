package resolve

import (
	"regexp"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript's types as the resolver reads them from written text: the
// primitives are the global interfaces of lib.es5.d.ts that describe their
// members (string is String), arrays are Array, and `await p` is what the
// Promise p is declared as holds.

// ecmaLang reports whether lang is TypeScript or JavaScript.
func ecmaLang(lang string) bool { return lang == "typescript" || lang == "tsx" || lang == "javascript" }

// tsPrimitives are the interfaces that declare the primitives' members.
var tsPrimitives = map[string]string{"string": "String", "number": "Number", "boolean": "Boolean",
	"bigint": "BigInt", "symbol": "Symbol"}

// tsTypeName is the declared type a written TypeScript type's members come
// from: "string" → "String", "Foo[]" → "Array", "readonly Foo[]" →
// "ReadonlyArray"; the name itself otherwise.
func tsTypeName(typeName, name string) string {
	t := strings.TrimSpace(typeName)
	if topLevelIndex(t, '|') >= 0 {
		// A union has the members its types share: kast knows them only
		// for `T | undefined` (or null).
		var kept []string
		for _, part := range splitAt(t, '|') {
			if part = strings.TrimSpace(part); part != "" && part != "undefined" && part != "null" {
				kept = append(kept, part)
			}
		}
		if len(kept) != 1 {
			return ""
		}
		t, name = kept[0], baseTypeName(kept[0])
	}
	readonly := strings.HasPrefix(t, "readonly ")
	switch {
	case strings.HasSuffix(t, "[]") && readonly:
		return "ReadonlyArray"
	case strings.HasSuffix(t, "[]"):
		return "Array"
	}
	if p, ok := tsPrimitives[name]; ok {
		return p
	}
	return name
}

// awaitedTypes are the types `await q` gives: the type argument of the
// Promise that q's declared type (a call's, its declared result) names,
// read in the file that declares it; q's own types when it is no Promise.
func (r *Resolver) awaitedTypes(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) []Candidate {
	qref := ref
	qref.Role, qref.Args = analysis.RoleRead, ""
	name := q
	if callee, ok := calleeOf(q); ok {
		qref.Role, name = analysis.RoleCall, callee
	} else if !isName(q) && !isChain(f.Lang, q) {
		return nil
	}
	qref.Qualifier, qref.Name = splitQualifier(name)
	var out []Candidate
	for _, c := range best(r.resolve(f, qref, depth+1)) {
		g, d, ok := r.entry(c.Def)
		if !ok || d.TypeName == "" || d.Kind.IsType() || c.Confidence < r.threshold {
			continue
		}
		t := d.TypeName
		if qref.Role == analysis.RoleCall {
			t = calledType(g.Lang, t)
		}
		if b := baseTypeName(t); b == "Promise" || b == "PromiseLike" {
			t = firstTypeArg(t)
		}
		for _, x := range r.typesNamed(g, t, d.Scope, d.NameSpan, depth+1) {
			x.Confidence *= c.Confidence
			out = append(out, x)
		}
	}
	if len(out) > 0 {
		return out
	}
	qref = ref
	qref.Qualifier = q
	return r.receiverTypes(f, qref, depth+1)
}

// AliasedTypes are the types a TypeScript type alias `type A = B<T>` stands
// for, whose members are A's; none for any other definition.
func (r *Resolver) AliasedTypes(t DefID) []Candidate {
	g, d, ok := r.entry(t)
	if !ok || !ecmaLang(g.Lang) || d.Kind != analysis.KindTypeAlias || d.TypeName == "" {
		return nil
	}
	if _, conditional := tsConditionalBranch(tsWritten(d.TypeName)); conditional {
		return nil // its branches are read where it is instantiated (tsaliases.go)
	}
	var out []Candidate
	for _, u := range r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, 1) {
		if u.Def != t && u.Confidence >= r.threshold {
			out = append(out, u)
		}
	}
	return out
}

// calledType is the type a call of something of written type t gives: R
// for a TypeScript function type `(a: A) => R` or `<T>(a: T) => R`, else t.
func calledType(lang, t string) string {
	if !ecmaLang(lang) {
		return t
	}
	if r, ok := analysis.FunctionTypeResult(t); ok {
		return r
	}
	return t
}

// splitAt splits s at the separators outside brackets.
func splitAt(s string, sep byte) []string {
	var out []string
	for {
		i := topLevelIndex(s, sep)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i+1:]
	}
}

// tsLiteralType is the interface declaring the members of a literal
// qualifier ("x", 'x', `x`, 1.5, [a, b]), or "".
func tsLiteralType(q string) string {
	if len(q) < 2 {
		return ""
	}
	switch first, last := q[0], q[len(q)-1]; {
	case (first == '"' || first == '\'' || first == '`') && last == first:
		return "String"
	case first == '[' && last == ']':
		return "Array"
	case first >= '0' && first <= '9' && strings.Trim(q, "0123456789._") == "":
		return "Number"
	case first == '/' && tsRegexLiteral(q):
		return "RegExp"
	}
	return ""
}

// tsRegexLiteral reports whether q is a regular expression literal,
// `/^[A-Z]/` or `/a/gu`: a body between slashes, then flags.
func tsRegexLiteral(q string) bool {
	end := strings.LastIndexByte(q, '/')
	return end > 1 && strings.Trim(q[end+1:], "dgimsuvy") == "" && !strings.HasPrefix(q, "//") && !strings.HasPrefix(q, "/*")
}

// tsMemberPreserving are the utility types whose members kast takes to be
// those of their first type argument: Partial<T> has T's members, made
// optional, and Omit<T, K> some of them.
var tsMemberPreserving = map[string]bool{"Partial": true, "Required": true, "Readonly": true,
	"NonNullable": true, "Omit": true, "Pick": true}

// tsWritten reduces a written type to the one whose members it has:
// parentheses, `| undefined` and `| null`, and the member-preserving
// utility types come off ("Partial<Options> | undefined" → "Options").
func tsWritten(t string) string {
	for range 8 {
		t = strings.TrimSpace(t)
		switch {
		case strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") && closingParen(t) == len(t)-1:
			t = t[1 : len(t)-1]
			continue
		case topLevelIndex(t, '|') >= 0:
			var kept []string
			for _, part := range splitAt(t, '|') {
				if part = strings.TrimSpace(part); part != "" && part != "undefined" && part != "null" {
					kept = append(kept, part)
				}
			}
			if len(kept) == 1 {
				t = kept[0]
				continue
			}
		}
		open := strings.IndexByte(t, '<')
		if open > 0 && strings.HasSuffix(t, ">") && tsMemberPreserving[t[:open]] {
			if args := splitAt(t[open+1:len(t)-1], ','); strings.TrimSpace(args[0]) != "" {
				t = args[0]
				continue
			}
		}
		return t
	}
	return t
}

// tsIndexed splits an indexed access type `T['k']` (or `T["k"]`) into T
// and k.
func tsIndexed(t string) (obj, key string, ok bool) {
	if !strings.HasSuffix(t, "']") && !strings.HasSuffix(t, "\"]") {
		return "", "", false
	}
	quote := t[len(t)-2]
	open := strings.LastIndexByte(t[:len(t)-2], quote)
	if open < 1 || t[open-1] != '[' || open < 2 {
		return "", "", false
	}
	obj, key = strings.TrimSpace(t[:open-1]), t[open+1:len(t)-2]
	return obj, key, obj != "" && isName(key)
}

// indexedTypes are the types of `obj['key']`: those written for the
// member key of obj's types.
func (r *Resolver) indexedTypes(f *analysis.FileFacts, obj, key string, scope int32, at analysis.Span, depth int) []Candidate {
	if r.tooDeep(f.Lang, depth+1) {
		return nil
	}
	var out []Candidate
	for _, t := range r.typesNamed(f, obj, scope, at, depth+1) {
		for _, m := range best(r.members(t.Def, key, analysis.RoleRead, t.Confidence, depth+1)) {
			g, d, ok := r.entry(m.Def)
			if !ok || d.TypeName == "" || d.Kind.IsType() {
				continue
			}
			for _, x := range r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, depth+1) {
				x.Confidence *= m.Confidence
				out = append(out, x)
			}
		}
	}
	return out
}

// tsObjectValue is the Value of a TypeScript or JavaScript variable or
// property initialized with an object literal (ecma.ObjectValue).
const tsObjectValue = "{}"

// tsMapped matches a mapped type over the keys of a type parameter,
// `{ -readonly [K in keyof T]: T[K] }`, whose members are T's.
var tsMapped = regexp.MustCompile(`^\{\s*[-+]?(?:readonly\s*)?\[\s*\w+\s+in\s+keyof\s+(\w+)\s*\]`)

// tsMappedTypes are the types whose members an instance `M<A, …>` of a
// type alias of a mapped type over its parameter's keys has: A's
// (ky's `Mutable<KyInstance>`); ok is false for any other written type.
func (r *Resolver) tsMappedTypes(f *analysis.FileFacts, typeName string, scope int32, at analysis.Span, depth int) ([]Candidate, bool) {
	args := tsTypeArgs(typeName)
	open := strings.IndexByte(typeName, '<')
	if len(args) == 0 || open <= 0 || strings.HasSuffix(typeName, "[]") || r.tooDeep(f.Lang, depth+1) {
		return nil, false
	}
	alias := r.typesNamed(f, typeName[:open], scope, at, depth+1)
	if len(alias) != 1 {
		return nil, false
	}
	g, d, ok := r.entry(alias[0].Def)
	if !ok || d.Kind != analysis.KindTypeAlias {
		return nil, false
	}
	m := tsMapped.FindStringSubmatch(strings.TrimSpace(d.TypeName))
	if m == nil {
		return nil, false
	}
	i := indexOf(ownerTypeParams(g, alias[0].Def.Index), m[1])
	if i < 0 || i >= len(args) {
		return nil, false
	}
	return r.typesNamed(f, args[i], scope, at, depth+1), true
}

// tsUnionArms are the arms of a written TypeScript union type other than
// undefined and null; one arm (the type itself) for any other type.
func tsUnionArms(t string) []string {
	t = tsWritten(t)
	if topLevelIndex(t, '|') < 0 {
		return []string{t}
	}
	var arms []string
	for _, part := range splitAt(t, '|') {
		if part = strings.TrimSpace(part); part != "" && part != "undefined" && part != "null" {
			arms = append(arms, part)
		}
	}
	return arms
}

// unionMembers finds name in every arm of the union alias d declares, in
// the arms' order, as tsserver lists a union's property: none when an arm
// lacks it, since TypeScript rejects the access then (zod's
// `ZodSafeParseSuccess<T> | ZodSafeParseError<T>` both declare success).
func (r *Resolver) unionMembers(g *analysis.FileFacts, d analysis.Def, arms []string, name string, role analysis.Role, conf float64, depth int) []Candidate {
	var out []Candidate
	for _, arm := range arms {
		var found []Candidate
		for _, u := range r.typesNamed(g, arm, d.Scope, d.NameSpan, depth+1) {
			if u.Confidence >= r.threshold {
				found = append(found, r.members(u.Def, name, role, conf, depth+1)...)
			}
		}
		if len(found) == 0 {
			return nil
		}
		out = append(out, found...)
	}
	return out
}

// throughSure is the confidence of type t reached through declaration c of
// file g: the product, except that in TypeScript and Python a sure
// declaration's written type is as sure as its own resolution, since the
// type is written out, so that `schema.safeParse(x).error.issues` and
// `app.test_client().get("/").data` do not fade below the threshold one
// sure step at a time.
func (r *Resolver) throughSure(g *analysis.FileFacts, c, t float64) float64 {
	if (ecmaLang(g.Lang) || g.Lang == "python") && c >= r.threshold && t >= r.threshold {
		return t
	}
	return c * t
}

// tsFunctionType is the global Function interface, whose members (call,
// bind, apply, prototype) a function or method has as a value, for c, a
// function that ref's qualifier names without calling it.
func (r *Resolver) tsFunctionType(f *analysis.FileFacts, ref analysis.Ref, c Candidate, depth int) []Candidate {
	var out []Candidate
	for _, t := range r.typesNamed(f, "Function", ref.Scope, ref.Span, depth+1) {
		t.Confidence = r.throughSure(f, c.Confidence, t.Confidence)
		out = append(out, t)
	}
	return out
}
