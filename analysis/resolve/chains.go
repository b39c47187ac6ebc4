package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Call chains of Kotlin and Java: the receiver of `a.b(x).c()` is what b
// returns, its declared return type; Kotlin's apply and also return their
// own receiver.

// calleeOf splits a qualifier that ends in a call, `a.b(x) { }`, into the
// called path "a.b".
func calleeOf(q string) (string, bool) {
	q = strings.TrimSpace(q)
	if strings.HasSuffix(q, "}") {
		// A trailing lambda: `a.b { }` or `a.b(x) { }`.
		open := openingBefore(q, len(q)-1, '{', '}')
		if open <= 0 {
			return "", false
		}
		q = strings.TrimSpace(q[:open])
		if !strings.HasSuffix(q, ")") {
			return q, isName(q) || isChain("kotlin", q) // `a().b { }`
		}
	}
	if !strings.HasSuffix(q, ")") {
		return "", false
	}
	open := openingBefore(q, len(q)-1, '(', ')')
	if open <= 0 {
		return "", false
	}
	callee := strings.TrimSpace(q[:open])
	if i := strings.IndexByte(callee, '<'); i > 0 && strings.HasSuffix(callee, ">") {
		callee = callee[:i] // explicit type arguments: `a.get<Foo>()`
	}
	return callee, isName(callee) || isChain("kotlin", callee)
}

// isChain reports whether q is `expr.name` where expr is a call, a literal
// or another chain (`a.b(x).c`, `"s".length`): the resolver types expr,
// then looks name up in it. Kotlin and Java only.
func isChain(lang, q string) bool {
	if lang != "kotlin" && lang != "java" && !ecmaLang(lang) {
		return false
	}
	i := strings.LastIndexByte(q, '.')
	if i <= 0 || !isName(q[i+1:]) {
		return false
	}
	prefix := q[:i]
	return strings.HasSuffix(prefix, ")") || strings.HasSuffix(prefix, "}") || literalType(prefix) != "" || isName(prefix)
}

// elementFunctions are the standard library calls that return an element
// of their receiver collection.
var elementFunctions = map[string]bool{
	"first": true, "last": true, "single": true, "firstOrNull": true, "lastOrNull": true, "singleOrNull": true,
	"get": true, "getOrNull": true, "elementAt": true, "random": true, "find": true, "maxBy": true, "minBy": true,
	"maxByOrNull": true, "minByOrNull": true, "removeAt": true, "removeFirst": true, "removeLast": true,
}

