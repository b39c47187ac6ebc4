package resolve

import (
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// qualified resolves `q.name`: as a member of q's inferred type, then as a
// declaration of the module or package q names, and failing both as any
// member with the name, uncertain.
func (r *Resolver) qualified(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	if f.Lang == "go" && strings.HasPrefix(ref.Qualifier, anonStruct) {
		return r.anonFields(f, ref)
	}
	if ecmaLang(f.Lang) && ref.Qualifier == "globalThis" {
		return r.globals(f.Path, ref) // `globalThis.AbortSignal`
	}
	if f.Lang == "kotlin" && strings.HasPrefix(ref.Qualifier, "(") && strings.HasSuffix(ref.Qualifier, ")") && asCastType(ref.Qualifier) == "" {
		return r.namedArgument(f, ref, depth)
	}
	// A plain-name qualifier that only a workspace-wide search finds (fmt in
	// fmt.Println) gives members no surer than guesses, which an imported
	// module beats: look there first, sparing the guesses' resolution.
	if q := plainQualifier(ref.Qualifier); q != "" && !r.tooDeep(f.Lang, depth+1) {
		qref := ref
		qref.Role, qref.Qualifier, qref.Name = analysis.RoleRead, "", q
		if len(r.unqualified(f, qref, depth+1)) == 0 {
			if out := r.inModule(f, ref); len(out) > 0 {
				return out
			}
		}
	}
	var members []Candidate
	for _, t := range r.receiverTypes(f, ref, depth) {
		conf := confMember * t.Confidence
		lookup := func(name string, role analysis.Role) []Candidate {
			return r.members(t.Def, name, role, conf, depth+1)
		}
		switch f.Lang {
		case "kotlin":
			members = append(members, r.kotlinView(lookup, ref.Name, ref.Role)...)
		case "java":
			members = append(members, r.javaView(t.Def, ref.Qualifier, lookup, ref, conf)...)
		default:
			members = append(members, lookup(ref.Name, ref.Role)...)
		}
	}
	if len(members) == 0 && ecmaLang(f.Lang) && !r.tooDeep(f.Lang, depth+1) {
		members = r.unionMember(f, ref, depth)
		if len(members) == 0 {
			members = r.inlineObjectMember(f, ref, depth)
		}
	}
	if len(members) == 0 && f.Lang == "java" {
		if out := r.facadeMembers(f, ref); len(out) > 0 {
			return out
		}
	}
	// Members of a guessed receiver type must not hide an imported module
	// that shares the qualifier's name.
	if len(members) > 0 && best(members)[0].Confidence >= r.threshold {
		return members
	}
	if out := r.inModule(f, ref); len(out) > 0 {
		return out
	}
	if len(members) > 0 {
		return members
	}
	if f.Lang == "kotlin" {
		if out := r.extensionsOnWritten(f, ref, depth); len(out) > 0 {
			return out
		}
	}
	return r.byName(ref.Name, ref.Role, true)
}

// receiverTypes infers the type definitions a qualifier denotes: the
// enclosing type for this/self, the supertypes for super, the class of a
// constructor call, the type itself for static access, or the declared or
// inferred type of a variable, parameter, property or field.
func (r *Resolver) receiverTypes(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	out := r.receiverTypesOf(f, ref, depth)
	if ecmaLang(f.Lang) && len(f.Casts) > 0 && len(out) > 0 {
		return r.discriminated(f, ref, out, depth)
	}
	return out
}

func (r *Resolver) receiverTypesOf(f *analysis.FileFacts, ref analysis.Ref, depth int) []Candidate {
	q := strings.TrimRight(ref.Qualifier, "!?")
	if label, ok := strings.CutPrefix(q, "this@"); ok && f.Lang == "kotlin" {
		return r.labelledThis(f, ref, label, depth)
	}
	switch q {
	case "this", "self", "Self", "@":
		if f.Lang == "kotlin" {
			if t, ok := r.lambdaThis(f, ref, depth); ok {
				return t
			}
		}
		return r.enclosingTypes(f, ref.Enclosing, depth)
	case "super", "super()": // Python's super() too
		var out []Candidate
		for _, t := range r.enclosingTypes(f, ref.Enclosing, depth) {
			for _, e := range r.Supertypes(t.Def) {
				out = append(out, best(e.Targets)...)
			}
		}
		return out
	}
	if f.Lang == "go" && !isName(q) {
		return r.goExprTypes(f, ref, q, depth)
	}
	if out, ok := r.narrowedTypes(f, ref, q, depth); ok {
		return out
	}
	if out, ok := r.tsElementTypes(f, ref, q, depth); ok {
		return out
	}
	if inner, ok := strings.CutPrefix(q, "await "); ok && ecmaLang(f.Lang) {
		return r.awaitedTypes(f, ref, inner, depth)
	}
	if f.Lang == "kotlin" || f.Lang == "java" || f.Lang == "python" || ecmaLang(f.Lang) {
		// `Foo(a).bar()` is what bar returns, not a Foo: the last call of
		// a chain decides, and a constructor call is a call of its class.
		q = strings.ReplaceAll(strings.ReplaceAll(q, "?.", "."), "!!", "")
		if out, ok := r.pythonCallOfCall(f, ref, q, depth); ok {
			return out
		}
		if out, ok := r.pythonMappingValue(f, ref, q, depth); ok {
			return out
		}
		if callee, ok := calleeOf(q); ok && !strings.HasPrefix(q, "new ") {
			return r.callResultTypes(f, ref, callee, depth)
		}
	}
	if name := constructedName(q); name != "" {
		return r.typesNamed(f, name, ref.Scope, ref.Span, depth)
	}
	if t := tsLiteralType(q); t != "" && ecmaLang(f.Lang) {
		return r.typesNamed(f, t, ref.Scope, ref.Span, depth+1)
	}
	if f.Lang == "python" {
		if t := pythonLiteralType(q); t != "" {
			return r.typesNamed(f, t, ref.Scope, ref.Span, depth+1)
		}
		if v, ok := pythonSubscript(q); ok {
			// parts[0]: what a variable bound to it would be.
			d := analysis.Def{Name: ref.Name, NameSpan: ref.Span, Scope: ref.Scope, Container: ref.Enclosing, Value: v}
			if out, ok := r.pythonElementTypes(f, d, depth+1); ok {
				return out
			}
			return r.valueTypes(f, d, depth+1)
		}
	}
	if f.Lang == "kotlin" || f.Lang == "java" {
		if t := literalType(q); t != "" {
			return r.typesNamed(f, t, ref.Scope, ref.Span, depth+1)
		}
	}
	if out, ok := r.kotlinIndexedTypes(f, ref, q, depth); ok {
		return out
	}
	if f.Lang == "rust" && strings.Contains(q, "::") {
		return r.rustPathModules(f, ref, q, depth)
	}
	if !isName(q) && !isChain(f.Lang, q) {
		return nil
	}
	qref := ref
	qref.Role = analysis.RoleRead
	qref.Qualifier, qref.Name = splitQualifier(q)
	next := depth + 1
	if f.Lang == "go" {
		// The qualifier is shorter text at the same place, which bounds
		// the descent: only a variable's value and the types found cost
		// depth, so a Go chain `a.b.c().d` costs none.
		next = depth
	}
	var out []Candidate
	for _, c := range best(r.resolve(f, qref, next)) {
		g := r.file(c.Def.Path)
		d := g.Defs[c.Def.Index]
		switch {
		case d.Kind.IsType(), d.Kind == analysis.KindModule:
			// A module or namespace qualifies its own declarations.
			out = append(out, c)
		case g.Lang == "go" && (d.Kind == analysis.KindVariable || d.Kind == analysis.KindField) && analysis.GoStructLiteral(d.TypeName):
			// An anonymous struct type: its fields are declared inside the
			// variable or field.
			out = append(out, c)
		case d.Value == tsObjectValue && ecmaLang(g.Lang):
			// Initialized with an object literal: its properties are
			// declared inside it.
			out = append(out, c)
		case g.Lang == "python" && d.Kind == analysis.KindParameter && d.TypeName == "" && c.Confidence >= r.threshold:
			// An override's parameter has the overridden one's annotation.
			found := r.pythonOverriddenParamTypes(g, d, depth+1)
			if len(found) == 0 && d.Value != "" {
				found = r.valueTypes(g, d, depth+1)
			}
			for _, t := range found {
				t.Confidence *= c.Confidence
				out = append(out, t)
			}
		case g.Lang == "python" && pythonDecoratedFunction(d) && c.Confidence >= r.threshold:
			// run_command.params: the name is bound to what its decorator
			// returned (a click Command), whatever the function returns.
			for _, t := range r.valueTypes(g, d, depth+1) {
				t.Confidence *= c.Confidence
				out = append(out, t)
			}
		case g.Lang == "python" && d.TypeName == "" && r.pythonEnumMember(g, d, depth):
			// Color.RED is a Color, whatever its value.
			out = append(out, r.candidate(DefID{c.Def.Path, d.Container}, c.Confidence, c.Via))
		case ecmaLang(g.Lang) && (d.Kind == analysis.KindMethod || tsFunctionDeclaration(d)):
			// A function named, not called, is a Function: `this.parse.bind(this)`.
			// (A variable holding one has the type it is written with:
			// ky's `const ky: Partial<KyInstance> = (…) => …`.)
			out = append(out, r.tsFunctionType(f, ref, c, depth)...)
		case d.TypeName != "":
			for _, t := range r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, depth+1) {
				t.Confidence = r.throughSure(g, c.Confidence, t.Confidence)
				out = append(out, t)
			}
		case d.Value != "" && (g.Lang == "kotlin" || g.Lang == "python" || ecmaLang(g.Lang)) && c.Confidence >= r.threshold:
			for _, t := range r.valueTypes(g, d, depth+1) {
				t.Confidence *= c.Confidence
				out = append(out, t)
			}
		case d.Value != "" && g.Lang == "go" && c.Confidence >= r.threshold:
			// Only a confident variable's value is worth inferring: the
			// guesses at a name unresolved (`res` of a receive) may be
			// hundreds.
			for _, t := range r.goExprTypes(g, valueRef(d), d.Value, depth+1) {
				t.Confidence *= c.Confidence
				out = append(out, t)
			}
		}
	}
	return out
}

