package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// TypeScript's generic type aliases instantiated: `RawIssue<T>` stands for
// its aliased type with T bound to the argument, or to T's default when the
// instance leaves it out. The aliased type is read structurally: the true
// branch of a conditional type (`T extends any ? X<T> : never`, which
// distributes over a union and so keeps its arms), every part of an
// intersection, and the keys' type of a mapped type over `keyof X`
// (`{ [k in keyof X]: X[k] }` has X's members). A parameter is read where
// its argument is written, so that names in an argument resolve in the
// argument's file (zod's `$ZodRawIssue` → `Flatten<MakePartial<T, …> & …>`
// → T → the `$ZodIssue` union).

// tsArg is a written type with where it is written and what the type
// parameters it may mention are bound to.
type tsArg struct {
	text  string
	file  *analysis.FileFacts
	scope int32
	at    analysis.Span
	env   map[string]tsArg
}

// tsInstanceTypes are the types an instance of a generic type alias has,
// read through its aliased type; ok is false when typeName is no such
// instance, or its alias is a union or an object type, whose members the
// alias itself declares or its arms share.
func (r *Resolver) tsInstanceTypes(f *analysis.FileFacts, typeName string, scope int32, at analysis.Span, depth int) ([]Candidate, bool) {
	t := strings.TrimSpace(typeName)
	if !tsGenericHead(t) || r.tooDeep(f.Lang, depth+1) {
		return nil, false
	}
	g, d, params, ok := r.tsGenericAlias(f, t, scope, at, depth)
	if !ok {
		return nil, false
	}
	env, ok := r.tsBind(tsArg{text: t, file: f, scope: scope, at: at}, g, d, params, depth)
	if !ok {
		return nil, false
	}
	return r.tsEval(tsArg{text: d.TypeName, file: g, scope: d.Scope, at: d.NameSpan, env: env}, depth+1, 0), true
}

// tsMaxHops bounds the aliases one instance is read through: zod's
// `$ZodRawIssue` reaches its union through eight.
const tsMaxHops = 16

// tsGenericHead reports whether t is a name, possibly qualified, with or
// without type arguments: `util.Flatten<X>`, `RawIssueOf`.
func tsGenericHead(t string) bool {
	head := t
	if open := strings.IndexByte(t, '<'); open > 0 {
		if tsClosing(t, open) != len(t)-1 {
			return false
		}
		head = t[:open]
	}
	return isName(head) || isChain("typescript", head)
}

// tsGenericAlias resolves the head of instance t to a type alias that
// declares type parameters and aliases neither a union nor an object type.
func (r *Resolver) tsGenericAlias(f *analysis.FileFacts, t string, scope int32, at analysis.Span, depth int) (*analysis.FileFacts, analysis.Def, []int32, bool) {
	head := t
	if open := strings.IndexByte(t, '<'); open > 0 {
		head = t[:open]
	}
	ref := analysis.Ref{Span: at, Role: analysis.RoleType, Scope: scope, Enclosing: analysis.None}
	ref.Qualifier, ref.Name = splitQualifier(head)
	found := best(r.resolve(f, ref, depth+1))
	if len(found) != 1 || found[0].Confidence < r.threshold {
		return nil, analysis.Def{}, nil, false
	}
	g, d, ok := r.entry(found[0].Def)
	if !ok || !ecmaLang(g.Lang) || d.Kind != analysis.KindTypeAlias || d.TypeName == "" {
		return nil, analysis.Def{}, nil, false
	}
	body := tsWritten(d.TypeName)
	if tsTopLevel(body, '|') >= 0 || strings.HasPrefix(body, "{") && tsMappedKeys(body) == "" {
		return nil, analysis.Def{}, nil, false
	}
	params := declaredTypeParams(g, found[0].Def.Index)
	return g, d, params, len(params) > 0
}

// tsBind binds the type parameters of alias d (in g) to the arguments of
// instance a, or to their defaults; false when one has neither.
func (r *Resolver) tsBind(a tsArg, g *analysis.FileFacts, d analysis.Def, params []int32, depth int) (map[string]tsArg, bool) {
	args := tsTypeArgs(a.text)
	if strings.HasSuffix(strings.TrimSpace(a.text), "[]") {
		args = nil
	}
	env := map[string]tsArg{}
	for k, p := range params {
		pd := g.Defs[p]
		switch {
		case k < len(args):
			arg := a
			arg.text = args[k]
			env[pd.Name] = arg
		case pd.Value != "":
			env[pd.Name] = tsArg{text: pd.Value, file: g, scope: pd.Scope, at: pd.NameSpan}
		default:
			return nil, false
		}
	}
	return env, true
}

