package resolve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript overloads: a call of a function or method declared with
// several signatures binds, as the checker does, the first one in source
// order that its arguments fit, which tsserver's definition answers and
// kast answers first.
// The arguments' shapes (analysis.Ref.Args) say little of their types, so
// a signature is passed over only for a clear misfit: too few or too many
// arguments, an array literal for a parameter that holds no array, a
// function for one that holds no function or the reverse, a literal of one
// primitive type for a parameter of others, or a callback without a type
// predicate for a parameter whose callback returns one.

// tsParam is one parameter of a written signature.
type tsParam struct {
	typ            string // written type, with a type parameter's constraint for the parameter itself
	optional, rest bool
}

// tsBindOverloads puts first, of c's tied best candidates, the first
// overload the call's arguments fit, the others after it in source order:
// they stay, since the overloads of a name are one symbol to TypeScript
// (a rename or references from any of them reach every call). c is left
// as it is when they are no overloads of one name, the call's arguments
// are unknown or no overload fits.
func (r *Resolver) tsBindOverloads(ref analysis.Ref, c []Candidate) []Candidate {
	if ref.Role&analysis.RoleCall == 0 || ref.Args == "" || len(c) < 2 {
		return c // `new X()` has no Args: tsserver answers X's interface first there
	}
	if c = r.tsCalledValues(c); len(c) < 2 {
		return c
	}
	n := topTies(c)
	if n < 2 || n > maxOverloads {
		return c
	}
	tie := slices.Clone(c[:n])
	defs := make(map[DefID]analysis.Def, n)
	for _, x := range tie {
		_, d, ok := r.entry(x.Def)
		if !ok || d.Kind != analysis.KindFunction && d.Kind != analysis.KindMethod || x.Def.Path != tie[0].Def.Path || d.Name != ref.Name {
			return c
		}
		defs[x.Def] = d
	}
	slices.SortFunc(tie, func(a, b Candidate) int { return cmp.Compare(defs[a.Def].NameSpan.Start, defs[b.Def].NameSpan.Start) })
	args := parseArgs(ref.Args)
	for _, x := range tie {
		g, d := r.file(x.Def.Path), defs[x.Def]
		// A parameter of a named type is read through the type alias it
		// names (zod's `fn: VisitFn`, a function type).
		aliased := func(t string) string {
			if !isName(t) && !isChain(g.Lang, t) {
				return ""
			}
			for _, a := range best(r.typesNamed(g, t, d.Scope, d.NameSpan, 1)) {
				if _, ad, ok := r.entry(a.Def); ok && ad.Kind == analysis.KindTypeAlias && a.Confidence >= r.threshold {
					return tsWritten(ad.TypeName)
				}
			}
			return ""
		}
		if params, ok := tsSignatureParams(d.Signature); ok && tsArgsFit(args, params, aliased) {
			out := append([]Candidate{x}, slices.DeleteFunc(tie, func(y Candidate) bool { return y.Def == x.Def })...)
			return append(out, c[n:]...)
		}
	}
	return c
}

// tsCalledValues drops, from c, the interfaces and type aliases when a sure
// value of the same name is among them: a call names the value of a name
// that is both (zod's `interface $constructor` and `function
// $constructor`), as tsserver answers.
func (r *Resolver) tsCalledValues(c []Candidate) []Candidate {
	typeOnly := func(x Candidate) bool { return x.Kind == analysis.KindInterface || x.Kind == analysis.KindTypeAlias }
	value := func(x Candidate) bool { return !typeOnly(x) && x.Name == c[0].Name && x.Confidence >= r.threshold }
	if !slices.ContainsFunc(c, typeOnly) || !slices.ContainsFunc(c, value) {
		return c
	}
	return slices.DeleteFunc(slices.Clone(c), typeOnly)
}

// tsSignatureParams are the parameters of a written function or method
// signature; a parameter typed as one of the signature's type parameters
// is given its constraint (`T extends ReadonlyArray<Literal>`).
func tsSignatureParams(sig string) ([]tsParam, bool) {
	sig = strings.Join(strings.Fields(sig), " ")
	open := paramListStart(sig)
	if open < 0 {
		return nil, false
	}
	end := tsClosing(sig, open)
	if end < 0 {
		return nil, false
	}
	constraints := tsTypeParamConstraints(sig[:open])
	var out []tsParam
	for _, p := range tsSplit(sig[open+1:end], ',') {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "this:") || strings.HasPrefix(p, "this :") {
			continue
		}
		var q tsParam
		p, q.rest = strings.CutPrefix(p, "...")
		name, typ := p, ""
		if colon := tsTopLevel(p, ':'); colon >= 0 {
			name, typ = p[:colon], strings.TrimSpace(p[colon+1:])
		}
		if eq := tsTopLevelWord(typ, " = "); eq >= 0 {
			typ, q.optional = strings.TrimSpace(typ[:eq]), true
		}
		q.optional = q.optional || strings.ContainsAny(name, "?=")
		if c, ok := constraints[typ]; ok {
			typ = c
		}
		q.typ = typ
		out = append(out, q)
	}
	return out, true
}

