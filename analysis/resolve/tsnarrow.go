package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript's narrowing by typeof and Array.isArray (ecma's narrowing.go
// records "=kind" where a check holds, "!kind" where it fails): the arms
// of the name's declared union that the check leaves, following type
// aliases of unions, one arm giving its members.

// narrowed is the written type a qualifier is narrowed to where ref is,
// with the file and scope it is written in; g is nil when no check or cast
// narrows it.
func (r *Resolver) narrowed(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) (t string, g *analysis.FileFacts, scope int32, at analysis.Span) {
	if t, g, scope, at = r.predicateNarrowed(f, ref, q, depth); g != nil {
		return t, g, scope, at
	}
	t = narrowedType(f, ref, q)
	if t == "" {
		return "", nil, 0, analysis.Span{}
	}
	if !ecmaLang(f.Lang) || t[0] != '=' && t[0] != '!' {
		return t, f, ref.Scope, ref.Span
	}
	holds, kind := t[0] == '=', t[1:]
	var kept []unionArm
	if !r.tooDeep(f.Lang, depth+1) {
		qref := ref
		qref.Role, qref.Qualifier, qref.Name, qref.Args = analysis.RoleRead, "", q, ""
		for _, c := range best(r.resolve(f, qref, depth+1)) {
			h, d, ok := r.entry(c.Def)
			if !ok || d.TypeName == "" || d.Kind.IsType() || c.Confidence < r.threshold {
				continue
			}
			for _, a := range r.unionArms(h, d.TypeName, d.Scope, d.NameSpan, depth+1, 0) {
				if k := armKind(a.text); (k == "undefined" || k == "null") && !(holds && kind == k) {
					continue // `x !== undefined` aside, what a check leaves is defined
				}
				if armMatches(armKind(a.text), kind) == holds {
					kept = append(kept, a)
				}
			}
			break
		}
	}
	switch {
	case len(kept) == 1:
		return kept[0].text, kept[0].file, kept[0].scope, kept[0].at
	case len(kept) > 1:
		// Arms of one kind have its members: `string[][] | Array<T>`
		// are arrays.
		k := armKind(kept[0].text)
		for _, a := range kept[1:] {
			if armKind(a.text) != k {
				k = ""
			}
		}
		if lib, ok := typeofTypes[k]; ok {
			return lib, f, ref.Scope, ref.Span
		}
	case len(kept) == 0 && holds:
		if lib, ok := typeofTypes[kind]; ok {
			return lib, f, ref.Scope, ref.Span // `typeof x === "string"` of an unknown x
		}
	}
	return "", nil, 0, analysis.Span{}
}

// narrowedTypes are the types a narrowed qualifier has, or ok false when
// nothing narrows it.
func (r *Resolver) narrowedTypes(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) ([]Candidate, bool) {
	t, g, scope, at := r.narrowed(f, ref, q, depth)
	if g == nil {
		return nil, false
	}
	out := r.typesNamed(g, t, scope, at, depth+1)
	return out, len(out) > 0
}

// typeofTypes are the types a typeof check proves of a name whose declared
// type says nothing of it.
var typeofTypes = map[string]string{"string": "string", "number": "number", "boolean": "boolean",
	"bigint": "bigint", "symbol": "symbol", "array": "unknown[]", "function": "Function"}

// unionArm is one type of a union, where it is written.
type unionArm struct {
	text  string
	file  *analysis.FileFacts
	scope int32
	at    analysis.Span
}

// unionArms splits a written union into its arms, an arm that names a type
// alias of a union into that union's.
func (r *Resolver) unionArms(g *analysis.FileFacts, t string, scope int32, at analysis.Span, depth, hops int) []unionArm {
	var out []unionArm
	for _, part := range tsSplit(tsWritten(strings.TrimSpace(t)), '|') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if hops < 3 && isName(part) && armKind(part) == "object" && !r.tooDeep(g.Lang, depth+1) {
			if ts := r.typesNamed(g, part, scope, at, depth+1); len(ts) == 1 {
				if h, d, ok := r.entry(ts[0].Def); ok && d.Kind == analysis.KindTypeAlias && tsTopLevel(d.TypeName, '|') >= 0 {
					out = append(out, r.unionArms(h, d.TypeName, d.Scope, d.NameSpan, depth+1, hops+1)...)
					continue
				}
			}
		}
		out = append(out, unionArm{part, g, scope, at})
	}
	return out
}

// armKind is what typeof (or Array.isArray) says of a value of written
// type t: "string", "number", …, "array", "function", "null", "object".
func armKind(t string) string {
	switch t {
	case "string", "number", "boolean", "bigint", "symbol", "undefined", "null", "object":
		return t
	case "true", "false":
		return "boolean"
	case "Function":
		return "function"
	}
	switch first := t[0]; {
	case first == '"' || first == '\'' || first == '`':
		return "string"
	case first >= '0' && first <= '9' || first == '-':
		return "number"
	case first == '[' || strings.HasSuffix(t, "[]") || strings.HasPrefix(t, "readonly ") ||
		strings.HasPrefix(t, "Array<") || strings.HasPrefix(t, "ReadonlyArray<"):
		return "array"
	case (first == '(' || first == '<') && calledType("typescript", t) != t, strings.HasPrefix(t, "new "):
		return "function"
	}
	return "object"
}

// armMatches reports whether a check for kind holds for an arm of this
// kind: typeof says "object" of arrays and null too.
func armMatches(arm, kind string) bool {
	return arm == kind || kind == "object" && (arm == "array" || arm == "null")
}