// valueRef places the resolution of a variable's value where the variable
// is declared.
func valueRef(d analysis.Def) analysis.Ref {
	return analysis.Ref{Name: d.Name, Span: d.NameSpan, Role: analysis.RoleRead, Scope: d.Scope, Enclosing: d.Container}
}

// plainQualifier returns the qualifier when receiverTypes resolves it as a
// plain name, else "".
func plainQualifier(qualifier string) string {
	q := strings.TrimRight(qualifier, "!?")
	switch q {
	case "this", "self", "Self", "@", "super", "super()":
		return ""
	}
	if constructedName(q) != "" || !isName(q) || strings.Contains(q, ".") {
		return ""
	}
	return q
}

// enclosingTypes finds the type a this/self inside def refers to: the
// nearest containing type, or the receiver of a Go method or extension.
func (r *Resolver) enclosingTypes(f *analysis.FileFacts, def int32, depth int) []Candidate {
	for ; def != analysis.None; def = f.Defs[def].Container {
		d := f.Defs[def]
		if t := tsThisParam(f.Lang, d); t != "" {
			return r.typesNamed(f, t, d.Scope, d.NameSpan, depth+1)
		}
		if d.Kind.IsType() {
			return []Candidate{r.candidate(DefID{f.Path, def}, 1, ViaScope)}
		}
		if d.Receiver != "" {
			return r.typesNamed(f, d.Receiver, d.Scope, d.NameSpan, depth+1)
		}
	}
	return nil
}

