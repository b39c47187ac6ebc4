package resolve

import (
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
	readonly := strings.HasPrefix(t, "readonly ")
	if i := topLevelIndex(t, '|'); i > 0 {
		t = strings.TrimSpace(t[:i]) // the first of a union: `string | undefined`
	}
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
// Promise q's written type names, or q's own types when it is no Promise.
func (r *Resolver) awaitedTypes(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) []Candidate {
	qref := ref
	qref.Qualifier = q
	var out []Candidate
	for _, t := range r.writtenTypes(f, qref, depth+1) {
		if baseTypeName(t) == "Promise" || baseTypeName(t) == "PromiseLike" {
			if e := firstTypeArg(t); e != "" {
				out = append(out, r.typesNamed(f, e, ref.Scope, ref.Span, depth+1)...)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	return r.receiverTypes(f, qref, depth+1)
}

// AliasedTypes are the types a TypeScript type alias `type A = B<T>` stands
// for, whose members are A's; none for any other definition.
func (r *Resolver) AliasedTypes(t DefID) []Candidate {
	g, d, ok := r.entry(t)
	if !ok || !ecmaLang(g.Lang) || d.Kind != analysis.KindTypeAlias || d.TypeName == "" {
		return nil
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
	s := strings.TrimSpace(t)
	if !strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "<") {
		return t
	}
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '(', '<', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case '>':
			if i > 0 && s[i-1] == '=' {
				continue
			}
			depth--
		case '=':
			if depth == 0 && s[i+1] == '>' {
				return strings.TrimSpace(s[i+2:])
			}
		}
	}
	return t
}