// tsElementTypes are the types of an element `xs[i]` of a TypeScript
// array: the element type of the array's written type; ok is false for
// any other qualifier.
func (r *Resolver) tsElementTypes(f *analysis.FileFacts, ref analysis.Ref, q string, depth int) ([]Candidate, bool) {
	if !ecmaLang(f.Lang) || r.tooDeep(f.Lang, depth+1) {
		return nil, false
	}
	qref, ok := indexedBase(f, ref, q)
	if !ok {
		return nil, false
	}
	var out []Candidate
	for _, t := range r.writtenTypesAt(f, qref, depth) {
		if e := elementType(tsWritten(t.text)); e != "" {
			out = append(out, r.typesNamed(t.file, e, t.scope, t.at, depth+1)...)
		}
	}
	return out, true
}

// indexedBase is the reference to the value a qualifier indexes, `parts`
// of `parts[i]`, when that value is a name or a chain; ok is false for any
// other qualifier.
func indexedBase(f *analysis.FileFacts, ref analysis.Ref, q string) (analysis.Ref, bool) {
	if !strings.HasSuffix(q, "]") {
		return ref, false
	}
	open := openingBefore(q, len(q)-1, '[', ']')
	if open <= 0 {
		return ref, false
	}
	base := q[:open]
	if !isName(base) && !isChain(f.Lang, strings.ReplaceAll(base, "!.", ".")) {
		return ref, false
	}
	ref.Qualifier = base
	return ref, true
}

// discriminated narrows the types of qualifier ref.Qualifier where checks
// of a discriminant hold ("#code=too_big", ecma's narrowing.go), outermost
// first: a union alias among them gives the arms whose discriminant member
// is written with one of the checked literals, or, where a check fails,
// those written with other literals too; an arm whose discriminant is
// written otherwise (`Exclude<Formats, "regex">`) stays in both.
func (r *Resolver) discriminated(f *analysis.FileFacts, ref analysis.Ref, types []Candidate, depth int) []Candidate {
	q := strings.TrimRight(ref.Qualifier, "!?")
	if !isName(q) || r.tooDeep(f.Lang, depth+1) {
		return types
	}
	checks := discriminantsAt(f, q, ref.Span.Start)
	if len(checks) == 0 {
		return types
	}
	var out []Candidate
	for _, t := range types {
		h, d, ok := r.entry(t.Def)
		if !ok || d.Kind != analysis.KindTypeAlias || tsTopLevel(tsWritten(d.TypeName), '|') < 0 {
			out = append(out, t)
			continue
		}
		type arm struct {
			c       Candidate
			written map[string][]string // key → literals
		}
		var arms []arm
		for _, a := range r.unionArms(h, d.TypeName, d.Scope, d.NameSpan, depth+1, 0) {
			for _, u := range r.typesNamed(a.file, a.text, a.scope, a.at, depth+1) {
				u.Confidence = t.Confidence
				arms = append(arms, arm{u, map[string][]string{}})
			}
		}
		for _, check := range checks {
			key, lits, holds := strings.Cut(strings.TrimPrefix(check, "#"), "=")
			if !holds {
				key, lits, _ = strings.Cut(strings.TrimPrefix(check, "#"), "!")
			}
			checked := strings.Split(lits, "|")
			arms = slices.DeleteFunc(arms, func(a arm) bool {
				written, ok := a.written[key]
				if !ok {
					written = r.discriminantLiterals(a.c.Def, key, depth+1)
					a.written[key] = written
				}
				keep := len(written) == 0 || holds && anyIn(written, checked) || !holds && !allIn(written, checked)
				return !keep
			})
		}
		if len(arms) == 0 {
			out = append(out, t)
			continue
		}
		for _, a := range arms {
			out = append(out, a.c)
		}
	}
	return out
}

// discriminantsAt are the discriminant checks of name that hold at
// offset, "#key=a|b" or "#key!a|b", outermost first.
func discriminantsAt(f *analysis.FileFacts, name string, offset int) []string {
	var found []analysis.Cast
	for _, c := range f.Casts {
		if c.Name == name && c.Span.Contains(offset) && strings.HasPrefix(c.Type, "#") {
			found = append(found, c)
		}
	}
	slices.SortStableFunc(found, func(a, b analysis.Cast) int {
		return (b.Span.End - b.Span.Start) - (a.Span.End - a.Span.Start)
	})
	out := make([]string, len(found))
	for i, c := range found {
		out[i] = c.Type
	}
	return out
}

// discriminantLiterals are the string or boolean literals type t's member
// key is written with (`readonly code: "too_big"`, `success: false`); none
// when it is written with anything else.
func (r *Resolver) discriminantLiterals(t DefID, key string, depth int) []string {
	var out []string
	for _, m := range best(r.members(t, key, analysis.RoleRead, 1, depth)) {
		_, d, ok := r.entry(m.Def)
		if !ok || d.TypeName == "" {
			continue
		}
		for _, part := range tsSplit(d.TypeName, '|') {
			part = strings.TrimSpace(part)
			if part == "true" || part == "false" {
				out = append(out, part)
				continue
			}
			if len(part) < 2 || part[0] != '"' && part[0] != '\'' || part[len(part)-1] != part[0] {
				return nil
			}
			out = append(out, part[1:len(part)-1])
		}
	}
	return out
}

func anyIn(xs, set []string) bool {
	for _, x := range xs {
		if indexOf(set, x) >= 0 {
			return true
		}
	}
	return false
}

func allIn(xs, set []string) bool {
	for _, x := range xs {
		if indexOf(set, x) < 0 {
			return false
		}
	}
	return true
}