// typesNamed resolves a written type ("List<Foo>", "*Foo", "pkg.Foo?") as
// seen from a scope of f. A qualified type is looked up in the package or
// type its qualifier names first, so `geo.Circle` is not any Circle.
func (r *Resolver) typesNamed(f *analysis.FileFacts, typeName string, scope int32, at analysis.Span, depth int) []Candidate {
	// The references of a name reach the same few declared types over and
	// over, through the variables and parameters they are qualified by.
	key := typeKey{f.Path, typeName, scope, at, depth}
	r.mu.Lock()
	c, ok := r.types[key]
	r.mu.Unlock()
	if !ok {
		c = r.resolveType(f, typeName, scope, at, depth)
		r.mu.Lock()
		r.types[key] = c
		r.mu.Unlock()
	}
	return slices.Clone(c)
}

func (r *Resolver) resolveType(f *analysis.FileFacts, typeName string, scope int32, at analysis.Span, depth int) []Candidate {
	if f.Lang == "python" {
		if arms := pythonUnionArms(typeName); len(arms) != 1 || arms[0] != strings.TrimSpace(typeName) {
			var out []Candidate
			for _, arm := range arms {
				out = append(out, r.typesNamed(f, arm, scope, at, depth+1)...)
			}
			return out
		}
	}
	if ecmaLang(f.Lang) {
		typeName = tsWritten(typeName)
		if s := schemaOf(typeName); s != "" {
			return r.schemaTypes(f, s, scope, at, depth)
		}
		if obj, key, ok := tsIndexed(typeName); ok {
			return r.indexedTypes(f, obj, key, scope, at, depth)
		}
		if out, ok := r.tsMappedTypes(f, typeName, scope, at, depth); ok {
			return out
		}
		if out, ok := r.tsInstanceTypes(f, typeName, scope, at, depth); ok {
			return out
		}
		if d, ok := tsDefaultedParam(f, typeName, at); ok && !r.tooDeep(f.Lang, depth+1) {
			return r.typesNamed(f, d.Value, d.Scope, d.NameSpan, depth+1)
		}
	}
	name := baseTypeName(typeName)
	if ecmaLang(f.Lang) {
		name = tsTypeName(typeName, name)
	}
	if name == "" {
		return nil
	}
	ref := analysis.Ref{Name: name, Span: at, Role: analysis.RoleType, Scope: scope, Enclosing: analysis.None}
	if q := typeQualifier(typeName); q != "" {
		qref := ref
		qref.Qualifier = q
		if out := best(r.resolve(f, qref, depth+1)); len(out) > 0 && out[0].Confidence >= r.threshold {
			return r.pythonAliased(out, depth)
		}
	}
	out := r.pythonAliased(best(r.resolve(f, ref, depth+1)), depth)
	if f.Lang == "kotlin" && len(out) > 0 {
		if g := r.file(out[0].Def.Path); len(out) == 1 && !r.tooDeep(f.Lang, depth+1) {
			// A type parameter stands for its upper bound.
			if d := g.Defs[out[0].Def.Index]; d.Kind == analysis.KindTypeParameter && d.TypeName != "" && baseTypeName(d.TypeName) != name {
				return r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, depth+1)
			}
		}
		// An expect class has its members in its actual classes too.
		out = r.withActuals(out)
	}
	if ecmaLang(f.Lang) && len(out) == 1 && !r.tooDeep(f.Lang, depth+1) {
		// A type parameter left out of an instance is its default.
		if g, d, ok := r.entry(out[0].Def); ok && d.Kind == analysis.KindTypeParameter && d.Value != "" && d.Value != name {
			return r.typesNamed(g, d.Value, d.Scope, d.NameSpan, depth+1)
		}
	}
	if f.Lang == "kotlin" || f.Lang == "java" || ecmaLang(f.Lang) {
		out = r.sureType(out)
	}
	return out
}