// openingBefore finds the bracket opening the one closing at end.
func openingBefore(s string, end int, open, close byte) int {
	depth := 0
	for i := end; i >= 0; i-- {
		switch s[i] {
		case close:
			depth++
		case open:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// chainKey is what the type of a chain depends on: its text and where it
// is. Chains are typed once per resolver: a builder chain of twenty calls
// asks for each of its prefixes from every suffix, along several paths.
type chainKey struct {
	path, chain      string
	scope, enclosing int32
	call             bool
	// depth is part of the key: an answer cut short by the depth bound,
	// or by a chain that needs its own type, must not stand for one
	// asked with more room (answers would depend on the order of queries).
	depth int
}

// callResultTypes infers the types a call of callee returns.
func (r *Resolver) callResultTypes(f *analysis.FileFacts, ref analysis.Ref, callee string, depth int) []Candidate {
	if r.tooDeep(f.Lang, depth) {
		return nil
	}
	key := chainKey{f.Path, callee, ref.Scope, ref.Enclosing, true, depth}
	r.mu.Lock()
	c, ok := r.chains[key]
	r.mu.Unlock()
	if ok {
		return slices.Clone(c)
	}
	if !r.typing.enter(key) {
		return nil // a chain that needs its own type has none
	}
	c = r.callResultTypesOf(f, ref, callee, depth)
	r.typing.leave(key)
	r.mu.Lock()
	if first, ok := r.chains[key]; ok {
		c = first // another view typed it meanwhile: one answer for all
	} else {
		r.chains[key] = c
	}
	r.mu.Unlock()
	return slices.Clone(c)
}

func (r *Resolver) callResultTypesOf(f *analysis.FileFacts, ref analysis.Ref, callee string, depth int) []Candidate {
	cref := ref
	cref.Role = analysis.RoleCall
	cref.Qualifier, cref.Name = splitQualifier(callee)
	cref.Args = ""
	if cref.Qualifier != "" && f.Lang == "kotlin" && (cref.Name == "apply" || cref.Name == "also") {
		qref := ref
		qref.Qualifier = cref.Qualifier
		return r.receiverTypes(f, qref, depth+1)
	}
	out := r.declaredResultTypes(f, cref, depth)
	if len(out) == 0 && f.Lang == "kotlin" && cref.Qualifier != "" && elementFunctions[cref.Name] {
		// xs.first(): an element of xs's declared collection type.
		qref := ref
		qref.Qualifier = cref.Qualifier
		for _, t := range r.writtenTypes(f, qref, depth+1) {
			if e := firstTypeArg(t); e != "" {
				out = append(out, r.typesNamed(f, e, ref.Scope, ref.Span, depth+1)...)
			}
		}
	}
	return out
}

// declaredResultTypes is the types the functions a call binds to declare
// they return (a constructor call, its class).
func (r *Resolver) declaredResultTypes(f *analysis.FileFacts, cref analysis.Ref, depth int) []Candidate {
	var out []Candidate
	// The callee is shorter text than the chain: a call costs no depth, so
	// long builder chains keep their types.
	for _, c := range best(r.resolve(f, cref, depth)) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		if res, ok := r.calledValueTypes(g, d, depth); ok {
			for _, t := range res {
				t.Confidence = r.throughSure(g, c.Confidence, t.Confidence)
				out = append(out, t)
			}
			continue
		}
		switch {
		case d.Kind.IsType():
			out = append(out, c)
		case d.Kind == analysis.KindConstructor:
			if d.Container != analysis.None {
				out = append(out, r.candidate(DefID{c.Def.Path, d.Container}, c.Confidence, c.Via))
			}
		case cref.Qualifier != "" && (returnsReceiver(g, c.Def.Index) || returnsThis(g, d)):
			// `fun <T> T.configure(): T` returns its receiver, whatever
			// its class: `C().configure()` is a C. A sure TypeScript method
			// returning `this` keeps its receiver's confidence, so that
			// zod's long builder chains do not fade one call at a time.
			qref := cref
			qref.Role = analysis.RoleRead
			keep := returnsThis(g, d) && c.Confidence >= r.threshold
			for _, t := range r.receiverTypes(f, qref, depth+1) {
				if !keep {
					t.Confidence *= c.Confidence
				}
				out = append(out, t)
			}
		case d.TypeName == "" && strings.HasPrefix(d.Value, tsReturnedPrefix) && ecmaLang(g.Lang):
			// What every return of a method without a written result
			// gives: a member chain of this, typed from inside the method.
			vref := valueRef(d)
			vref.Qualifier, vref.Enclosing = strings.TrimPrefix(d.Value, tsReturnedPrefix), c.Def.Index
			for _, t := range r.receiverTypes(g, vref, depth+1) {
				t.Confidence = r.throughSure(g, c.Confidence, t.Confidence)
				out = append(out, t)
			}
		case d.TypeName != "":
			if parsed := r.parsedTypes(f, cref, g, d, depth); len(parsed) > 0 {
				out = append(out, parsed...)
				continue
			}
			for _, t := range r.typesNamed(g, calledType(g.Lang, d.TypeName), d.Scope, d.NameSpan, depth+1) {
				t.Confidence = r.throughSure(g, c.Confidence, t.Confidence)
				out = append(out, t)
			}
		}
	}
	if f.Lang == "kotlin" || f.Lang == "java" {
		// A call the language's rules bound confidently, to functions
		// that all return one class, returns that class.
		out = r.sureType(out)
	}
	return out
}

// tsReturnedPrefix marks the Value of a TypeScript function without a
// written result whose returns all give one member chain of this
// (ecma's inferResult).
const tsReturnedPrefix = "return:"

// returnsReceiver reports whether Kotlin function i of g returns its
// receiver's type: both are the same type parameter of the function.
func returnsReceiver(g *analysis.FileFacts, i int32) bool {
	d := g.Defs[i]
	if g.Lang != "kotlin" || d.Receiver == "" || d.TypeName == "" {
		return false
	}
	base := baseTypeName(d.Receiver)
	return baseTypeName(d.TypeName) == base && strings.TrimSpace(d.TypeName) == strings.TrimSpace(d.Receiver) &&
		declaresTypeParam(g, i, base)
}

// returnsThis reports whether TypeScript method d returns the polymorphic
// `this` type, which is its receiver's type: zod's `z.string().min(1)` is
// a ZodString, not the ZodType that declares min.
func returnsThis(g *analysis.FileFacts, d analysis.Def) bool {
	if !ecmaLang(g.Lang) {
		return false
	}
	t := strings.TrimSpace(calledType(g.Lang, d.TypeName))
	// zod's refine: `Ch extends (arg: any) => arg is infer R ? this &
	// ZodType<R> : this`, whose every branch has this's members.
	if branch, ok := tsConditionalBranch(t); ok {
		t = branch
	}
	if amp := tsTopLevel(t, '&'); amp >= 0 {
		t = strings.TrimSpace(t[:amp])
	}
	return t == "this"
}

// literalType is the type of a Kotlin or Java literal qualifier, or "":
// a chain that starts with a literal ("ab".encodeUtf8()) is not one.
func literalType(q string) string {
	if q == "" {
		return ""
	}
	switch c, last := q[0], q[len(q)-1]; {
	case c == '"':
		if len(q) < 2 || last != '"' {
			return ""
		}
		return "String"
	case c == '\'':
		if len(q) < 2 || last != '\'' {
			return ""
		}
		return "Char"
	case q == "true" || q == "false":
		return "Boolean"
	case c >= '0' && c <= '9':
		if strings.ContainsAny(q, "()") {
			return ""
		}
		lower := strings.ToLower(q)
		switch {
		case strings.HasSuffix(lower, "ul"):
			return "ULong"
		case strings.HasSuffix(lower, "u"):
			return "UInt"
		case strings.HasSuffix(lower, "l"):
			return "Long"
		case strings.HasPrefix(lower, "0x") || strings.HasPrefix(lower, "0b"):
			return "Int"
		case strings.HasSuffix(lower, "f"):
			return "Float"
		case strings.ContainsAny(lower, ".e"):
			return "Double"
		}
		return "Int"
	}
	return ""
}

// writtenTypes is the written type of a qualifier: a literal's, or the
// declared type of the variable or the return type of the call it names.
func (r *Resolver) writtenTypes(f *analysis.FileFacts, ref analysis.Ref, depth int) []string {
	key := chainKey{f.Path, ref.Qualifier, ref.Scope, ref.Enclosing, false, depth}
	r.mu.Lock()
	t, ok := r.written[key]
	r.mu.Unlock()
	if ok {
		return t
	}
	if !r.typing.enter(key) {
		return nil
	}
	t = r.writtenTypesOf(f, ref, depth)
	r.typing.leave(key)
	if len(t) == 0 && (f.Lang == "kotlin" || f.Lang == "java") {
		if s := stdlibType(ref.Qualifier); s != "" {
			t = []string{s}
		}
	}
	r.mu.Lock()
	if first, ok := r.written[key]; ok {
		t = first
	} else {
		r.written[key] = t
	}
	r.mu.Unlock()
	return t
}

func (r *Resolver) writtenTypesOf(f *analysis.FileFacts, ref analysis.Ref, depth int) []string {
	q := strings.ReplaceAll(strings.ReplaceAll(strings.TrimRight(ref.Qualifier, "!?"), "?.", "."), "!!", "")
	if t := literalType(q); t != "" {
		return []string{t}
	}
	if t, g, _, _ := r.narrowed(f, ref, q, depth); g != nil {
		return []string{t}
	}
	if name := constructedName(q); name != "" && strings.HasPrefix(q, "new ") {
		return []string{name}
	}
	if r.tooDeep(f.Lang, depth) {
		return nil
	}
	qref := ref
	qref.Role, qref.Args = analysis.RoleRead, ""
	if callee, ok := calleeOf(q); ok {
		qref.Role = analysis.RoleCall
		q = callee
	} else if !isName(q) && !isChain(f.Lang, q) || q == "this" || q == "super" {
		return nil
	}
	qref.Qualifier, qref.Name = splitQualifier(q)
	var out []string
	for _, c := range best(r.resolve(f, qref, depth+1)) {
		if c.Confidence < r.threshold {
			continue
		}
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		switch {
		case qref.Role == analysis.RoleCall && qref.Qualifier != "" && returnsThis(g, d):
			rref := qref
			rref.Role = analysis.RoleRead
			out = append(out, r.writtenTypes(f, rref, depth+1)...)
		case d.TypeName != "" && !d.Kind.IsType() && qref.Role == analysis.RoleCall:
			out = append(out, calledType(g.Lang, d.TypeName))
		case d.TypeName != "" && !d.Kind.IsType():
			out = append(out, d.TypeName)
		case d.Kind == analysis.KindEnumEntry && d.Container != analysis.None:
			out = append(out, g.Defs[d.Container].Name)
		case d.Kind.IsType() && qref.Role == analysis.RoleCall:
			out = append(out, d.Name) // a constructor call
		case d.Kind == analysis.KindObject:
			out = append(out, d.Name)
		case isCallbackParam(g, d):
			for _, t := range r.contextTypes(g, d, depth+1) {
				out = append(out, t.text)
			}
		case d.Value != "" && g.Lang == "python" && c.Confidence >= r.threshold:
			out = append(out, r.pythonWrittenValue(g, d, depth+1)...)
		case d.Value != "" && (g.Lang == "kotlin" || ecmaLang(g.Lang)):
			vref := valueRef(d)
			vref.Qualifier = d.Value
			if base, keys, ok := strings.Cut(d.Value, "[]."); ok && ecmaLang(g.Lang) {
				vref.Qualifier = base // `for (const {a} of xs)`
				out = append(out, tsElementMemberTypes(r.writtenTypes(g, vref, depth+1), strings.Split(keys, "."))...)
				continue
			}
			if base, ok := strings.CutSuffix(d.Value, "[]"); ok {
				vref.Qualifier = base
				for _, t := range r.writtenTypes(g, vref, depth+1) {
					if e := collectionElement(t); e != "" {
						out = append(out, e)
					}
				}
				continue
			}
			out = append(out, r.writtenTypes(g, vref, depth+1)...)
		}
	}
	return out
}

// stdlibType is the type of a chain that ends in one of the standard
// library's conversions or sizes (x.toLong(), s.length), whose sources
// the workspace does not hold, or "".
func stdlibType(q string) string {
	q = strings.TrimSpace(q)
	call := strings.HasSuffix(q, "()")
	q = strings.TrimSuffix(q, "()")
	dot := strings.LastIndexByte(q, '.')
	if dot <= 0 {
		return ""
	}
	name := q[dot+1:]
	if call {
		return conversions[name]
	}
	switch name {
	case "length", "size", "code":
		return "Int"
	}
	return ""
}

// conversions are the standard library's conversion functions and the
// types they return, whatever their receiver.
var conversions = map[string]string{
	"toByte": "Byte", "toShort": "Short", "toInt": "Int", "toLong": "Long", "toFloat": "Float",
	"toDouble": "Double", "toChar": "Char", "toString": "String", "toUByte": "UByte", "toUInt": "UInt",
	"toULong": "ULong", "toUShort": "UShort", "toCharArray": "CharArray", "toBoolean": "Boolean",
}

// valueTypes infers the types of a Kotlin local or lambda parameter from
// its value: a chain's type, or for "xs[]" the element type of xs's
// declared collection type.
func (r *Resolver) valueTypes(g *analysis.FileFacts, d analysis.Def, depth int) []Candidate {
	if isCallbackParam(g, d) {
		return r.callbackParamTypes(g, d, depth)
	}
	if out, ok := r.pythonElementTypes(g, d, depth); ok {
		return out
	}
	vref := valueRef(d)
	if base, keys, ok := strings.Cut(d.Value, "[]."); ok && ecmaLang(g.Lang) {
		vref.Qualifier = base // `for (const {a} of xs)`
		var out []Candidate
		for _, t := range tsElementMemberTypes(r.writtenTypes(g, vref, depth), strings.Split(keys, ".")) {
			out = append(out, r.typesNamed(g, t, d.Scope, d.NameSpan, depth+1)...)
		}
		return out
	}
	base, elem := strings.CutSuffix(d.Value, "[]")
	vref.Qualifier = base
	if !elem {
		return r.receiverTypes(g, vref, depth)
	}
	var out []Candidate
	written := r.writtenTypes(g, vref, depth)
	for _, t := range written {
		e := collectionElement(t)
		if e == "" && g.Lang == "kotlin" && isMapType(baseTypeName(t)) {
			e = "Map.Entry" // `m.forEach { it.value }`
		}
		if e != "" {
			out = append(out, r.typesNamed(g, e, d.Scope, d.NameSpan, depth+1)...)
		}
	}
	if len(written) == 0 && g.Lang == "kotlin" {
		// A map whose type is inferred, `val m = mutableMapOf<K, V>()`:
		// its entries are typed without its type arguments.
		for _, t := range r.receiverTypes(g, vref, depth+1) {
			if t.Confidence >= r.threshold && isMapType(r.file(t.Def.Path).Defs[t.Def.Index].Name) {
				return r.typesNamed(g, "Map.Entry", d.Scope, d.NameSpan, depth+1)
			}
		}
	}
	return out
}

// isMapType reports whether a type name is a map's (Map, MutableMap,
// HashMap…): its elements are entries, not its first type argument.
func isMapType(name string) bool {
	return strings.HasPrefix(name, "Map") || strings.HasSuffix(name, "Map")
}

// collectionElement is the type of the elements of a written collection
// type: T of TypeScript's `T[]` and `readonly T[]`, else firstTypeArg.
func collectionElement(t string) string {
	if a := strings.TrimPrefix(strings.TrimSpace(t), "readonly "); strings.HasSuffix(a, "[]") {
		return elementType(a)
	}
	return firstTypeArg(t)
}

// firstTypeArg is the element type of a written collection type:
// "List<Foo>" → "Foo", "Array<out Foo?>" → "Foo?"; "" for a map (Map,
// MutableMap, HashMap…) or a type without arguments.
func firstTypeArg(t string) string {
	open := strings.IndexByte(t, '<')
	if open < 0 || isMapType(baseTypeName(t)) {
		return ""
	}
	args := splitParams(t[open+1 : strings.LastIndexByte(t, '>')])
	if len(args) == 0 {
		return ""
	}
	a := strings.TrimSpace(args[0])
	for _, v := range []string{"out ", "in "} {
		a = strings.TrimPrefix(a, v)
	}
	if a == "*" {
		return ""
	}
	return a
}

// namedArgument resolves the label of `f(name = x)` to the parameter called
// name of the function or constructor the call binds to.
func (r *Resolver) namedArgument(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	callee := ref.Qualifier[1 : len(ref.Qualifier)-1]
	if !isName(callee) || r.tooDeep(f.Lang, depth) {
		return nil
	}
	cref := ref
	cref.Role, cref.Args = analysis.RoleCall, ""
	cref.Qualifier, cref.Name = splitQualifier(callee)
	var out []Candidate
	for _, c := range best(r.resolve(f, cref, depth+1)) {
		g := r.file(c.Def.Path)
		callables := []int32{c.Def.Index}
		if g.Defs[c.Def.Index].Kind.IsType() {
			// A class's constructors take its named arguments.
			callables = callables[:0]
			for i, d := range g.Defs {
				if d.Kind == analysis.KindConstructor && d.Container == c.Def.Index {
					callables = append(callables, int32(i))
				}
			}
		}
		for _, fn := range callables {
			for _, i := range r.named(g, ref.Name) {
				if isParamOf(g, i, fn) {
					out = r.add(out, c.Def.Path, i, confMember*c.Confidence, ViaMember, analysis.RoleRead)
				}
			}
		}
	}
	return out
}

// isParamOf reports whether definition i of f is a parameter of the
// function or constructor fn.
func isParamOf(f *analysis.FileFacts, i, fn int32) bool {
	p, d := f.Defs[i], f.Defs[fn]
	if p.Kind != analysis.KindParameter && p.Kind != analysis.KindProperty {
		return false
	}
	if p.Container == fn {
		return p.Kind == analysis.KindParameter
	}
	// A primary constructor's parameters belong to its class.
	return d.Kind == analysis.KindConstructor && p.Container == d.Container &&
		p.FullSpan.Start >= d.FullSpan.Start && p.FullSpan.End <= d.FullSpan.End
}