// tsEval is the types written type a has, its type parameters read where
// their arguments are written. The structural steps read shorter text and
// cost no depth; an alias read or a parameter's argument costs a hop.
func (r *Resolver) tsEval(a tsArg, depth, hops int) []Candidate {
	if r.tooDeep(a.file.Lang, depth) || hops > tsMaxHops {
		return nil
	}
	t := tsWritten(a.text)
	if bound, ok := a.env[t]; ok {
		return r.tsEval(bound, depth, hops+1)
	}
	if len(a.env) == 0 || !mentionsAny(t, envNames(a.env)) {
		return r.typesNamed(a.file, t, a.scope, a.at, depth)
	}
	if branch, ok := tsConditionalBranch(t); ok {
		a.text = branch
		return r.tsEval(a, depth, hops)
	}
	if tsTopLevel(t, '&') >= 0 {
		var out []Candidate
		for _, part := range tsSplit(t, '&') {
			part = strings.TrimSpace(part)
			switch {
			case part == "" || baseTypeName(part) == "Record":
			case strings.HasPrefix(part, "{") && tsMappedKeys(part) == "":
				// An object type written in the alias's own text declares
				// its properties inside the alias (zod's `inst`, `continue`).
				if i := aliasNamedAt(a.file, a.at); i >= 0 && hasMembers(a.file, i) {
					out = append(out, r.candidate(DefID{a.file.Path, i}, 1, ViaScope))
				}
			default:
				a.text = part
				out = append(out, r.tsEval(a, depth, hops)...)
			}
		}
		return out
	}
	if keys := tsMappedKeys(t); keys != "" {
		a.text = keys
		return r.tsEval(a, depth, hops)
	}
	if !tsGenericHead(t) {
		return nil
	}
	g, d, params, ok := r.tsGenericAlias(a.file, t, a.scope, a.at, depth)
	if !ok {
		// An interface or class instantiated with the parameters: its
		// own members.
		return r.typesNamed(a.file, baseOf(t), a.scope, a.at, depth)
	}
	env, ok := r.tsBind(a, g, d, params, depth)
	if !ok {
		return nil
	}
	return r.tsEval(tsArg{text: d.TypeName, file: g, scope: d.Scope, at: d.NameSpan, env: env}, depth, hops+1)
}

// aliasNamedAt is the index of the type alias of f whose name is at, or -1.
func aliasNamedAt(f *analysis.FileFacts, at analysis.Span) int32 {
	for i, d := range f.Defs {
		if d.Kind == analysis.KindTypeAlias && d.NameSpan.Start == at.Start && d.NameSpan.End == at.End {
			return int32(i)
		}
	}
	return -1
}

// baseOf is t without its type arguments.
func baseOf(t string) string {
	if open := strings.IndexByte(t, '<'); open > 0 {
		return t[:open]
	}
	return t
}

func envNames(env map[string]tsArg) []string {
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	return names
}

// tsConditionalBranch is the true branch of a conditional type `C extends
// X ? A : B`, or B when A is never; ok is false for any other type.
func tsConditionalBranch(t string) (string, bool) {
	ext := tsTopLevelWord(t, " extends ")
	if ext < 0 {
		return "", false
	}
	q, colon, open := -1, -1, 0
	depth := 0
	for i := ext; i < len(t) && colon < 0; i++ {
		switch c := t[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == '>' && t[i-1] != '=':
			depth--
		case c == '?' && depth == 0:
			if q < 0 {
				q = i
			}
			open++
		case c == ':' && depth == 0 && q >= 0:
			if open--; open == 0 {
				colon = i
			}
		}
	}
	if q < 0 || colon < 0 {
		return "", false
	}
	yes, no := strings.TrimSpace(t[q+1:colon]), strings.TrimSpace(t[colon+1:])
	if yes == "never" {
		return no, no != "never"
	}
	return yes, true
}

// tsTopLevelWord is the index of word outside brackets, or -1.
func tsTopLevelWord(t, word string) int {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == '>' && (i == 0 || t[i-1] != '='):
			depth--
		case depth == 0 && strings.HasPrefix(t[i:], word):
			return i
		}
	}
	return -1
}

// tsMappedKeys is X of a mapped type `{ [k in keyof X]…: … }`, whose
// members are X's, or "".
func tsMappedKeys(t string) string {
	if !strings.HasPrefix(t, "{") || tsClosing(t, 0) != len(t)-1 {
		return ""
	}
	inner := strings.TrimSpace(t[1 : len(t)-1])
	inner = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(inner, "-"), "+"), "readonly"))
	if !strings.HasPrefix(inner, "[") {
		return ""
	}
	end := tsClosing(inner, 0)
	if end < 0 {
		return ""
	}
	fields := strings.Fields(inner[1:end])
	if len(fields) < 4 || fields[1] != "in" || fields[2] != "keyof" {
		return ""
	}
	keys := strings.Join(fields[3:], " ")
	if strings.Contains(keys, " as ") {
		return "" // keys renamed
	}
	return keys
}