// sureType makes a written type that the language's lookup rules found
// alone (or as an expect class and its actuals) certain: a chain of
// inferred types through library declarations (`xs.map { }.first()`)
// must not fade below the threshold one sure step at a time.
func (r *Resolver) sureType(out []Candidate) []Candidate {
	if len(out) == 0 || out[0].Confidence < r.threshold {
		return out
	}
	name := ""
	for _, c := range out {
		d := r.file(c.Def.Path).Defs[c.Def.Index]
		if !d.Kind.IsType() || name != "" && d.Name != name {
			return out
		}
		name = d.Name
	}
	for i := range out {
		out[i].Confidence = confScope
	}
	return out
}

// members finds the members named name of type t: declared inside it or in
// its companion object, declared outside with t as receiver (Go methods,
// Kotlin extensions, Rust impls), or inherited.
func (r *Resolver) members(t DefID, name string, role analysis.Role, conf float64, depth int) []Candidate {
	g, _, ok := r.entry(t)
	if !ok {
		return nil // a guess from the name tables whose file is gone
	}
	if r.tooDeep(g.Lang, depth) {
		return nil
	}
	if out := r.declared(t, name, role, conf); len(out) > 0 {
		if base := r.pythonAssignedProperty(t, out, name, role, conf*confInherited, depth); len(base) > 0 {
			return base
		}
		if role&analysis.RoleCall != 0 && overloadLangs[r.file(t.Path).Lang] {
			out = append(out, r.inheritedOverloads(t, out, name, role, conf, depth)...)
		}
		return out
	}
	if out := r.mergedDeclared(t, name, role, conf); len(out) > 0 {
		return out
	}
	if out := r.goUnderlying(t, name, role, conf, depth+1); len(out) > 0 {
		return out
	}
	if out, ok := r.namespaceBindingMember(t, name, role, conf, depth+1); ok {
		return out
	}
	out := r.inherited(t, name, role, conf*confInherited, depth+1)
	if len(out) == 0 && g.Lang == "python" {
		out = r.pythonObjectMember(t, name, role, conf*confInherited)
	}
	if len(out) == 0 && ecmaLang(g.Lang) && name != analysis.IndexSignatureName && role&analysis.RoleType == 0 {
		// A property that t does not declare is its index signature's
		// (node's IncomingHttpHeaders extends NodeJS.Dict<string>).
		out = r.members(t, analysis.IndexSignatureName, role, conf, depth+1)
	}
	return out
}