// tsTypeParamConstraints maps the type parameters written in head (the
// signature before its parameters) to their constraints, "" for none.
func tsTypeParamConstraints(head string) map[string]string {
	lt := strings.IndexByte(head, '<')
	if lt < 0 {
		return nil
	}
	gt := tsClosing(head, lt)
	if gt < 0 {
		return nil
	}
	out := map[string]string{}
	for _, tp := range tsSplit(head[lt+1:gt], ',') {
		tp = strings.TrimSpace(tp)
		for _, mod := range []string{"const ", "in ", "out "} {
			tp = strings.TrimPrefix(tp, mod)
		}
		name, constraint, _ := strings.Cut(tp, " extends ")
		if eq := tsTopLevelWord(constraint, " = "); eq >= 0 {
			constraint = constraint[:eq]
		}
		if name, _, _ = strings.Cut(strings.TrimSpace(name), " "); name != "" {
			out[name] = strings.TrimSpace(constraint)
		}
	}
	return out
}

// tsArgsFit reports whether arguments of the given shapes can be passed
// to params.
func tsArgsFit(args []arg, params []tsParam, aliased func(string) string) bool {
	required, rest := 0, false
	for _, p := range params {
		if p.rest {
			rest = true
		} else if !p.optional {
			required++
		}
	}
	spread := slices.ContainsFunc(args, func(a arg) bool { return a.code == "*" })
	if !spread && (len(args) < required || !rest && len(args) > len(params)) {
		return false
	}
	for i, a := range args {
		if a.code == "*" {
			return true
		}
		if i >= len(params) {
			return rest
		}
		t := params[i].typ
		if params[i].rest {
			if t = elementType(t); t == "" {
				return true
			}
		}
		if !tsArgFits(a.code, t, aliased) {
			return false
		}
	}
	return true
}

// tsArgFits reports whether an argument of shape code may be of written
// type t: false only where every arm of t clearly holds no such value.
// aliased, when not nil, gives the written type a named arm aliases.
func tsArgFits(code, t string, aliased func(string) string) bool {
	if t == "" || code == "_" || code == "n" {
		return true
	}
	for _, arm := range tsSplit(t, '|') {
		arm = strings.TrimSpace(arm)
		if aliased != nil && tsWrittenKind(arm) == "" {
			if a := aliased(arm); a != "" {
				if tsArgFits(code, a, nil) {
					return true
				}
				continue
			}
		}
		if tsArmFits(code, arm) {
			return true
		}
	}
	return false
}

// tsArmFits is tsArgFits for one arm of a union.
func tsArmFits(code, t string) bool {
	for strings.HasPrefix(t, "(") && tsClosing(t, 0) == len(t)-1 {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	kind := tsWrittenKind(t)
	switch {
	case kind == "":
		return true // a named type, any, unknown: it may hold anything
	case code == "p" || code == "f":
		if kind != "function" {
			return false
		}
		// A callback without a type predicate does not fit a parameter
		// whose callback returns one (`refine(check)`).
		result, _ := analysis.FunctionTypeResult(t)
		return code == "p" || !strings.Contains(result, " is ")
	case code == "a":
		return kind == "array"
	case code == "o":
		return kind == "object"
	case code == "s":
		return kind == "string"
	case code == "i":
		return kind == "number"
	case code == "b":
		return kind == "boolean"
	}
	return true
}

// tsWrittenKind is what kind of value a written type holds: function,
// array, object, string, number, boolean or nullish; "" when the text
// does not say (a named type, a type parameter, any).
func tsWrittenKind(t string) string {
	if _, ok := analysis.FunctionTypeResult(t); ok {
		return "function"
	}
	switch {
	case t == "":
		return ""
	case strings.HasPrefix(t, "readonly "), strings.HasPrefix(t, "["), strings.HasSuffix(t, "[]"),
		strings.HasPrefix(t, "Array<"), strings.HasPrefix(t, "ReadonlyArray<"):
		return "array"
	case strings.HasPrefix(t, "{"):
		return "object"
	case t == "string", t[0] == '"', t[0] == '\'', t[0] == '`':
		return "string"
	case t == "number", t[0] >= '0' && t[0] <= '9', t[0] == '-':
		return "number"
	case t == "boolean", t == "true", t == "false":
		return "boolean"
	case t == "null", t == "undefined", t == "void", t == "never":
		return "nullish"
	}
	return ""
}