// tsDefaultedParam is the default of the type parameter name of the
// declaration around at, which a type written there (a call signature's
// parameter, read for a contextual type) means when its owner is used
// without arguments: "" when there is none.
func tsDefaultedParam(f *analysis.FileFacts, name string, at analysis.Span) (analysis.Def, bool) {
	for _, d := range f.Defs {
		if d.Kind != analysis.KindTypeParameter || d.Name != name || d.Value == "" || d.Container == analysis.None {
			continue
		}
		if owner := f.Defs[d.Container].FullSpan; owner.Start <= at.Start && at.End <= owner.End {
			return d, true
		}
	}
	return analysis.Def{}, false
}

// UnionArms are the types of each arm of TypeScript union alias t (`type
// Issue = TooBig | TooSmall`), whose values have the members every arm
// has; none for any other definition.
func (r *Resolver) UnionArms(t DefID) [][]Candidate {
	g, d, ok := r.entry(t)
	if !ok || !ecmaLang(g.Lang) || d.Kind != analysis.KindTypeAlias || tsTopLevel(tsWritten(d.TypeName), '|') < 0 {
		return nil
	}
	var out [][]Candidate
	for _, a := range r.unionArms(g, d.TypeName, d.Scope, d.NameSpan, 1, 0) {
		var arm []Candidate
		for _, u := range r.typesNamed(a.file, a.text, a.scope, a.at, 2) {
			if u.Confidence >= r.threshold && u.Def != t {
				arm = append(arm, u)
			}
		}
		if len(arm) == 0 {
			return nil // an arm kast cannot type: which members are shared is unknown
		}
		out = append(out, arm)
	}
	return out
}

// ReceiverUnionArms are the types of each arm of the written union type of
// the value qualifier denotes (`issue.maximum` of `number | bigint`), whose
// shared members follow a dot; none when that type is no union or an arm
// is unknown.
func (r *Resolver) ReceiverUnionArms(file, qualifier string, scope, enclosing int32, at analysis.Span) [][]Candidate {
	f := r.file(file)
	if f == nil || !ecmaLang(f.Lang) {
		return nil
	}
	ref := analysis.Ref{Span: at, Role: analysis.RoleRead, Scope: scope, Enclosing: enclosing, Qualifier: qualifier}
	return r.receiverUnionArms(f, ref, 0)
}

// receiverUnionArms is ReceiverUnionArms for ref of f, depth deep.
func (r *Resolver) receiverUnionArms(f *analysis.FileFacts, ref analysis.Ref, depth int) [][]Candidate {
	if r.tooDeep(f.Lang, depth+2) {
		return nil
	}
	for _, t := range r.writtenTypesAt(f, ref, depth+1) {
		arms := tsUnionArms(t.text)
		if len(arms) < 2 {
			continue
		}
		var out [][]Candidate
		for _, a := range arms {
			found := r.finish(f.Path, r.typesNamed(t.file, a, t.scope, t.at, depth+2))
			if len(found) == 0 || found[0].Uncertain {
				return nil
			}
			out = append(out, found)
		}
		return out
	}
	return nil
}

// unionMember resolves a member of a value of a written union type
// (`minimum: number | bigint`, `.toString`) as tsserver does: the member
// every arm has, declared where the first arm declares it; none when an
// arm lacks it.
func (r *Resolver) unionMember(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	uref := ref
	uref.Role, uref.Name, uref.Args = analysis.RoleRead, "", ""
	arms := r.receiverUnionArms(f, uref, depth+1)
	var first []Candidate
	for i, arm := range arms {
		var found []Candidate
		for _, t := range arm {
			found = append(found, r.members(t.Def, ref.Name, ref.Role, confMember*t.Confidence, depth+1)...)
		}
		if len(found) == 0 {
			return nil
		}
		if i == 0 {
			first = found
		}
	}
	return first
}

// declaredTypeParams are the type parameters def i of g declares, in
// order: those defined right after it, contained by it and in one scope.
// The `infer U` of a conditional type in its body is contained by it too,
// but declared in a scope of its own.
func declaredTypeParams(g *analysis.FileFacts, i int32) []int32 {
	if i == analysis.None || int(i)+1 >= len(g.Defs) {
		return nil
	}
	var out []int32
	scope := g.Defs[i+1].Scope
	for j := i + 1; int(j) < len(g.Defs) && g.Defs[j].Container == i && g.Defs[j].Kind == analysis.KindTypeParameter && g.Defs[j].Scope == scope; j++ {
		out = append(out, j)
	}
	return out
}