// underlyingLangs have type aliases whose members are the aliased type's.
var underlyingLangs = map[string]bool{"go": true, "kotlin": true, "typescript": true, "javascript": true}

// goUnderlying finds name among the members of the type a Go type
// declaration `type A = B` or `type A B` is declared with: an alias has
// all of B's members, a defined type B's fields but not its methods.
func (r *Resolver) goUnderlying(t DefID, name string, role analysis.Role, conf float64, depth int) []Candidate {
	g := r.file(t.Path)
	d := g.Defs[t.Index]
	if !underlyingLangs[g.Lang] || d.Kind != analysis.KindTypeAlias || d.TypeName == "" || r.tooDeep(g.Lang, depth) {
		return nil
	}
	if arms := tsUnionArms(d.TypeName); len(arms) > 1 {
		return r.unionMembers(g, d, arms, name, role, conf, depth)
	}
	alias := g.Lang != "go" || strings.Contains(d.Signature, "=")
	var out []Candidate
	for _, u := range r.typesNamed(g, d.TypeName, d.Scope, d.NameSpan, depth+1) {
		if u.Def == t || u.Confidence < r.threshold {
			continue
		}
		for _, c := range r.members(u.Def, name, role, conf, depth+1) {
			if alias || c.Kind != analysis.KindMethod {
				out = append(out, c)
			}
		}
	}
	return out
}

// declared finds the members named name that t declares itself.
func (r *Resolver) declared(t DefID, name string, role analysis.Role, conf float64) []Candidate {
	g := r.file(t.Path)
	var out []Candidate
	for _, i := range r.named(g, name) {
		// Constructor parameters are in the class scope but are not members.
		d := g.Defs[i]
		if d.Container == analysis.None || d.Kind == analysis.KindParameter {
			continue
		}
		if d.Container == t.Index || isCompanion(g, d.Container) && g.Defs[d.Container].Container == t.Index {
			out = r.add(out, t.Path, i, conf, ViaMember, role)
		}
	}
	typeName := g.Defs[t.Index].Name
	if g.Lang == "go" {
		// A Go method is declared in its type's package, the same
		// directory: the name tables say which of its files declare a
		// method with the name, and only those are decoded.
		for _, e := range r.goMethodsIn(name, t.Path) {
			if _, d, ok := r.entry(e.DefID); ok && d.Receiver != "" && baseTypeName(d.Receiver) == typeName {
				out = r.add(out, e.Path, e.Index, conf, ViaMember, role)
			}
		}
		return out
	}
	for _, m := range r.methodsNamed(name) {
		if m.receiver == typeName || g.Lang == "kotlin" && r.aliasBase(m.receiver) == typeName {
			out = r.add(out, m.id.Path, m.id.Index, conf, ViaMember, role)
		}
	}
	if len(out) == 0 && g.Lang == "kotlin" {
		out = r.genericExtensions(name, role, conf, typeName)
	}
	return out
}

// goMethodsIn lists the Go methods called name declared in the directory
// of path. Member lookups ask for every use of a member, and a name like
// String or Error has thousands of methods across a workspace: they are
// sorted by directory once per name, not scanned once per directory (which
// grew with the workspace squared).
func (r *Resolver) goMethodsIn(name, path string) []DefEntry {
	dir := path[:strings.LastIndexByte(path, '/')+1] // as sameDir tells them apart
	r.mu.Lock()
	out, ok := r.goMethods[[2]string{name, dir}]
	_, grouped := r.goMethods[[2]string{name, groupedMark}]
	r.mu.Unlock()
	if ok || grouped {
		return out
	}
	byDir := map[string][]DefEntry{}
	for _, e := range r.defs(name) {
		if e.Lang == "go" && e.Kind == analysis.KindMethod {
			d := e.Path[:strings.LastIndexByte(e.Path, '/')+1]
			byDir[d] = append(byDir[d], e)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for d, es := range byDir {
		r.goMethods[[2]string{name, d}] = es
	}
	r.goMethods[[2]string{name, groupedMark}] = nil
	return byDir[dir]
}

// groupedMark, in place of a directory in the key of Resolver.goMethods,
// records that every directory's methods of the name are there: no path
// holds a NUL.
const groupedMark = "\x00"

func isCompanion(f *analysis.FileFacts, i int32) bool {
	d := f.Defs[i]
	return d.Kind == analysis.KindObject && strings.Contains(d.Signature, "companion")
}

// inherited finds name among the members of t's supertypes, nearest first.
// The caller pays the inheritance penalty once, whatever the depth, and a
// supertype costs its resolution's confidence only when that is a guess:
// a deep hierarchy of confidently resolved types is as sure as a shallow one.
func (r *Resolver) inherited(t DefID, name string, role analysis.Role, conf float64, depth int) []Candidate {
	if r.tooDeep(r.file(t.Path).Lang, depth) {
		return nil
	}
	var out []Candidate
	for _, e := range r.supertypes(t, depth+1) {
		for _, s := range best(e.Targets) {
			c := conf
			if s.Confidence < r.threshold {
				c *= s.Confidence
			}
			found := r.declared(s.Def, name, role, c)
			if base := r.pythonAssignedProperty(s.Def, found, name, role, c, depth+1); len(base) > 0 {
				found = base
			}
			if len(found) == 0 {
				found = r.aliasSupertypeMembers(t, s.Def, name, role, c, depth+1)
			}
			if len(found) == 0 {
				found = r.inherited(s.Def, name, role, c, depth+1)
			}
			out = appendNew(out, found)
		}
	}
	if len(out) == 0 {
		out = r.rootMember(t, name, role, conf)
	}
	return out
}

// best keeps the candidates tied with the most confident one.
func best(c []Candidate) []Candidate {
	top, n := 0.0, 0
	for _, x := range c {
		switch {
		case x.Confidence > top:
			top, n = x.Confidence, 1
		case x.Confidence == top:
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Candidate, 0, n) // one allocation: it runs for every qualifier
	for _, x := range c {
		if x.Confidence == top {
			out = append(out, x)
		}
	}
	return out
}
